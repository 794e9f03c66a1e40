// formatJsonBytes writes the same text as formatJson (the manifest and trace are written with the
// byte version; goldens were made with the string one).

import { describe, expect, it } from "vitest";
import { formatJson, formatJsonBytes } from "../../../../src/backend/sdma/manifest.js";
import { PackedRowsBuilder } from "../../../../src/backend/sdma/packed-rows.js";

const utf8 = (b: Uint8Array): string => Buffer.from(b).toString("utf8");

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
});
