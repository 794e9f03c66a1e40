// The one size formatter and the one time formatter (src/util/format-size.ts, format-time.ts):
// their fixed rules, at the edges where a unit changes.

import { describe, expect, it } from "vitest";
import { formatSize, formatSizeExact } from "../../../src/util/format-size.js";
import { formatTime } from "../../../src/util/format-time.js";

describe("formatSize", () => {
  it.each([
    [0, "0 B"],
    [449, "449 B"],
    [1023, "1023 B"],
    [449389.7, "439 KiB"],
    [1023.6, "1.00 KiB"],
    [1024, "1 KiB"],
    [4096, "4 KiB"],
    [576 * 1024, "576 KiB"],
    [1000 * 1024, "1000 KiB"],
    [1536 * 1024, "1.50 MiB"],
    [3584 * 1024, "3.50 MiB"],
    [15.3 * 2 ** 30, "15.3 GiB"],
    [2 ** 20 - 1, "1.00 MiB"],
    [2 ** 40, "1 TiB"],
    [2 ** 60, "1024 PiB"],
    [-2048, "-2 KiB"],
  ])("%d -> %s", (n, text) => {
    expect(formatSize(n)).toBe(text);
  });

  it("never prints a fraction of a byte, nor an exponent", () => {
    for (let n = 0; n < 5000; n += 0.7) {
      const t = formatSize(n);
      expect(t).not.toMatch(/e|\.\d+ B$/);
    }
  });
});

describe("formatSizeExact", () => {
  it.each([
    [0, "0 B"],
    [16 * 2 ** 20, "16 MiB"],
    [1536 * 1024, "1536 KiB"],
    [16 * 2 ** 20 + 1, "16777217 B"],
  ])("%d -> %s", (n, text) => {
    expect(formatSizeExact(n)).toBe(text);
  });
});

describe("formatTime", () => {
  it.each([
    [0, "0.00 µs"],
    [0.25, "0.25 µs"],
    [12.344, "12.34 µs"],
    [999.99, "999.99 µs"],
    [999.996, "1.000 ms"],
    [1234.5, "1.234 ms"],
    [999_999.6, "1.000 s"],
    [30_120_000, "30.120 s"],
    [-1.5, "-1.50 µs"],
  ])("%d us -> %s", (us, text) => {
    expect(formatTime(us)).toBe(text);
  });
});
