import { describe, expect, it } from "vitest";
import { closestName, editDistance } from "../../../src/diagnostics/suggest.js";

describe("suggestions", () => {
  it("computes edit distance", () => {
    expect(editDistance("chunk", "chunck")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    // An adjacent transposition is one edit, so short names still get a suggestion.
    expect(editDistance("bfu", "buf")).toBe(1);
    expect(closestName("bfu", ["buf", "ready"])).toBe("buf");
  });
  it("suggests only plausible typos", () => {
    expect(closestName("chunck", ["buf", "chunk", "ranks"])).toBe("chunk");
    expect(closestName("all_gathr", ["all_gather", "all_gather_inplace"])).toBe("all_gather");
    expect(closestName("xyz", ["chunk"])).toBeUndefined();
    expect(closestName("Chunk", ["chunk"])).toBe("chunk");
  });
});
