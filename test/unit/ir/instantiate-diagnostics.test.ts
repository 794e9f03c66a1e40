// Every diagnostic instantiation reports, from a source snippet: code, message, where it points,
// and the loop values of the failing instance.

import { describe, expect, it } from "vitest";
import { errs, inst } from "./instantiate-helpers.js";

/** A schedule with `body`, a 4 KiB buffer `a` on every rank and one `s` on rank 2. */
function sched(body: string, params = ""): string {
  return `schedule t(${params}) {\n  buffer a: 4KiB\n  buffer s: 1KiB on 2\n  signal go on 1\n  signal any\n${body}\n}\n`;
}

/** The single error: code, message, and the source text it points at. */
function one(
  body: string,
  params = "",
): { code: string; message: string; at: string; hint?: string } {
  const text = sched(body, params);
  const d = errs(text);
  expect(d, d.map((x) => `${x.code} ${x.message}`).join("\n")).toHaveLength(1);
  const x = d[0]!;
  return {
    code: x.code,
    message: x.message,
    at: text.slice(x.span!.start, x.span!.end),
    ...(x.hint !== undefined ? { hint: x.hint } : {}),
  };
}

describe("instantiate diagnostics", () => {
  it("DMAC3001 region out of bounds, naming the loop values", () => {
    expect(
      one(
        "  for r in ranks, p in 0..2 where p != r { copy a@r[r * 512B +: 1KiB] -> a@p[0B +: 1KiB] }",
      ),
    ).toEqual({
      code: "DMAC3001",
      message:
        "region a@7[3584 +: 1024] is outside the buffer (size 4096 bytes) when r = 7, p = 0 (and 1 more instance)",
      at: "a@r[r * 512B +: 1KiB]",
    });
    expect(one("  copy a@0[1KiB .. 5KiB] -> a@1[0B .. 4KiB]").message).toBe(
      "region a@0[1024 .. 5120] is outside the buffer (size 4096 bytes)",
    );
  });

  it("DMAC3002 length mismatch (copy, broadcast, swap, ensure)", () => {
    expect(one("  copy a@0[0B +: 1KiB] -> a@1[0B +: 2KiB]")).toEqual({
      code: "DMAC3002",
      message: "source is 1024 bytes but destination is 2048 bytes",
      at: "a@1[0B +: 2KiB]",
    });
    expect(one("  copy a@0[0B +: 1KiB] -> a@1[0B +: 1KiB], a@2").code).toBe("DMAC3002");
    expect(one("  swap a@0[0B +: 1KiB] <-> a@1").code).toBe("DMAC3002");
    expect(one("  ensure a@0 == s@2").code).toBe("DMAC3002");
  });

  it("DMAC3003 rank outside the target, for regions, by, signals and buffer on", () => {
    expect(one("  for r in ranks { copy a@r -> a@(r + 1) }")).toEqual({
      code: "DMAC3003",
      message: "rank 8 is outside the target (ranks 0..7) when r = 7",
      at: "(r + 1)",
    });
    expect(one("  copy a@0 -> a@1 by 9").at).toBe("9");
    expect(one("  notify any@(0 - 1)").message).toBe("rank -1 is outside the target (ranks 0..7)");
    const d = errs("schedule t() {\n  buffer b: 1KiB on 8\n  fill b@0 with 0\n}");
    expect(d.map((x) => x.code)).toEqual(["DMAC3003"]);
    const e = errs("schedule t() {\n  signal g on 12\n  notify g@0\n}");
    expect(e.map((x) => x.code)).toEqual(["DMAC3003"]);
  });

  it("DMAC3004 engine that does not exist", () => {
    expect(one("  copy a@0 -> a@1 on sdma(16)")).toMatchObject({
      code: "DMAC3004",
      message: "engine sdma(16) does not exist (the target has engines 0..15)",
      at: "on sdma(16)",
    });
  });

  it("DMAC3005 PCIe engine driving a GPU<->GPU transfer", () => {
    const x = one("  for p in 1..3 { copy a@0 -> a@p on sdma(1) }");
    expect(x.code).toBe("DMAC3005");
    expect(x.message).toBe(
      "engine sdma(1) is a host<->GPU (PCIe) engine and cannot drive a transfer between GPUs 0, 1 when p = 1 (and 1 more instance)",
    );
    expect(x.hint).toContain("xGMI engines 2, 3");
    // A fill driven by another GPU is a peer transfer too.
    expect(one("  fill a@3 with 0 by 4 on sdma(0)").code).toBe("DMAC3005");
  });

  it("DMAC3006 bytes division with a remainder", () => {
    expect(one("  fill a@0[0B +: 1000B / n] with 0", "n: int = 3")).toEqual({
      code: "DMAC3006",
      message: "1000 bytes is not divisible by 3",
      at: "1000B / n",
    });
    expect(one("  for i in 0..m / 3B { }", "m: bytes = 1000B").message).toBe(
      "1000 bytes is not divisible by 3 bytes",
    );
  });

  it("DMAC3007 zero-length copy, swap and fill", () => {
    expect(one("  for k in 0..2 { copy a@0[0B +: k * 8B] -> a@1[0B +: k * 8B] }")).toEqual({
      code: "DMAC3007",
      message: "copy moves zero bytes when k = 0",
      at: "a@0[0B +: k * 8B]",
    });
    expect(one("  swap a@0[8B .. 8B] <-> a@1[8B .. 8B]").message).toBe("swap moves zero bytes");
    expect(one("  fill a@0[8B .. 8B] with 1").message).toBe("fill moves zero bytes");
  });

  it("DMAC3008 source overlapping destination (also a broadcast's second destination)", () => {
    expect(one("  copy a@0[0B +: 2KiB] -> a@0[1KiB +: 2KiB]")).toEqual({
      code: "DMAC3008",
      message: "source a@0[0 +: 2048] overlaps destination a@0[1024 +: 2048]",
      at: "a@0[1KiB +: 2KiB]",
    });
    expect(one("  copy a@0[0B +: 2KiB] -> a@1[0B +: 2KiB], a@0[2KiB - 1B +: 2KiB]").code).toBe(
      "DMAC3008",
    );
    // Same offsets on different ranks or buffers do not overlap.
    expect(
      errs(sched("  copy a@0[0B +: 1KiB] -> a@1[0B +: 1KiB]\n  copy a@2[0B +: 1KiB] -> s@2")),
    ).toEqual([]);
  });

  it("DMAC3009 swap halves overlap", () => {
    expect(one("  swap a@5[0B +: 1KiB] <-> a@5[1KiB - 8B +: 1KiB]")).toEqual({
      code: "DMAC3009",
      message: "swap halves a@5[0 +: 1024] and a@5[1016 +: 1024] overlap",
      at: "a@5[1KiB - 8B +: 1KiB]",
    });
  });

  it("DMAC3011 division by zero, pointing at the divisor", () => {
    expect(one("  for r in ranks { let q = 8 / (r - 3) }")).toEqual({
      code: "DMAC3011",
      message: "division by zero when r = 3",
      at: "(r - 3)",
    });
    expect(one("  fill a@0[0B +: 8B] with 7 % z", "z: int = 0").code).toBe("DMAC3011");
  });

  it("DMAC3012 overflow", () => {
    expect(one("  let big = n * n * n", "n: int = 1000000")).toEqual({
      code: "DMAC3012",
      message: "value exceeds 2^53 - 1",
      at: "n * n * n",
    });
  });

  it("DMAC3013 negative offsets, lengths, reversed ranges, empty buffers", () => {
    expect(one("  for r in 0..2 { copy a@0[(r - 1) * 8B +: 8B] -> a@1[0B +: 8B] }")).toEqual({
      code: "DMAC3013",
      message: "the start of a@0[-8 +: 8] must be at least 0, found -8 when r = 0",
      at: "(r - 1) * 8B",
    });
    expect(one("  fill a@0[0B +: 0B - 8B] with 0").message).toBe(
      "the length of a@0[0 +: -8] must be at least 0, found -8",
    );
    expect(one("  fill a@0[16B .. 8B] with 0")).toMatchObject({
      message: "the length of a@0[16 .. 8] must be at least 0, found -8",
      at: "[16B .. 8B]",
    });
    const d = errs("schedule t(n: bytes = 0B) {\n  buffer b: n\n  fill b@0 with 0\n}");
    expect(d.map((x) => x.message)).toEqual(["the size of buffer 'b' must be at least 1, found 0"]);
  });

  it("DMAC3014 broadcast destinations overlap", () => {
    expect(one("  copy a@0[0B +: 1KiB] -> a@1[0B +: 1KiB], a@1[512B +: 1KiB]")).toEqual({
      code: "DMAC3014",
      message: "broadcast destinations a@1[0 +: 1024] and a@1[512 +: 1024] overlap",
      at: "a@1[512B +: 1KiB]",
    });
  });

  it("DMAC3015 step must be positive", () => {
    expect(one("  for i in 0..8 step k { }", "k: int = 0")).toEqual({
      code: "DMAC3015",
      message: "loop step must be positive, found 0",
      at: "k",
    });
  });

  it("DMAC3016 fill (and ensure) values must be bytes", () => {
    expect(one("  fill a@0 with 256")).toEqual({
      code: "DMAC3016",
      message: "fill value 256 is not a byte (0..255)",
      at: "256",
    });
    expect(one("  ensure a@0 == 0 - 1").code).toBe("DMAC3016");
  });

  it("DMAC3017 waits no 32-bit signal can satisfy", () => {
    for (const cond of [">= 0x1_0000_0000", "< 0", "> 0xFFFFFFFF", "== 0 - 1", "<= 0 - 5"]) {
      const x = one(`  when go@1 ${cond} { fill a@0 with 1 }`);
      expect(x.code, cond).toBe("DMAC3017");
      expect(x.message).toContain("signals are unsigned 32-bit values");
      expect(x.at).toBe(`when go@1 ${cond}`);
    }
    for (const cond of [">= 0xFFFFFFFF", "< 1", "> 0xFFFFFFFE", "== 0", "!= 0 - 1", "<= 0"])
      expect(errs(sched(`  when go@1 ${cond} { fill a@0 with 1 }`)), cond).toEqual([]);
  });

  it("DMAC3023 region or flag on a rank where an `on RANK` buffer/signal does not exist", () => {
    expect(one("  for r in 1..3 { fill s@r with 0 }")).toEqual({
      code: "DMAC3023",
      message: "buffer 's' does not exist on rank 1 when r = 1",
      at: "r",
      hint: "'s' is declared on rank 2 only",
    });
    expect(one("  notify go@0").message).toBe("signal 'go' does not exist on rank 0");
  });

  it("reports each failing statement once per code, counting the other instances", () => {
    const d = errs(
      sched(
        "  for r in ranks, p in ranks { copy a@r[0B +: 8KiB] -> a@p[0B +: 8KiB] }\n  fill a@9 with 0",
      ),
    );
    expect(d.map((x) => x.code)).toEqual(["DMAC3001", "DMAC3003"]);
    expect(d[0]!.message).toBe(
      "region a@0[0 +: 8192] is outside the buffer (size 4096 bytes) when r = 0, p = 0 (and 63 more instances)",
    );
  });

  it("a failed let skips the rest of its block instance; the module is undefined on errors", () => {
    const r = inst(
      sched("  for r in 0..3 { let x = 8 / (r - 1)\n    fill a@9 with 0 }\n  fill a@0 with 1"),
    );
    expect(r.module).toBeUndefined();
    // r = 0 and 2 reach the bad fill; r = 1 stops at the let.
    expect(r.diagnostics.map((x) => x.code)).toEqual(["DMAC3003", "DMAC3011"]);
    expect(r.diagnostics[0]!.message).toContain("when r = 0 (and 1 more instance)");
  });
});
