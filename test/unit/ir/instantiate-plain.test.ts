// Loops of plain copies (instantiate.ts runPlainCopies) against the general path: the same op
// table, loop values, statements and diagnostics, on every example, every instantiation golden
// case and random loops of copies, many of them wrong somewhere inside a run.

import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { instantiate, DEFAULT_MAX_OPS } from "../../../src/ir/instantiate.js";
import type { InstantiateResult } from "../../../src/ir/instantiate.js";
import { affineIn } from "../../../src/ir/affine.js";
import { runReference, runReferenceSources, type ReferenceState } from "../../../src/ir/interp.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { coalesce, readRange } from "../../../src/ir/provenance.js";
import type { Expr } from "../../../src/frontend/ast.js";
import { mulberry32 } from "../../helpers/prng.js";

const ROOT = new URL("../../../", import.meta.url);

/** The result as plain data: the op table's columns up to its count, typed arrays as arrays. */
function shape(r: InstantiateResult): unknown {
  const m = r.module;
  if (!m) return { diagnostics: r.diagnostics };
  const cols: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(m.ops))
    if (k !== "count") cols[k] = Array.from((v as Int32Array).subarray(0, m.ops.count));
  return {
    diagnostics: r.diagnostics,
    count: m.ops.count,
    cols,
    bindValues: Array.from(m.bindValues),
    stmts: m.stmts,
    ensures: m.ensures,
    buffers: m.buffers,
    collective: m.collective,
  };
}

/** Instantiates every schedule of `text` both ways and expects the same results. */
function same(name: string, text: string, defines: Record<string, string> = {}, maxOps?: number) {
  const file = makeSourceFile(name, text);
  const checked = checkSource(file, { defines });
  if (checked.diagnostics.some((d) => d.severity === "error")) {
    if (process.env["DEBUG_PLAIN"])
      console.log(
        text,
        checked.diagnostics.map((d) => d.code + " " + d.message),
      );
    return false;
  }
  for (const s of checked.schedules) {
    const opts = { maxOps: maxOps ?? DEFAULT_MAX_OPS };
    const plain = instantiate(s, opts);
    const generic = instantiate(s, { ...opts, generic: true });
    expect(shape(plain), `${name} ${s.schedule.name.name}`).toEqual(shape(generic));
    if (plain.module && generic.module) {
      // The runs it knows (copy-runs.ts) leave the merged reference run as it was.
      const want = sources(generic.module, runReference(generic.module));
      expect(sources(plain.module, runReferenceSources(plain.module)), name).toBe(want);
      expect(sources(generic.module, runReferenceSources(generic.module)), name).toBe(want);
      for (const bound of [0, 3, 10, 40])
        expect(runReferenceSources(plain.module, bound).overAt, name).toBe(
          runReferenceSources(generic.module, bound).overAt,
        );
    }
  }
  return true;
}

/** Every (rank, buffer)'s sources (writers aside) and the raises. */
function sources(m: IrModule, st: ReferenceState): string {
  return [
    ...m.buffers.flatMap((b) =>
      Array.from({ length: m.ranks }, (_, r) =>
        JSON.stringify(
          coalesce(readRange(st, r, b.id, 0, b.size), false).map((x) => [x.start, x.end, x.source]),
        ),
      ),
    ),
    Array.from(st.raises).join(","),
  ].join("\n");
}

function dmacFiles(dir: URL): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".dmac"))
    .sort()
    .map((f) => fileURLToPath(new URL(f, dir)));
}

/**
 * A random schedule of loops of copies: offsets affine (or not) in the loop variables, some
 * ranges past a buffer's end, lengths that reach 0, copies within one buffer that overlap
 * somewhere, placements, host buffers, nested loops, `where`.
 */
