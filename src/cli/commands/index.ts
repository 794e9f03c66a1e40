// The table of CLI commands, in the order `dmac --help` lists them.

import type { Command } from "commander";
import type { CliContext } from "../main.js";

export type RegisterCommand = (program: Command, ctx: CliContext) => void;

export const COMMANDS: readonly RegisterCommand[] = [];
