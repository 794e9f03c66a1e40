// formatJsonBytes writes the same text as formatJson (the manifest and trace are written with the
// byte version; goldens were made with the string one).

import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileToQueues } from "../../../../src/driver/compile.js";
import { emitSdma } from "../../../../src/backend/sdma/emit.js";
import { layoutProgram } from "../../../../src/backend/sdma/layout.js";
import {
  buildManifest,
  buildPackedManifest,
  formatJsonBytes,
  writeJson,
} from "../../../../src/backend/sdma/manifest.js";
import { TextSink } from "../../../../src/backend/sdma/disasm.js";
import { makeSourceFile } from "../../../../src/source/source-file.js";
import { PackedRows, PackedRowsBuilder } from "../../../../src/backend/sdma/packed-rows.js";
import { SyncWordRows } from "../../../../src/backend/sdma/sync-word-rows.js";
import { NULL_GPU } from "../../../../src/backend/sdma/manifest-sidecar.js";

const utf8 = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

// The reference: the straightforward string formatter the byte writer replaced (the goldens were
// made with it). Kept here only as the oracle the byte writer must match.
/**
 * Deterministic, diff-friendly JSON: objects one key per line in insertion order (builders above
 * fix the order), arrays of scalars on one line, arrays of arrays one inner array per line.
 */
function formatJson(value: unknown): string {
  // Plain loops, and a join for arrays of finite numbers (JSON.stringify of a finite number is
  // String(n), which join uses): the manifest of a 1M-operation program holds millions of
  // relocation numbers and a million source-map entries, and the generic per-element path was
  // ~10% of that compile (docs/performance.md).
  const parts: string[] = [];
  const scalar = (v: unknown): boolean => v === null || typeof v !== "object";
  const finiteNumbers = (v: readonly unknown[]): boolean => {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "number" || !Number.isFinite(x)) return false;
    }
    return true;
  };
  const write = (v: unknown, indent: string): void => {
    if (scalar(v)) {
      parts.push(JSON.stringify(v) ?? "null");
    } else if (v instanceof Float64Array) {
      parts.push(v.length === 0 ? "[]" : "[" + v.join(", ") + "]");
    } else if (v instanceof SyncWordRows) {
      write(v.toArray(), indent); // as the array of objects it stands for
    } else if (v instanceof PackedRows) {
      // As the array of arrays it stands for: one row per line.
      if (v.length === 0) parts.push("[]");
      else {
        const inner = indent + "  ";
        parts.push("[\n");
        for (let i = 0; i < v.length; i++) {
          const row = v.data.subarray(v.starts[i]!, v.starts[i + 1]!);
          parts.push(inner + "[" + row.join(", ") + "]" + (i < v.length - 1 ? ",\n" : "\n"));
        }
        parts.push(indent + "]");
      }
    } else if (Array.isArray(v)) {
      if (v.length === 0) parts.push("[]");
      else if (finiteNumbers(v)) parts.push("[" + v.join(", ") + "]");
      else if (v.every(scalar))
        parts.push("[" + v.map((x) => JSON.stringify(x) ?? "null").join(", ") + "]");
      else {
        const inner = indent + "  ";
        parts.push("[\n");
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i];
          const sep = i < v.length - 1 ? ",\n" : "\n";
          // One part per source-map entry (arrays of numbers), the common case by far.
          if (Array.isArray(x) && x.length > 0 && finiteNumbers(x))
            parts.push(inner + "[" + x.join(", ") + "]" + sep);
          else {
            parts.push(inner);
            write(x, inner);
            parts.push(sep);
          }
        }
        parts.push(indent + "]");
      }
    } else {
      const entries = Object.entries(v as Record<string, unknown>).filter(
        ([, x]) => x !== undefined,
      );
      if (entries.length === 0) {
        parts.push("{}");
        return;
      }
      const inner = indent + "  ";
      parts.push("{\n");
      for (let i = 0; i < entries.length; i++) {
        const [k, x] = entries[i]!;
        parts.push(inner + JSON.stringify(k) + ": ");
        write(x, inner);
        parts.push(i < entries.length - 1 ? ",\n" : "\n");
      }
      parts.push(indent + "}");
    }
  };
  write(value, "");
  return parts.join("") + "\n";
}

