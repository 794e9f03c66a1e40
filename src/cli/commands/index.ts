// The table of CLI commands, in the order `dmac --help` lists them.

import type { Command } from "commander";
import type { CliContext } from "../main.js";
import { registerCalibrate } from "./calibrate.js";
import { registerCheck } from "./check.js";
import { registerDisasm } from "./disasm.js";
import { registerExplain } from "./explain.js";
import { registerCompile } from "./compile.js";
import { registerGolden } from "./golden.js";
import { registerIr } from "./ir.js";
import { registerLsp } from "./lsp.js";
import { registerSim } from "./sim.js";
import { registerSweep } from "./sweep.js";

export type RegisterCommand = (program: Command, ctx: CliContext) => void;

export const COMMANDS: readonly RegisterCommand[] = [
  registerCheck,
  registerIr,
  registerExplain,
  registerDisasm,
  registerCompile,
  registerGolden,
  registerSim,
  registerSweep,
  registerCalibrate,
  registerLsp,
];
