// util/arrays.ts: grown (the typed-array doubling the provenance rows share).

import { describe, expect, it } from "vitest";
import { grown } from "../../../src/util/arrays.js";

describe("grown", () => {
  it("keeps the kind and the elements, zero after them", () => {
    const a = Int32Array.of(-1, 2, 3);
    const b = grown(a, 6);
    expect(b).toBeInstanceOf(Int32Array);
    expect([...b]).toEqual([-1, 2, 3, 0, 0, 0]);
    expect(b).not.toBe(a);
    const f = grown(Float64Array.of(0.5), 2);
    expect(f).toBeInstanceOf(Float64Array);
    expect([...f]).toEqual([0.5, 0]);
  });
});