describe("formatJsonBytes", () => {
  const values: unknown[] = [
    {},
    [],
    null,
    "plain",
    { a: 1, b: undefined, c: 'é ✓ \u2028 "q" \\', d: [] },
    new Float64Array([4, 0, 4096, 2 ** 40, 0.5]),
    { entries: new Float64Array(0) },
    [0, -0, 1, -1, 0.5, 1e21, 2 ** 53, 2 ** 53 + 2, 123456789012, -7.25, 1e-7],
    [1, Number.NaN, Infinity, 2],
    [1, "two", null, true],
    [[0, 1, 2], [3, 4], [], [5, "x"], { k: [6] }],
    {
      queues: [{ name: "gpu0.sdma2", completionSlots: [0, 1, 2], relocations: [4, 0, 4096] }],
      nested: { deeper: { deepest: [[1], [2, 3]] } },
      flag: false,
    },
  ];
  for (const v of values)
    it(`same text as formatJson for ${JSON.stringify(v) ?? "undefined"}`, () => {
      expect(utf8(formatJsonBytes(v))).toBe(formatJson(v));
    });

  it("is the same after regrowing a too-small buffer", () => {
    const big = { entries: Array.from({ length: 5000 }, (_, i) => [i * 4, i % 7, i, i + 1]) };
    expect(utf8(formatJsonBytes(big, 64))).toBe(formatJson(big));
  });

  it("is the same for long lists mixing int32 and other numbers, regrown or streamed", () => {
    // More numbers than numberList's block, with a non-int32 every few (its slow path may
    // regrow or flush the buffer in the middle of a block).
    const mixed = Array.from({ length: 40_000 }, (_, i) =>
      i % 7 === 3 ? 2 ** 40 + i : i % 11 === 5 ? i + 0.25 : i % 13 === 0 ? -i : i * 977,
    );
    const doc = { list: mixed, f64: Float64Array.from(mixed) };
    expect(utf8(formatJsonBytes(doc, 64))).toBe(formatJson(doc));
    const chunks: Buffer[] = [];
    const sink = new TextSink(64, (c) => void chunks.push(Buffer.from(c)));
    writeJson(sink, doc);
    sink.end();
    expect(Buffer.concat(chunks).toString("utf8")).toBe(formatJson(doc));
  });

  it("writes PackedRows as the array of arrays it stands for", () => {
    const rows = [[0, 1, 2], [], [16, 3, 4, 5, 6], [2 ** 40, 0.5, 7]];
    for (const list of [rows, [], [[]], [[9]]]) {
      const b = new PackedRowsBuilder(1); // small: exercises regrowth
      for (const r of list) {
        b.startRow();
        for (const x of r) b.value(x);
      }
      const packed = b.done();
      expect(packed.length).toBe(list.length);
      expect([...packed]).toEqual(list);
      expect(JSON.parse(JSON.stringify(packed))).toEqual(list);
      const doc = { queue: "q", entries: packed, after: [1] };
      const plain = { queue: "q", entries: list, after: [1] };
      expect(formatJson(doc)).toBe(formatJson(plain));
      expect(utf8(formatJsonBytes(doc))).toBe(formatJson(plain));
    }
  });

  it("writes many PackedRows, and rows longer than a block, the same regrown or streamed", () => {
    // Rows of mixed numbers (numberRows' slow path moves the buffer mid-row) and one row of
    // more numbers than numberList's block.
    const rows = Array.from({ length: 3000 }, (_, r) =>
      Array.from({ length: r % 5 }, (_, k) => (k === 1 && r % 3 === 0 ? 2 ** 45 + r : r * k)),
    );
    rows.push(Array.from({ length: 20_000 }, (_, k) => (k % 9 === 0 ? k + 0.5 : k)));
    const b = new PackedRowsBuilder(1);
    for (const r of rows) {
      b.startRow();
      for (const x of r) b.value(x);
    }
    const doc = { entries: b.done() };
    const plain = formatJson({ entries: rows });
    expect(utf8(formatJsonBytes(doc, 64))).toBe(plain);
    const chunks: Buffer[] = [];
    const sink = new TextSink(64, (c) => void chunks.push(Buffer.from(c)));
    writeJson(sink, doc);
    sink.end();
    expect(Buffer.concat(chunks).toString("utf8")).toBe(plain);
  });

  it("the packed manifest is written as the plain one; buildManifest is plain JSON data", () => {
    const path = fileURLToPath(
      new URL("../../../../examples/all_gather_pcpy.dmac", import.meta.url),
    );
    const file = makeSourceFile(path, readFileSync(path, "utf8"));
    const {
      module: m,
      program: p,
      target,
    } = compileToQueues(file, {
      baseDir: fileURLToPath(new URL("../../../../examples", import.meta.url)),
    }).compiled!;
    const layout = layoutProgram(m, p, file).layout!;
    const queues = emitSdma(p, m, layout, file).queues;
    const plain = buildManifest(m, p, layout, queues, file, target.name);
    const packed = buildPackedManifest(m, p, layout, queues, file, target.name);
    expect(plain.relocations.every((r) => Array.isArray(r.entries))).toBe(true);
    expect(plain.sourceMap.queues.every((q) => q.entries.every((e) => Array.isArray(e)))).toBe(
      true,
    );
    expect(JSON.parse(JSON.stringify(plain))).toEqual(plain);
    expect(utf8(formatJsonBytes(packed))).toBe(formatJson(plain));
    expect(formatJson(packed)).toBe(formatJson(plain));
  });
});

describe("SyncWordRows", () => {
  const names = ["gpu0.sdma2", "gpu1.sdma4", 'q "odd" é'];
  const rows = (words: number[][]): SyncWordRows =>
    new SyncWordRows(Float64Array.from(words.flat()), names);
  const cases: number[][][] = [
    [],
    [[0, 0, NULL_GPU, 122045790683136, 0, 1]],
    [
      [0, 0, 3, 4096, 1, 0],
      [1, 1, NULL_GPU, 2 ** 47 + 64, 2, 0],
      [2, 2, 0, 0, 0, 0],
      [3, 0, NULL_GPU, 7, 2, 2],
    ],
  ];
  for (const words of cases)
    it(`writes ${words.length} word(s) as the array of objects they stand for, at any depth`, () => {
      const r = rows(words);
      const plain = r.toArray();
      expect(plain.map((w) => w.id)).toEqual(words.map((w) => w[0]));
      for (const doc of [
        (x: unknown) => x,
        (x: unknown) => ({ memory: { syncWords: x, after: 1 } }),
        (x: unknown) => [[1], { deep: { deeper: x } }],
      ])
        expect(utf8(formatJsonBytes(doc(r)))).toBe(formatJson(doc(plain)));
    });
});
