// Test helpers: hand-built IR modules and compiling example sources to queue programs.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { allocOpTable, OP_KINDS, type IrModule, type OpTable } from "../../../src/ir/ir.js";
import { inferDeps } from "../../../src/ir/deps.js";
import { makeSourceFile, type SourceFile } from "../../../src/source/source-file.js";
import { compileToQueues, type CompileOptions } from "../../../src/driver/compile.js";
import { builtinTarget, type Target } from "../../../src/target/target.js";

export const MI300X: Target = builtinTarget("mi300x")!;

export interface OpSpec {
  kind: keyof typeof OP_KINDS;
  driver?: number;
  engine?: number;
  src?: [rank: number, buf: number, off: number];
  dst?: [rank: number, buf: number, off: number];
  dst2?: [rank: number, buf: number, off: number];
  len?: number;
  value?: number;
  signal?: [id: number, rank: number];
  cmp?: number;
  guard?: number;
}

/** A module over buffers of the given sizes (on every rank), with the ops given, edges inferred. */
export function buildModule(
  bufferSizes: number[],
  specs: OpSpec[],
  opts: { ranks?: number; signals?: number } = {},
): IrModule {
  const ranks = opts.ranks ?? 8;
  const t: OpTable = allocOpTable(Math.max(1, specs.length));
  specs.forEach((s, i) => {
    t.kind[i] = OP_KINDS[s.kind].code;
    t.stmt[i] = 0;
    t.bind[i] = -1;
    t.driver[i] = s.driver ?? s.src?.[0] ?? s.dst?.[0] ?? s.signal?.[1] ?? 0;
    t.engine[i] = s.engine ?? -1;
    const set = (pre: "src" | "dst" | "dst2", v: [number, number, number] | undefined): void => {
      t[`${pre}Rank`][i] = v ? v[0] : -1;
      t[`${pre}Buf`][i] = v ? v[1] : -1;
      t[`${pre}Off`][i] = v ? v[2] : 0;
    };
    set("src", s.src);
    set("dst", s.dst);
    set("dst2", s.dst2);
    t.len[i] = s.len ?? 0;
    t.value[i] = s.value ?? 0;
    t.signal[i] = s.signal?.[0] ?? -1;
    t.sigRank[i] = s.signal?.[1] ?? -1;
    t.cmp[i] = s.cmp ?? 0;
    t.guard[i] = s.guard ?? -1;
  });
  t.count = specs.length;
  const span = { start: 0, end: 1 };
  const m: IrModule = {
    schedule: "test",
    doc: "",
    target: "mi300x",
    ranks,
    params: [],
    buffers: bufferSizes.map((size, id) => ({ id, name: `b${id}`, size, rank: -1, span })),
    signals: Array.from({ length: opts.signals ?? 0 }, (_, id) => ({
      id,
      name: `s${id}`,
      encoding: "count" as const,
      rank: -1,
      span,
    })),
    stmts: [{ span, loopVars: [] }],
    bindValues: new Float64Array(0),
    ops: t,
    ensures: [],
    collective: undefined,
    edges: undefined,
  };
  return inferDeps(m);
}

/** The hand-built all-gather pcpy: every rank r copies its chunk to every peer p. */
export function allGatherPcpy(chunk: number, ranks = 8): IrModule {
  const specs: OpSpec[] = [];
  for (let r = 0; r < ranks; r++)
    for (let p = 0; p < ranks; p++)
      if (p !== r)
        specs.push({ kind: "copy", src: [r, 0, r * chunk], dst: [p, 0, r * chunk], len: chunk });
  return buildModule([chunk * ranks], specs, { ranks });
}

export function exampleFile(name: string): SourceFile {
  const path = fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url));
  return makeSourceFile(`examples/${name}`, readFileSync(path, "utf8"));
}

export function sourceFile(text: string, name = "test.dmac"): SourceFile {
  return makeSourceFile(name, text);
}

/** Compiles to a queue program or fails the test with the diagnostics. */
/** The lowering (--sync aggressive unless opts say otherwise: the forms lowering writes). */
export function queuesOf(file: SourceFile, opts: CompileOptions = {}) {
  const r = compileToQueues(file, { sync: "aggressive", ...opts });
  if (!r.compiled) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return r.compiled;
}
