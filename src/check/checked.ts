// What the checker hands to instantiation: one schedule whose names and types are known to be
// consistent, with its parameter values resolved (defaults or -D overrides).

import type { Expr, Program, ScheduleDecl, TypeName } from "../frontend/ast.js";
import type { SourceFile } from "../source/source-file.js";
import type { Target } from "../target/target.js";

export type Value = number | boolean;

export interface CheckedSchedule {
  readonly file: SourceFile;
  readonly program: Program;
  readonly schedule: ScheduleDecl;
  readonly target: Target;
  /** Every parameter of the schedule with its value, in declaration order. */
  readonly params: readonly {
    readonly name: string;
    readonly type: TypeName;
    readonly value: Value;
  }[];
  /** The type of every expression node in the program (shared by its schedules). */
  readonly types: ReadonlyMap<Expr, TypeName>;
}

export interface CheckOptions {
  /** `-D name=value` overrides, as written on the command line (value is source text). */
  readonly defines: Readonly<Record<string, string>>;
  /** Which schedule to check for instantiation; required when the file has several. */
  readonly schedule?: string | undefined;
  /** Directory for resolving `target "file.json"` (the source file's directory). */
  readonly baseDir?: string | undefined;
  /** A target given on the command line (--target FILE) overrides the file's `target`. */
  readonly targetOverride?: import("../target/target.js").Target | undefined;
}
