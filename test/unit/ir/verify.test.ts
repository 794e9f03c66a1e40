import { describe, it, expect } from "vitest";
import { verifyModule, checkCircularWaits } from "../../../src/ir/verify.js";
import { buildIr, type IrSpec } from "./build-ir.js";

const C = 8192;
const R = 4;

function verify(spec: IrSpec) {
  const { m, file } = buildIr(spec);
  return verifyModule(m, file);
}

/** One line per (r, p) instance of a loop `for r in ranks, p in ranks where keep(r, p)`. */
function loop(
  label: string,
  keep: (r: number, p: number) => boolean,
  line: (r: number, p: number) => string,
): string[] {
  const out: string[] = [];
  for (let r = 0; r < R; r++) {
    for (let p = 0; p < R; p++)
      if (keep(r, p)) out.push(`[${label}] ${line(r, p)} | r = ${r}, p = ${p}`);
  }
  return out;
}

describe("verify: correct collectives", () => {
  it("all_gather in place and out of place", () => {
    expect(
      verify({
        ranks: R,
        buffers: { buf: C * R },
        implements: "all_gather_inplace(buf)",
        lines: loop(
          "cp",
          (r, p) => r !== p,
          (r, p) => `copy buf@${r}[${r * C} +: ${C}] -> buf@${p}[${r * C} +: ${C}]`,
        ),
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { src: C, dst: C * R },
        implements: "all_gather(src, dst)",
        lines: loop(
          "cp",
          () => true,
          (r, p) => `copy src@${r} -> dst@${p}[${r * C} +: ${C}]`,
        ),
      }),
    ).toEqual([]);
  });

  it("all_gather by broadcasts and by a ring", () => {
    const lines: string[] = [];
    for (let r = 0; r < R; r++) {
      lines.push(
        `copy buf@${r}[${r * C} +: ${C}] -> buf@${(r + 1) % R}[${r * C} +: ${C}], buf@${(r + 2) % R}[${r * C} +: ${C}]`,
      );
      lines.push(`copy buf@${r}[${r * C} +: ${C}] -> buf@${(r + 3) % R}[${r * C} +: ${C}]`);
    }
    expect(
      verify({ ranks: R, buffers: { buf: C * R }, implements: "all_gather_inplace(buf)", lines }),
    ).toEqual([]);
    const ring: string[] = [];
    for (let s = 0; s < R - 1; s++) {
      for (let r = 0; r < R; r++) {
        const c = (r - s + R) % R;
        ring.push(`copy buf@${r}[${c * C} +: ${C}] -> buf@${(r + 1) % R}[${c * C} +: ${C}]`);
      }
    }
    expect(
      verify({
        ranks: R,
        buffers: { buf: C * R },
        implements: "all_gather_inplace(buf)",
        lines: ring,
      }),
    ).toEqual([]);
  });

  it("all_to_all out of place and in place by swaps", () => {
    expect(
      verify({
        ranks: R,
        buffers: { src: C * R, dst: C * R },
        implements: "all_to_all(src, dst)",
        lines: loop(
          "cp",
          () => true,
          (r, p) => `copy src@${r}[${p * C} +: ${C}] -> dst@${p}[${r * C} +: ${C}]`,
        ),
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { buf: C * R },
        implements: "all_to_all_inplace(buf)",
        lines: loop(
          "sw",
          (r, p) => r < p,
          (r, p) => `swap buf@${r}[${p * C} +: ${C}] <-> buf@${p}[${r * C} +: ${C}]`,
        ),
      }),
    ).toEqual([]);
  });

  it("broadcast (both forms), scatter, gather, send_recv, permute", () => {
    const bc = (root: number) =>
      [0, 1, 2, 3].filter((p) => p !== root).map((p) => `copy buf@${root} -> buf@${p}`);
    expect(
      verify({ ranks: R, buffers: { buf: 4096 }, implements: "broadcast(buf, 2)", lines: bc(2) }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { src: { size: 4096, rank: 1 }, dst: 4096 },
        implements: "broadcast(src, dst, 1)",
        lines: [0, 1, 2, 3].map((p) => `copy src@1 -> dst@${p}`),
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { src: { size: C * R, rank: 0 }, dst: C },
        implements: "scatter(src, dst, 0)",
        lines: [0, 1, 2, 3].map((p) => `copy src@0[${p * C} +: ${C}] -> dst@${p}`),
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { src: C, dst: { size: C * R, rank: 3 } },
        implements: "gather(src, dst, 3)",
        lines: [0, 1, 2, 3].map((r) => `copy src@${r} -> dst@3[${r * C} +: ${C}]`),
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { a: 256, b: 256 },
        implements: "send_recv(a, b, 1, 2)",
        lines: ["copy a@1 -> b@2"],
      }),
    ).toEqual([]);
    expect(
      verify({
        ranks: R,
        buffers: { a: 256, b: 256 },
        implements: "permute(a, b, -1)",
        lines: [0, 1, 2, 3].map((r) => `copy a@${r} -> b@${(r + R - 1) % R}`),
      }),
    ).toEqual([]);
  });

  it("ensure: regions mean initial contents, bytes mean filled", () => {
    expect(
      verify({
        ranks: 2,
        buffers: { a: 64, b: 64 },
        lines: [
          "swap a@0[0 +: 32] <-> a@1[0 +: 32]",
          "fill b@1[0 +: 64] with 0xff",
          "ensure a@1[0 +: 32] == a@0[0 +: 32]",
          "ensure a@0[0 +: 32] == a@1[0 +: 32]",
          "ensure a@0[32 +: 32] == a@0[32 +: 32]",
          "ensure b@1 == 255",
        ],
      }),
    ).toEqual([]);
  });
});

