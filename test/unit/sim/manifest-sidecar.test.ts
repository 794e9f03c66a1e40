// The manifest's sidecar (src/backend/sdma/manifest-sidecar.ts): compile writes it; `dmac sim DIR`
// parses manifest.json with the sidecar's arrays cut out and attaches them as typed arrays, with
// the same document and the same run as without it; a stale one (manifest.json edited, its spans
// no longer its arrays) is ignored;
// a hostile one is DMAC6011 naming manifest.sidecar, exit 1, never a crash.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  readSidecar,
  SIDECAR_FILE,
  SYNC_WORD_KINDS,
  writeSidecar,
  writeSidecarTo,
  type SidecarRead,
  type SidecarSource,
} from "../../../src/backend/sdma/manifest-sidecar.js";
import { PackedRows } from "../../../src/backend/sdma/packed-rows.js";
import { SyncWordTable } from "../../../src/sim/sync-words.js";
import { validateManifest } from "../../../src/sim/validate-input.js";
import { dmac, example } from "../../helpers/cli.js";
import { mulberry32 } from "../../helpers/prng.js";

const tmp = mkdtempSync(join(tmpdir(), "dmac-sidecar-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Typed arrays and packed rows as the plain arrays manifest.json spells. */
function plain(v: unknown): unknown {
  if (v instanceof SyncWordTable) {
    const out: unknown[] = [];
    for (let k = 0; k < v.length; k++) {
      const [id, kind, gpu, address, a, b] = Array.from(
        { length: 6 },
        (_, j) => v.values[6 * k + j]!,
      );
      const common = { id, kind: SYNC_WORD_KINDS[kind!], gpu: gpu === 64 ? null : gpu, address };
      out.push(
        kind === 0
          ? { ...common, producer: v.queueNames[a!], consumer: v.queueNames[b!] }
          : { ...common, queue: v.queueNames[a!] },
      );
    }
    return out;
  }
  if (v instanceof PackedRows) return [...v].map((r) => [...r]);
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

async function compiled(name: string, ...args: string[]): Promise<string> {
  const dir = join(tmp, `${name}${args.join("")}`);
  const r = await dmac("compile", example(name), "-o", dir, ...args);
  expect(r.code, r.err).toBe(0);
  return dir;
}

function read(dir: string): { json: Buffer; side: Buffer; got: SidecarRead } {
  const json = readFileSync(join(dir, "manifest.json"));
  const side = readFileSync(join(dir, SIDECAR_FILE));
  return { json, side, got: readSidecar(json, side) };
}

describe("compile writes it, sim reads it", () => {
  it("the skeleton plus the attached arrays is manifest.json's document", async () => {
    for (const [name, args] of [
      ["all_gather_pcpy.dmac", []],
      ["gather.dmac", ["-O2"]],
      ["ring_all_gather.dmac", ["--sync", "conservative"]],
    ] as const) {
      const dir = await compiled(name, ...args);
      const { json, got } = read(dir);
      if (!("skeleton" in got)) throw new Error(`${name}: ${JSON.stringify(got)}`);
      expect(got.arrays.length, name).toBeGreaterThan(0);
      const doc: unknown = JSON.parse(got.skeleton);
      const sidecar = { file: SIDECAR_FILE, arrays: got.arrays };
      expect(validateManifest(doc, { sidecar }), name).toBeUndefined();
      expect(plain(doc), name).toEqual(JSON.parse(json.toString("utf8")));
    }
  });

  it("`dmac sim DIR` says the same with the sidecar, without it, and with a stale one", async () => {
    const dir = await compiled("ring_all_gather.dmac", "--sync", "conservative");
    const withIt = await dmac("sim", dir, "--format", "json");
    expect(withIt.code, withIt.err).toBe(0);
    // Stale: manifest.json edited after the compile (a leading space moves every span).
    const path = join(dir, "manifest.json");
    writeFileSync(path, ` ${readFileSync(path, "utf8")}`);
    expect("stale" in read(dir).got).toBe(true);
    const stale = await dmac("sim", dir, "--format", "json");
    rmSync(join(dir, SIDECAR_FILE));
    const without = await dmac("sim", dir, "--format", "json");
    expect(stale).toEqual(withIt);
    expect(without).toEqual(withIt);
  });
});

describe("a hostile sidecar is bad input", () => {
  // A manifest-like JSON text with three arrays, one of rows, one of numbers above 2^32.
  const text = '{"a": [1, 2, 3], "b": [[0, 1, 5], [8, 1]], "c": [4294967296, 7]}\n';
  const json = Buffer.from(text);
  const span = (s: string): { start: number; end: number } => {
    const start = text.indexOf(s);
    return { start, end: start + s.length };
  };
  const sources: SidecarSource[] = [
    { field: 2, index: 0, value: [1, 2, 3], ...span("[1, 2, 3]") },
    {
      field: 4,
      index: 0,
      value: new PackedRows(new Float64Array([0, 1, 5, 8, 1]), new Uint32Array([0, 3, 5])),
      ...span("[[0, 1, 5], [8, 1]]"),
    },
    { field: 1, index: 0, value: new Float64Array([2 ** 32, 7]), ...span("[4294967296, 7]") },
  ];
  const good = Buffer.from(writeSidecar(sources));
  const entry = (k: number): number => 16 + 48 * k; // (the layout in manifest-sidecar.ts)
  const edited = (edit: (b: Buffer) => void): Buffer => {
    const b = Buffer.from(good);
    edit(b);
    return b;
  };

  it("a good one reads back: the skeleton and the numbers", () => {
    const r = readSidecar(json, good);
    if (!("skeleton" in r)) throw new Error(JSON.stringify(r));
    expect(JSON.parse(r.skeleton)).toEqual({ a: [], b: [], c: [] });
    expect(r.arrays.map((a) => [a.field, Array.from(a.values)])).toEqual([
      [2, [1, 2, 3]],
      [4, [0, 1, 5, 8, 1]],
      [1, [2 ** 32, 7]],
    ]);
    expect(r.arrays[2]!.values).toBeInstanceOf(Float64Array);
    expect(Array.from(r.arrays[1]!.rowStarts!)).toEqual([0, 3, 5]);
  });

  it("arrays over several of the writer's 512 KiB chunks, odd lengths padded, read back", () => {
    // Narrow and wide numbers and rows whose payloads cross chunk boundaries at odd places.
    const narrow = Float64Array.from({ length: 200_001 }, (_, i) => (i * 7919) % 2 ** 31);
    const wide = Float64Array.from({ length: 90_001 }, (_, i) => 2 ** 40 + i);
    const data = Float64Array.from({ length: 150_003 }, (_, i) => i);
    const starts = Uint32Array.from({ length: 50_002 }, (_, r) => 3 * r);
    const arrays = [narrow, new PackedRows(data, starts), wide];
    const lists = [narrow, data, wide].map((a) => `[${Array.from(a).join(", ")}]`);
    const text = `{"a": ${lists[0]}, "b": ${lists[1]}, "c": ${lists[2]}}`;
    let at = 0;
    const big: SidecarSource[] = arrays.map((value, k) => {
      const start = text.indexOf("[", at);
      at = start + lists[k]!.length;
      return { field: ([2, 4, 1] as const)[k]!, index: 0, value, start, end: at };
    });
    const chunks: number[] = [];
    writeSidecarTo(big, (c) => void chunks.push(c.length));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.slice(0, -1).every((n) => n === 1 << 19)).toBe(true);
    const r = readSidecar(Buffer.from(text), writeSidecar(big));
    if (!("skeleton" in r)) throw new Error(JSON.stringify(r));
    expect(r.arrays.map((a) => Array.from(a.values))).toEqual(
      [narrow, data, wide].map((a) => Array.from(a)),
    );
    expect(Array.from(r.arrays[1]!.rowStarts!)).toEqual(Array.from(starts));
  });

  it("another version, or spans that are not this manifest.json's arrays: ignored (stale)", () => {
    expect(
      readSidecar(
        json,
        edited((b) => b.writeUInt32LE(99, 8)),
      ),
    ).toHaveProperty("stale");
    expect(readSidecar(Buffer.from(` ${text}`), good)).toHaveProperty("stale");
    for (const edit of [
      (b: Buffer) => b.writeDoubleLE(1e6, entry(0) + 8 + 16), // a span past the end
      (b: Buffer) => b.writeDoubleLE(0, entry(1) + 16), // spans out of order
      (b: Buffer) => b.writeDoubleLE(1, entry(0) + 16), // not a JSON array
    ])
      expect(readSidecar(json, edited(edit))).toHaveProperty("stale");
  });

  const cases: [string, (b: Buffer) => Buffer | void, string, RegExp][] = [
    ["not a sidecar", (b) => void b.write("NOTASIDE", 0, "latin1"), "header", /not a dmac/],
    ["truncated header", (b) => b.subarray(0, 12), "header", /not a dmac/],
    ["table past the end", (b) => void b.writeUInt32LE(1000, 12), "header", /ends inside/],
    ["unknown field", (b) => void b.writeUInt32LE(9, entry(0)), "entry 0", /field code 9/],
    ["element size", (b) => void b.writeUInt32LE(2, entry(0) + 8), "entry 0", /element size/],
    ["rows on a flat array", (b) => void b.writeUInt32LE(1, entry(0) + 12), "entry 0", /rows/],
    ["payload outside", (b) => void b.writeDoubleLE(1e9, entry(0) + 32), "entry 0", /payload/],
    ["payload unaligned", (b) => void b.writeDoubleLE(52, entry(0) + 40), "entry 0", /payload/],
    [
      "row starts",
      (b) => void b.writeUInt32LE(4, b.readDoubleLE(entry(1) + 40) + 8),
      "entry 1",
      /row starts/,
    ],
    [
      "short row",
      (b) => void b.writeUInt32LE(4, b.readDoubleLE(entry(1) + 40) + 4),
      "$.sourceMap.queues[0].entries[1]",
      /fewer than 2/,
    ],
    [
      "not an integer",
      (b) => void b.writeDoubleLE(0.5, b.readDoubleLE(entry(2) + 40) + 8),
      "$.relocations[0].entries[1]",
      /0.5 is not an integer/,
    ],
    [
      "above 2^53",
      (b) => void b.writeDoubleLE(2 ** 60, b.readDoubleLE(entry(2) + 40)),
      "$.relocations[0].entries[0]",
      /not an integer in \[0, 2\^53\)/,
    ],
    [
      "two arrays for one field",
      (b) => void b.writeUInt32LE(2, entry(2)),
      "entry 2",
      /second array for \$\.queues\[0\]\.packetStarts/,
    ],
  ];
  for (const [what, edit, path, detail] of cases)
    it(`${what}: ${path}`, () => {
      const b = Buffer.from(good);
      const r = readSidecar(json, edit(b) ?? b);
      expect(r).toHaveProperty("problem");
      const p = (r as { problem: { path: string; detail: string } }).problem;
      expect(p.path).toBe(path);
      expect(p.detail).toMatch(detail);
    });

  it("sync words: each one's kind, gpu and alignment, and the queues it names", async () => {
    const dir = await compiled("ring_all_gather.dmac", "--sync", "conservative");
    const side = join(dir, SIDECAR_FILE);
    const good = readFileSync(side);
    const r = readSidecar(readFileSync(join(dir, "manifest.json")), good);
    if (!("skeleton" in r)) throw new Error(JSON.stringify(r));
    const k = r.arrays.findIndex((a) => a.field === 5);
    expect(k).toBeGreaterThanOrEqual(0);
    const at = good.readDoubleLE(entry(k) + 40); // the payload: [id, kind, gpu, address, a, b]...
    const width = good.readUInt32LE(entry(k) + 8);
    const put = (b: Buffer, i: number, v: number): void =>
      void (width === 8 ? b.writeDoubleLE(v, at + 8 * i) : b.writeUInt32LE(v, at + 4 * i));
    for (const [i, v, message] of [
      [1, 7, /memory\.syncWords\[0\]: kind code 7/],
      [2, 65, /memory\.syncWords\[0\]: gpu 65/],
      [9, 6, /memory\.syncWords\[1\]: address 6 is not 4-byte aligned/],
    ] as const) {
      const b = Buffer.from(good);
      put(b, i, v);
      writeFileSync(side, b);
      const run = await dmac("sim", dir);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(message);
    }
    // A queue manifest.json does not name there: the sidecar is not manifest.json's (its text
    // differs: sidecar-match.ts) and is not used; manifest.json, intact, verifies.
    const b = Buffer.from(good);
    put(b, 10, 99);
    writeFileSync(side, b);
    const run = await dmac("sim", dir);
    expect(run.code, run.err).toBe(0);
  });

  it("random corruption: a problem, stale, or arrays that validation then judges; never a throw", async () => {
    const dir = await compiled("ring_all_gather.dmac", "--sync", "conservative");
    const json = readFileSync(join(dir, "manifest.json"));
    const good = readFileSync(join(dir, SIDECAR_FILE));
    const random = mulberry32(13);
    let reached = 0;
    for (let n = 0; n < 400; n++) {
      const b = Buffer.from(good);
      // Past the magic and the version (another version is only "stale"): the table and the
      // payloads.
      for (let k = 0; k < 1 + Math.floor(random() * 3); k++)
        b[12 + Math.floor(random() * (b.length - 12))] = Math.floor(random() * 256);
      const r = readSidecar(json, b);
      if (!("skeleton" in r)) continue;
      const doc: unknown = JSON.parse(r.skeleton);
      expect(() =>
        validateManifest(doc, { sidecar: { file: SIDECAR_FILE, arrays: r.arrays } }),
      ).not.toThrow();
      reached++;
      // And the whole run, every 8th: exit 0 or 1, never an internal error (2).
      if (n % 8 !== 0) continue;
      writeFileSync(join(dir, SIDECAR_FILE), b);
      const run = await dmac("sim", dir);
      expect([0, 1], run.err).toContain(run.code);
    }
    // (Most corruptions are caught by the reader; some get as far as validation and the run.)
    expect(reached).toBeGreaterThan(20);
  });

  it("through `dmac sim DIR`: DMAC6011 naming manifest.sidecar, exit 1", async () => {
    const dir = await compiled("gather.dmac");
    const side = join(dir, SIDECAR_FILE);
    const b = readFileSync(side);
    b.writeUInt32LE(77, entry(0));
    writeFileSync(side, b);
    const r = await dmac("sim", dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /DMAC6011\]: bad executor input .*manifest\.sidecar: entry 0: unknown field code 77/,
    );
  });

  it("an array put where manifest.json has no placeholder: DMAC6011 at its JSON path", async () => {
    const dir = await compiled("gather.dmac");
    const side = join(dir, SIDECAR_FILE);
    const b = readFileSync(side);
    // Entry 0 (queue 0's packet starts) relabelled as a queue the manifest does not have.
    expect(b.readUInt32LE(entry(0))).toBe(2);
    b.writeUInt32LE(99, entry(0) + 4);
    writeFileSync(side, b);
    const r = await dmac("sim", dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /manifest\.sidecar: \$\.queues\[99\]\.packetStarts: the sidecar gives this array/,
    );
  });
});
