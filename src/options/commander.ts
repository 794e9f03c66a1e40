// The one place the CLI gets commander's runtime values from (types may still come from
// "commander" with `import type`, which is erased).
//
// Why: commander is a CommonJS package; importing it from ES modules goes through its ESM wrapper
// and Node's scan of the CommonJS source for export names, ~6 ms of CPU on every `dmac` start
// (docs/performance.md, "Where the time goes"). require() loads the same module
// object (one CommonJS cache), so `instanceof CommanderError` holds whichever way a value was made.
// The bundled CLI (scripts/bundle.mjs) replaces this module with a plain re-export, which the
// bundler follows and inlines.

import { createRequire } from "node:module";
import type * as CommanderModule from "commander";

const commander = createRequire(import.meta.url)("commander") as typeof CommanderModule;

export const Command = commander.Command;
export type Command = CommanderModule.Command;
export const CommanderError = commander.CommanderError;
export type CommanderError = CommanderModule.CommanderError;
export const Option = commander.Option;
export type Option = CommanderModule.Option;