describe("verify: failures name the culprit", () => {
  const allGather = (bad: (r: number, p: number) => string | undefined) =>
    verify({
      ranks: R,
      buffers: { buf: C * R },
      implements: "all_gather_inplace(buf)",
      lines: loop(
        "cp",
        (r, p) => r !== p,
        (r, p) => bad(r, p) ?? `copy buf@${r}[${r * C} +: ${C}] -> buf@${p}[${r * C} +: ${C}]`,
      ),
    });

  // The lead DMAC3020/3021 gives when one mistake explains most wrong ranges (verify.ts CAUSES).
  const WRONG_OFFSET =
    "likely cause: the right rank's bytes from the wrong offset (an offset with the wrong loop variable, e.g. `p * chunk` for `r * chunk`?) (1 of 1 wrong ranges). ";
  const NEVER_WRITTEN =
    "likely cause: ranges never written (a loop that stops short, a `where` that skips too much, or an index with the wrong loop variable that sends the copies elsewhere) (1 of 1 wrong ranges). ";

  it("a wrong source offset in an all-gather: names the range, its content and the copy", () => {
    const d = allGather((r, p) =>
      r === 1 && p === 3 ? `copy buf@1[${2 * C} +: ${C}] -> buf@3[${C} +: ${C}]` : undefined,
    );
    expect(d).toHaveLength(1);
    expect(d[0]!.code).toBe("DMAC3020");
    expect(d[0]!.span).toEqual({
      start: "implements ".length,
      end: "implements all_gather_inplace(buf)".length,
    });
    expect(d[0]!.message).toBe(
      "schedule does not implement all_gather_inplace(buf): " +
        WRONG_OFFSET +
        "buf@3[8192 +: 8192] holds buf@1[16384 +: 8192] (initial) " +
        "(written by copy at 2:6 when r = 1, p = 3) but should hold buf@1[8192 +: 8192] (initial)",
    );
    expect(d[0]!.hint).toContain("all_gather_inplace means buf@p[r*S +: S] == buf@r[r*S +: S]");
    // The related note points at the copy statement (every instance shares line 2).
    expect(d[0]!.related).toHaveLength(1);
    expect(d[0]!.related[0]!.message).toBe(
      "buf@3[8192 +: 8192] last written by this copy when r = 1, p = 3",
    );
    expect(d[0]!.related[0]!.span.start).toBe("implements all_gather_inplace(buf)\n[cp] ".length);
  });

  it("a wrong destination offset: the skipped slot was never written, the clobbered one names its writer", () => {
    // Rank 2's copy to rank 3 lands in slot 1 (overwriting rank 1's chunk) instead of slot 2.
    const d = allGather((r, p) =>
      r === 2 && p === 3 ? `copy buf@2[${2 * C} +: ${C}] -> buf@3[${C} +: ${C}]` : undefined,
    );
    expect(d[0]!.message).toBe(
      "schedule does not implement all_gather_inplace(buf): " +
        "buf@3[8192 +: 8192] holds buf@2[16384 +: 8192] (initial) (written by copy at 2:6 when r = 2, p = 3) " +
        "but should hold buf@1[8192 +: 8192] (initial); " +
        "buf@3[16384 +: 8192] holds its own initial bytes (never written) but should hold buf@2[16384 +: 8192] (initial)",
    );
  });

  it("reports at most three ranges, then how many more", () => {
    const d = allGather((r, p) =>
      p === 0 || p === 1 ? `fill buf@${p}[${r * C} +: ${C}] with 7` : undefined,
    );
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toMatch(
      /^schedule does not implement all_gather_inplace\(buf\): likely cause: bytes a `fill` wrote \(a fill over the wrong range\?\) \(6 of 6 wrong ranges\)\. buf@0\[8192 \+: 8192\] holds byte 0x07 \(written by fill at 2:6 when r = 1, p = 0\) but should hold buf@1\[8192 \+: 8192\] \(initial\); /,
    );
    expect(d[0]!.message).toMatch(/; \(3 more\)$/);
    expect(d[0]!.related).toHaveLength(3);
  });

  it("a missing peer in an all-to-all", () => {
    const d = verify({
      ranks: R,
      buffers: { src: C * R, dst: C * R },
      implements: "all_to_all(src, dst)",
      lines: loop(
        "cp",
        (r, p) => !(r === 1 && p === 2),
        (r, p) => `copy src@${r}[${p * C} +: ${C}] -> dst@${p}[${r * C} +: ${C}]`,
      ),
    });
    expect(d.map((x) => x.code)).toEqual(["DMAC3020"]);
    expect(d[0]!.message).toBe(
      "schedule does not implement all_to_all(src, dst): " +
        NEVER_WRITTEN +
        "dst@2[8192 +: 8192] holds its own initial bytes (never written) " +
        "but should hold src@1[16384 +: 8192] (initial)",
    );
    expect(d[0]!.related).toEqual([]);
  });

  it("a swap with a wrong partner", () => {
    const d = verify({
      ranks: R,
      buffers: { buf: C * R },
      implements: "all_to_all_inplace(buf)",
      lines: loop(
        "sw",
        (r, p) => r < p,
        (r, p) =>
          r === 0 && p === 1
            ? `swap buf@0[${C} +: ${C}] <-> buf@2[0 +: ${C}]`
            : `swap buf@${r}[${p * C} +: ${C}] <-> buf@${p}[${r * C} +: ${C}]`,
      ),
    });
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toBe(
      "schedule does not implement all_to_all_inplace(buf): " +
        "buf@0[8192 +: 8192] holds buf@2[0 +: 8192] (initial) (written by swap at 2:6 when r = 0, p = 1) but should hold buf@1[0 +: 8192] (initial); " +
        "buf@0[16384 +: 8192] holds buf@0[8192 +: 8192] (initial) (written by swap at 2:6 when r = 0, p = 2) but should hold buf@2[0 +: 8192] (initial); " +
        "buf@1[0 +: 8192] holds its own initial bytes (never written) but should hold buf@0[8192 +: 8192] (initial)",
    );
  });

  it("DMAC3025 when the exact run (made to name a failing ensure's writers) stops: no check of a partial state", () => {
    // 16 one-byte copies a -> b merge into one move; each whole copy b -> c then reads 1 piece
    // there but 16 in the exact run (one writer per byte): 20 pieces merged, 80 exact.
    const lines: string[] = [];
    for (let k = 0; k < 16; k++) lines.push(`copy a@0[${k} +: 1] -> b@0[${k} +: 1]`);
    for (let k = 0; k < 4; k++) lines.push("copy b@0[0 +: 16] -> c@0[0 +: 16]");
    lines.push("fill d@0[0 +: 16] with 3", "ensure c@0 == 3", "ensure d@0 == 3");
    const { m, file } = buildIr({ ranks: 1, buffers: { a: 16, b: 16, c: 16, d: 16 }, lines });
    expect(verifyModule(m, file, { maxPieces: 1000 }).map((x) => x.code)).toEqual(["DMAC3021"]);
    expect(verifyModule(m, file, { maxPieces: 40 }).map((x) => x.code)).toEqual(["DMAC3025"]);
  });

  it("DMAC3021: one diagnostic per ensure statement, naming the loop values of the failing instance", () => {
    const { m, file } = buildIr({
      ranks: 2,
      buffers: { a: 64, b: 64 },
      lines: [
        "copy a@0[0 +: 32] -> b@1[0 +: 32]",
        "fill b@1[32 +: 32] with 1",
        "[e] ensure b@1[0 +: 16] == a@0[0 +: 16] | k = 0",
        "[e] ensure b@1[16 +: 16] == a@0[32 +: 16] | k = 1",
        "ensure b@1[32 +: 32] == 0xff",
        "ensure b@0 == 3",
      ],
    });
    const d = verifyModule(m, file);
    const at = (text: string) => {
      const start = file.text.indexOf(text);
      return { start, end: start + text.length };
    };
    expect(d.map((x) => [x.code, x.span])).toEqual([
      ["DMAC3021", at("ensure b@1[0 +: 16] == a@0[0 +: 16]")], // the statement, not the annotation
      ["DMAC3021", at("ensure b@1[32 +: 32] == 0xff")],
      ["DMAC3021", at("ensure b@0 == 3")],
    ]);
    expect(d[0]!.message).toBe(
      "ensure does not hold: " +
        WRONG_OFFSET +
        "when k = 1: b@1[16 +: 16] holds a@0[16 +: 16] (initial) (written by copy at 2:1) " +
        "but should hold a@0[32 +: 16] (initial)",
    );
    expect(d[1]!.message).toBe(
      "ensure does not hold: likely cause: the wrong byte values (1 of 1 wrong ranges). " +
        "b@1[32 +: 32] holds byte 0x01 (written by fill at 3:1) but should hold byte 0xff",
    );
    expect(d[2]!.message).toBe(
      "ensure does not hold: " +
        NEVER_WRITTEN +
        "b@0[0 +: 64] holds its own initial bytes (never written) but should hold byte 0x03",
    );
  });

  it("DMAC3021 leads with a copy that read its source after an earlier copy overwrote it", () => {
    const { m, file } = buildIr({
      ranks: 1,
      buffers: { a: 32, b: 16 },
      lines: [
        "copy a@0[0 +: 16] -> a@0[16 +: 16]",
        "copy a@0[16 +: 16] -> b@0[0 +: 16]",
        "ensure b@0[0 +: 16] == a@0[16 +: 16]",
      ],
    });
    const d = verifyModule(m, file);
    expect(d.map((x) => x.code)).toEqual(["DMAC3021"]);
    expect(d[0]!.message).toMatch(
      /^ensure does not hold: likely cause: copies that read the right place after an earlier operation had overwritten it \(.*\) \(1 of 1 wrong ranges\)\. b@0\[0 \+: 16\] holds a@0\[0 \+: 16\]/,
    );
  });

  it("DMAC3022: buffers that do not fit the collective, roots outside the target", () => {
    const sized = verify({
      ranks: R,
      buffers: { src: 100, dst: 300 },
      implements: "all_gather(src, dst)",
      lines: [],
    });
    expect(sized.map((x) => x.message)).toEqual([
      "all_gather(src, dst): the size of 'dst' is 300 B but must be 4 ranks * the size of 'src' (100 B) = 400 B",
    ]);
    expect(sized[0]!.code).toBe("DMAC3022");
    const odd = verify({
      ranks: R,
      buffers: { buf: 1002 },
      implements: "all_to_all_inplace(buf)",
      lines: [],
    });
    expect(odd.map((x) => x.message)).toEqual([
      "all_to_all_inplace(buf): the size of 'buf' (1002 B) is not divisible by 4 ranks",
    ]);
    const root = verify({
      ranks: R,
      buffers: { buf: 64 },
      implements: "broadcast(buf, 9)",
      lines: [],
    });
    expect(root.map((x) => [x.code, x.message])).toEqual([
      ["DMAC3022", "broadcast(buf, 9): root 9 is outside the target (ranks 0..3)"],
    ]);
    const scatter = verify({
      ranks: R,
      buffers: { src: { size: 8192, rank: 0 }, dst: 4096 },
      implements: "scatter(src, dst, 0)",
      lines: [],
    });
    expect(scatter[0]!.message).toBe(
      "scatter(src, dst, 0): the size of 'src' is 8 KiB but must be 4 ranks * the size of 'dst' (4 KiB) = 16 KiB",
    );
  });

  it("DMAC3023: a buffer the collective needs on a rank where it is not declared", () => {
    const d = verify({
      ranks: R,
      buffers: { src: { size: 64, rank: 0 }, dst: { size: 256, rank: 0 } },
      implements: "gather(src, dst, 0)",
      lines: [],
    });
    expect(d.map((x) => [x.code, x.message])).toEqual([
      ["DMAC3023", "buffer 'src' does not exist on rank 1"],
    ]);
  });
});

