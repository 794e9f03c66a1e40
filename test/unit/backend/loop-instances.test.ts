// Issue 30, item 8: every artefact says which loop instance a packet belongs to. The listings
// (dump.txt; `dmac disasm` from the manifest's source map, which records the loop values) print
// `; LINE [s=1 r=0]: TEXT` above each instance's packets, a batched packet's ranges as `k=0..3`;
// the Chrome trace's command and wait slices carry `instance`. Before, the packets of every
// iteration of a ring's copy sat under one source line and the trace named only the statement.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeInstances, type OpBindings } from "../../../src/ir/instances.js";
import { example, runCli } from "../../helpers/cli.js";

const root = mkdtempSync(join(tmpdir(), "dmac-instances-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ring = join(root, "ring");

beforeAll(async () => {
  const src = relative(process.cwd(), example("ring_all_gather.dmac"));
  const r = await runCli(["compile", src, "-o", ring, "-O1", "--dump"]);
  expect(r.code, r.err).toBe(0);
});

/** One statement (0) with variables k and r; op i has the values rows[i]; op 99 is another's. */
function table(rows: readonly (readonly [number, number])[]): OpBindings {
  return {
    vars: (stmt) => (stmt === 0 ? ["k", "r"] : []),
    stmtOf: (op) => (op === 99 ? 1 : op < rows.length ? 0 : -1),
    value: (op, k) => rows[op]![k]!,
  };
}

describe("describeInstances", () => {
  it("one op: each variable's value", () => {
    expect(describeInstances(table([[3, 1]]), 0, [0])).toBe("k=3 r=1");
  });
  it("a batch: runs, short lists, progressions, anything else with its count", () => {
    const run = table([0, 1, 2, 3].map((k) => [k, 5] as const));
    expect(describeInstances(run, 0, [3, 1, 0, 2])).toBe("k=0..3 r=5");
    expect(
      describeInstances(
        table([
          [0, 0],
          [2, 0],
          [5, 0],
        ]),
        0,
        [0, 1, 2],
      ),
    ).toBe("k=0,2,5 r=0");
    const even = table(Array.from({ length: 50 }, (_, i) => [2 * i, 0] as const));
    expect(describeInstances(even, 0, [...Array(50).keys()])).toBe("k=0,2,...,98 r=0");
    const odd = table([0, 1, 5, 7, 98].map((k) => [k, 0] as const));
    expect(describeInstances(odd, 0, [0, 1, 2, 3, 4])).toBe("k=0..98 (5 values) r=0");
  });
  it("ops of other statements (ordered by the packet, not implemented by it) are left out", () => {
    expect(describeInstances(table([[1, 2]]), 0, [0, 99])).toBe("k=1 r=2");
    expect(describeInstances(table([[1, 2]]), 0, [99])).toBe("");
    expect(describeInstances(table([]), 1, [99])).toBe("");
  });
});

describe("listings name the loop instance", () => {
  it("dump.txt: every iteration of the ring's copy has its own line, the completion the range", () => {
    const dump = readFileSync(join(ring, "dump.txt"), "utf8");
    const from = dump.indexOf("# queue gpu0.");
    const queue = dump.slice(from, dump.indexOf("\n\n", from));
    const lines = queue.split("\n").filter((l) => l.startsWith("; 10"));
    expect(lines.map((l) => /\[([^\]]*)\]/.exec(l)?.[1])).toEqual([
      ...[0, 1, 2, 3, 4, 5, 6].map((s) => `s=${s} r=0`),
      "s=0..6 r=0",
    ]);
    expect(lines[0]).toBe(
      "; 10 [s=0 r=0]: copy buf@r[c * chunk +: chunk] -> buf@((r + 1) % ranks)[c * chunk +: chunk]",
    );
  });

  it("disasm reads the instances from the manifest, the same lines as dump.txt", async () => {
    const manifest = JSON.parse(readFileSync(join(ring, "manifest.json"), "utf8"));
    expect(manifest.sourceMap.stmts[0].vars).toEqual(["s", "r"]);
    const r = await runCli(["disasm", join(ring, "gpu0.sdma14.bin")]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("; 10 [s=3 r=0]: copy ");
    const dump = readFileSync(join(ring, "dump.txt"), "utf8");
    expect(dump).toContain(r.out.slice(r.out.indexOf("; 10 ")).trimEnd());
    const json = await runCli(["disasm", join(ring, "gpu0.sdma14.bin"), "--json"]);
    const doc = JSON.parse(json.out) as { packets: { source?: { instance?: string } }[] };
    expect(doc.packets[0]!.source?.instance).toBe("s=0 r=0");
  });

  it("a manifest that records no loop values (written before they were): lines without them", async () => {
    const old = join(root, "old");
    const r0 = await runCli(["compile", example("ring_all_gather.dmac"), "-o", old]);
    expect(r0.code, r0.err).toBe(0);
    const m = JSON.parse(readFileSync(join(old, "manifest.json"), "utf8"));
    delete m.sourceMap.ops;
    writeFileSync(join(old, "manifest.json"), JSON.stringify(m));
    const r = await runCli(["disasm", join(old, "gpu0.sdma14.bin")]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^; 10: copy /m);
    expect(r.out).not.toMatch(/^; 10 \[/m);
  });
});

describe("the Chrome trace names the loop instance", () => {
  it("every command slice of the ring's copies carries `instance`", async () => {
    const file = join(root, "ring.trace.json");
    const r = await runCli(["sim", ring, "--trace", file]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(readFileSync(file, "utf8")) as {
      traceEvents: { ph: string; cat?: string; args?: Record<string, unknown> }[];
    };
    const copies = doc.traceEvents.filter(
      (e) => e.ph === "X" && e.cat === "engine" && e.args?.["packet"] === "COPY_LINEAR",
    );
    expect(copies.length).toBe(56);
    const seen = new Set(copies.map((e) => e.args?.["instance"]));
    // 7 steps x 8 ranks: each copy its own instance.
    expect(seen.size).toBe(56);
    expect(seen).toContain("s=6 r=7");
  });
});
