// The IR text form: print(parse(text)) === text on every example and on generated modules that
// exercise every op kind and attribute, and parse errors for malformed text.

import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { instantiate, DEFAULT_MAX_OPS } from "../../../src/ir/instantiate.js";
import { inferDeps } from "../../../src/ir/deps.js";
import { printIr } from "../../../src/ir/print.js";
import { parseIr } from "../../../src/ir/parse-text.js";
import { allocOpTable, OP_KINDS, type IrModule } from "../../../src/ir/ir.js";
import { ok } from "./instantiate-helpers.js";

const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));

function roundTrip(text: string): IrModule {
  const p = parseIr(text);
  expect(p.errors).toEqual([]);
  expect(p.module).toBeDefined();
  expect(printIr(p.module!, { deps: true })).toBe(text);
  return p.module!;
}

describe("IR text form", () => {
  const examples = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".dmac"))
    .sort();

  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThan(5);
  });

  for (const f of examples) {
    it(`round-trips ${f} (with and without deps)`, () => {
      const file = makeSourceFile(f, readFileSync(join(EXAMPLES, f), "utf8"));
      const checked = checkSource(file, { defines: {} });
      expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      for (const s of checked.schedules) {
        const r = instantiate(s, { maxOps: DEFAULT_MAX_OPS });
        expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
        const plain = printIr(r.module!);
        expect(plain.startsWith("; dmac ir v1\n")).toBe(true);
        const back = roundTrip(plain);
        expect(back.edges).toBeUndefined();
        expect(back.ops.count).toBe(r.module!.ops.count);
        const withDeps = printIr(inferDeps(r.module!), { deps: true });
        const parsed = roundTrip(withDeps);
        expect(parsed.edges).toBeDefined();
        // The parsed module is the same IR: printing it without deps gives the plain text.
        expect(printIr(parsed)).toBe(plain);
      }
    });
  }

  it("prints every op kind and attribute, and round-trips them", () => {
    const m = ok(`/// A "doc" with \\ and
/// two lines
schedule every(flag: bool = false, n: int = -2) {
  buffer a: 4KiB
  buffer s: 1KiB on 2
  signal go on 1
  signal any
  when go@1 <= 7 {
    for i in n..0, j in 0..1 {
      copy a@0[0B +: 8B] -> a@1[0B +: 8B], a@2[0B +: 8B] by 3 on sdma(9)
    }
    when any@4 != 0 { notify any@5 }
  }
  swap a@3[0B +: 64B] <-> a@4[64B +: 64B]
  fill s@2 with 255
  ensure s@2 == 255
  for k in 0..2 { ensure a@k[0B +: 8B] == a@(k + 1)[8B +: 8B] }
}`);
    const text = printIr(m);
    expect(text).toBe(`; dmac ir v1
schedule every target mi300x ranks 8
doc "A \\"doc\\" with \\\\ and\\ntwo lines"
param flag: bool = false
param n: int = -2
buffer 0 a size 4096 on * at 4:3-4:17
buffer 1 s size 1024 on 2 at 5:3-5:22
signal 0 go on 1 at 6:3-6:17
signal 1 any on * at 7:3-7:13
stmt 0 at 8:3-8:17
stmt 1 at 10:7-10:73 vars i j
stmt 2 at 12:5-12:20
stmt 3 at 12:23-12:35
stmt 4 at 14:3-14:42
stmt 5 at 15:3-15:20
stmt 6 at 16:3-16:20
stmt 7 at 17:19-17:62 vars k
op 0 wait go@1 <= 7 stmt 0
op 1 bcast a@0[0 +: 8] -> a@1[0 +: 8], a@2[0 +: 8] driver 3 engine 9 guard 0 stmt 1 bind i=-2 j=0
op 2 bcast a@0[0 +: 8] -> a@1[0 +: 8], a@2[0 +: 8] driver 3 engine 9 guard 0 stmt 1 bind i=-1 j=0
op 3 wait any@4 != 0 guard 0 stmt 2
op 4 notify any@5 guard 3 stmt 3
op 5 swap a@3[0 +: 64] <-> a@4[64 +: 64] driver 3 stmt 4
op 6 fill s@2[0 +: 1024] with 255 driver 2 stmt 5
ensure s@2[0 +: 1024] == 255 stmt 6
ensure a@0[0 +: 8] == a@1[8 +: 8] stmt 7 bind k=0
ensure a@1[0 +: 8] == a@2[8 +: 8] stmt 7 bind k=1
`);
    const back = roundTrip(text);
    expect(back.doc).toBe('A "doc" with \\ and\ntwo lines');
    expect(back.params).toEqual([
      { name: "flag", type: "bool", value: false },
      { name: "n", type: "int", value: -2 },
    ]);
    expect([...back.ops.guard.subarray(0, 7)]).toEqual([-1, 0, 0, 0, 3, -1, -1]);
    const deps = printIr(inferDeps(m), { deps: true });
    expect(deps).toContain("\nedges ");
    roundTrip(deps);
  });

  it("round-trips modules without a source file (offset spans), with collectives and edges", () => {
    const ops = allocOpTable(4);
    ops.count = 3;
    const fill = (i: number, kind: number): void => {
      ops.kind[i] = kind;
      for (const a of [
        ops.engine,
        ops.srcRank,
        ops.srcBuf,
        ops.dst2Rank,
        ops.dst2Buf,
        ops.signal,
        ops.sigRank,
        ops.guard,
      ])
        a[i] = -1;
      ops.stmt[i] = 0;
      ops.bind[i] = -1;
    };
    fill(0, OP_KINDS.fill.code);
    Object.assign(ops, {});
    ops.driver[0] = 0;
    ops.dstRank[0] = 0;
    ops.dstBuf[0] = 0;
    ops.len[0] = 2 ** 40;
    fill(1, OP_KINDS.copy.code);
    ops.driver[1] = 0;
    ops.srcRank[1] = 0;
    ops.srcBuf[1] = 0;
    ops.srcOff[1] = 2 ** 52;
    ops.dstRank[1] = 1;
    ops.dstBuf[1] = 0;
    ops.len[1] = 1;
    fill(2, OP_KINDS.copy.code);
    ops.driver[2] = 1;
    ops.srcRank[2] = 1;
    ops.srcBuf[2] = 0;
    ops.dstRank[2] = 0;
    ops.dstBuf[2] = 0;
    ops.len[2] = 1;
    const m: IrModule = {
      schedule: "hand",
      doc: "",
      target: "my node",
      ranks: 2,
      params: [],
      buffers: [{ id: 0, name: "b", size: 2 ** 53 - 1, rank: -1, span: { start: 0, end: 5 } }],
      signals: [],
      stmts: [{ span: { start: 10, end: 42 }, loopVars: [] }],
      bindValues: new Float64Array(0),
      ops,
      ensures: [],
      collective: {
        name: "send_recv",
        args: [
          { kind: "buffer", id: 0 },
          { kind: "buffer", id: 0 },
          { kind: "int", value: 0 },
          { kind: "int", value: -1 },
        ],
        span: { start: 3, end: 4 },
      },
      edges: { predStart: Int32Array.from([0, 0, 1, 3]), predIdx: Int32Array.from([0, 0, 1]) },
    };
    const text = printIr(m, { deps: true });
    expect(text).toBe(`; dmac ir v1
schedule hand target my node ranks 2
buffer 0 b size 9007199254740991 on * at #0-5
stmt 0 at #10-42
collective send_recv(b, b, 0, -1) at #3-4
op 0 fill b@0[0 +: 1099511627776] with 0 driver 0 stmt 0
op 1 copy b@0[4503599627370496 +: 1] -> b@1[0 +: 1] driver 0 stmt 0
op 2 copy b@1[0 +: 1] -> b@0[0 +: 1] driver 1 stmt 0
edges 3
deps 1 <- 0
deps 2 <- 0 1
`);
    const back = roundTrip(text);
    expect(back.file).toBeUndefined();
    expect(back.collective).toEqual(m.collective);
    expect([...back.edges!.predStart]).toEqual([0, 0, 1, 3]);
    // Without the deps option the edges are not printed.
    expect(printIr(back)).not.toContain("deps");
  });

  it("reports malformed lines with their line numbers", () => {
    const good = printIr(
      ok(`schedule t() {\n  buffer a: 8B\n  signal g\n  when g@0 >= 1 { fill a@0 with 0 }\n}`),
    );
    const lines = good.split("\n");
    const bad = (edit: (l: string[]) => void): string[] => {
      const copy = [...lines];
      edit(copy);
      const r = parseIr(copy.join("\n"));
      expect(r.module).toBeUndefined();
      return r.errors;
    };
    expect(bad((l) => (l[0] = "; dmac ir v2"))).toEqual(["line 1: expected '; dmac ir v1'"]);
    const opLine = lines.findIndex((l) => l.startsWith("op 1 "));
    expect(bad((l) => (l[opLine] = l[opLine]!.replace("a@0", "zz@0")))).toEqual([
      `line ${opLine + 1}: unknown buffer 'zz'`,
    ]);
    expect(bad((l) => (l[opLine] = l[opLine]!.replace("guard 0", "guard 1")))[0]).toContain(
      "guard 1 is not an earlier wait op",
    );
    expect(bad((l) => (l[opLine] = l[opLine]!.replace("op 1", "op 7")))[0]).toContain(
      "expected op 1, found op 7",
    );
    expect(bad((l) => (l[opLine] = l[opLine]! + " extra"))[0]).toMatch(/expected end of line/);
    expect(bad((l) => l.splice(opLine, 0, "frobnicate 3"))[0]).toContain(
      "unknown line 'frobnicate'",
    );
    expect(bad((l) => (l[opLine - 1] = l[opLine - 1]!.replace(">=", "=>")))[0]).toContain(
      "expected a comparison",
    );
    expect(bad((l) => l.splice(1, 1))[0]).toContain("expected the 'schedule' line first");
    expect(bad((l) => l.splice(l.length - 1, 0, "deps 1 <- 0"))[0]).toContain(
      "'deps' before 'edges'",
    );
    expect(parseIr("").errors).toEqual(["line 1: expected '; dmac ir v1'"]);
  });
});