describe("DMAC3018: circular waits", () => {
  const check = (lines: string[]) => {
    const { m, file } = buildIr({ ranks: 2, buffers: { a: 64 }, signals: ["x", "ready"], lines });
    return checkCircularWaits(m, file);
  };

  it("a wait on a signal only notified after it in program order", () => {
    const d = check(["when x@0 >= 1 {", "  copy a@0[0 +: 8] -> a@1[0 +: 8]", "}", "notify x@0"]);
    expect(d.map((x) => [x.code, x.message])).toEqual([
      [
        "DMAC3018",
        "circular wait: x@0 >= 1 never holds: only this schedule raises x@0, and 0 of its 1 notifies come before this wait " +
          "in program order, so it sees x@0 = 0",
      ],
    ]);
    expect(d[0]!.span!.start).toBe("// ir\n".length);
  });

  it("counts only the notifies before the wait, of the same signal and rank", () => {
    expect(
      check([
        "notify x@0",
        "when x@0 >= 1 {",
        "  copy a@0[0 +: 8] -> a@1[0 +: 8]",
        "}",
        "notify x@0",
      ]),
    ).toEqual([]);
    expect(check(["notify x@1", "when x@0 >= 1 {", "}", "notify x@0"])).toHaveLength(1);
    expect(check(["notify x@0", "when x@0 == 2 {", "}", "notify x@0"])).toHaveLength(1);
  });

  it("signals the schedule never notifies are raised by outside code", () => {
    expect(check(["when ready@0 >= 5 {", "  copy a@0[0 +: 8] -> a@1[0 +: 8]", "}"])).toEqual([]);
  });

  it("is part of verifyModule", () => {
    const { m, file } = buildIr({
      ranks: 2,
      buffers: { a: 64 },
      signals: ["x"],
      lines: ["when x@1 >= 2 {", "}", "notify x@1", "notify x@1"],
    });
    expect(verifyModule(m, file).map((x) => x.code)).toEqual(["DMAC3018"]);
  });
});