function randomSchedule(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const lines = ["target mi300x", "", "schedule s(piece: bytes = 64B, n: int = 6) {"];
  lines.push("  buffer a: piece * 64", "  buffer b: piece * 64", "  buffer h: piece * 64 on host");
  lines.push("  buffer c: piece * 64 on 1");
  const v = "k";
  const off = (): string =>
    pick([
      `${v} * piece`,
      `(${v} + 1) * piece`,
      `(p * n + ${v}) * piece`,
      `(n - ${v}) * piece`,
      `${v} * piece * 2`,
      `(${v} % 3) * piece`,
      `${v} * ${v} * 1B`,
      `${int(0, 8)} * piece`,
      `(${v} - 2) * piece`,
      `-${v} * piece + 60 * piece`,
      `${v} * (piece + 1B)`,
      `max(${v}, 2) * piece`,
      `p * piece + ${v} * 1B`,
    ]);
  const len = (): string =>
    pick([
      "piece",
      "piece",
      "piece",
      `${v} * 8B`,
      `(n - ${v}) * 8B`,
      `(${v} + 1) * 4B`,
      "2 * piece",
    ]);
  const rank = (): string =>
    pick(["r", "p", "((r + 1) % ranks)", "0", "1", `(${v} % ranks)`, "(p + r)"]);
  const buf = (): string => pick(["a", "a", "b", "b", "c", "h"]);
  const region = (b: string, o: string, l: string): string =>
    b === "h" ? `h@host[${o} +: ${l}]` : `${b}@${rank()}[${o} +: ${l}]`;
  const copy = (indent: string): string => {
    const l = len();
    const place = pick([
      "",
      "",
      "",
      " by r",
      " on sdma(2)",
      " on sdma(0)",
      ` on sdma(${v} % 4)`,
      " by p on sdma(4)",
    ]);
    const src = region(buf(), off(), l);
    const dst = rand() < 0.15 ? `${src.split("[")[0]}[${off()} +: ${l}]` : region(buf(), off(), l);
    return `${indent}copy ${src} -> ${dst}${place}`;
  };
  const loops = int(1, 3);
  for (let j = 0; j < loops; j++) {
    const range = pick(["0..n", "0..n step 2", "1..n", "0..4", "2..2", "0..40", "n..0"]);
    const header = pick([
      `for r in ranks, p in 0..2, ${v} in ${range}`,
      `for r in 0..2, p in 1..2, ${v} in ${range}`,
      `for r in ranks, p in 0..2, ${v} in ${range} where ${v} != 1`,
    ]);
    lines.push(`  ${header} {`);
    if (rand() < 0.2) {
      lines.push(
        `    for q in 0..2 {`,
        `      copy a@r[q * piece +: piece] -> b@r[q * piece +: piece]`,
        "    }",
      );
    }
    const copies = int(1, 3);
    for (let c = 0; c < copies; c++) lines.push(copy("    "));
    lines.push("  }");
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}

describe("loops of plain copies", () => {
  it("affineIn: + - and * by a constant only", () => {
    const n = (name: string): Expr => ({ kind: "name", name, span: { start: 0, end: 0 } });
    const i = (value: number): Expr => ({ kind: "int", value, span: { start: 0, end: 0 } });
    const b = (op: "+" | "*" | "%" | "-", left: Expr, right: Expr): Expr => ({
      kind: "binary",
      op,
      left,
      right,
      span: { start: 0, end: 0 },
    });
    const slotOf = (e: { name: string }) => (e.name === "k" ? 1 : 0);
    expect(affineIn(b("*", b("+", n("p"), n("k")), i(4)), 1, slotOf)).toBe(true);
    expect(affineIn(b("-", i(4), b("*", n("p"), n("k"))), 1, slotOf)).toBe(true);
    expect(affineIn(b("*", n("k"), n("k")), 1, slotOf)).toBe(false);
    expect(affineIn(b("%", n("k"), i(3)), 1, slotOf)).toBe(false);
    expect(affineIn(b("+", n("k"), b("%", n("p"), i(3))), 1, slotOf)).toBe(true);
  });

  it("examples and the instantiation golden cases: the same module both ways", () => {
    const files = [
      ...dmacFiles(new URL("examples/", ROOT)),
      ...dmacFiles(new URL("test/golden/cases/instantiate/", ROOT)),
    ];
    let checked = 0;
    for (const f of files) if (same(f, readFileSync(f, "utf8"))) checked++;
    expect(checked).toBeGreaterThan(30);
  });

  it("the chunked all-to-all, also with the op limit inside a run", () => {
    const text = `target mi300x
schedule a2a(piece: bytes = 4KiB, chunks: int = 64) implements all_to_all(src, dst) {
  buffer src: piece * chunks * ranks
  buffer dst: piece * chunks * ranks
  for r in ranks, p in ranks, k in 0..chunks {
    copy src@r[(p * chunks + k) * piece +: piece] -> dst@p[(r * chunks + k) * piece +: piece]
  }
}
`;
    expect(same("a2a.dmac", text)).toBe(true);
    for (const maxOps of [0, 1, 63, 64, 65, 1000, 4096, 4097])
      expect(same("a2a.dmac", text, {}, maxOps)).toBe(true);
  });

  it("600 random loops of copies, right and wrong", () => {
    const rand = mulberry32(13);
    let checked = 0;
    for (let i = 0; i < 600; i++) {
      const text = randomSchedule(rand);
      const maxOps = rand() < 0.2 ? Math.floor(rand() * 300) : undefined;
      if (same(`random${i}.dmac`, text, {}, maxOps)) checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });
});
