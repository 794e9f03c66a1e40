// The data commands of each IR op (sim/op-commands.ts): the one-command-per-op column and the
// general index give every op the same commands, in row order, on random row tables.

import { describe, expect, it } from "vitest";
import { commandsOfOps, hasCommands, type OpCommands } from "../../../src/sim/op-commands.js";
import { ATOMIC, COPY, FENCE, FILL, type Commands } from "../../../src/sim/program.js";
import { OP_KINDS } from "../../../src/ir/ir.js";

/** Op o's commands as a list, from either shape. */
function listOf(x: OpCommands, o: number): number[] {
  if (x.one) return x.one[o]! > 0 ? [x.one[o]! - 1] : [];
  return Array.from(x.cmd!.subarray(x.start![o]!, x.start![o + 1]!));
}

/** Rows of the kinds given, each naming the ops listed (an empty list: no source map entry). */
function rows(kinds: number[], lists: (number[] | undefined)[]): Commands {
  const ops: number[] = [];
  const lo: number[] = [];
  const hi: number[] = [];
  for (const l of lists) {
    lo.push(l ? ops.length : -1);
    if (l) ops.push(...l);
    hi.push(l ? ops.length : -1);
  }
  return {
    n: kinds.length,
    kind: Uint8Array.from(kinds),
    opsLo: Int32Array.from(lo),
    opsHi: Int32Array.from(hi),
    ops: Int32Array.from(ops),
  } as unknown as Commands;
}

describe("commands of each op", () => {
  const opKind = Uint8Array.from([
    OP_KINDS.copy.code,
    OP_KINDS.notify.code,
    OP_KINDS.fill.code,
    OP_KINDS.copy.code,
  ]);

  it("one command each: the column; the completion rows and non-data ops left out", () => {
    const x = commandsOfOps(
      rows([COPY, ATOMIC, FILL, FENCE, COPY], [[0], [0, 2], [2, 1], [1], [3, 9, -1]]),
      4,
      opKind,
    );
    expect(x.one).toBeDefined();
    expect([0, 1, 2, 3].map((o) => listOf(x, o))).toEqual([[0], [], [2], [4]]);
    expect([0, 1, 2, 3].map((o) => hasCommands(x, o))).toEqual([true, false, true, true]);
  });

  it("an op split over commands, or named twice: the general index, in row order", () => {
    const x = commandsOfOps(rows([COPY, COPY, FILL, COPY], [[3], [0, 3], [2], [3]]), 4, opKind);
    expect(x.one).toBeUndefined();
    expect([0, 1, 2, 3].map((o) => listOf(x, o))).toEqual([[1], [], [2], [0, 1, 3]]);
  });

  it("random tables: both shapes agree with a direct count", () => {
    let a = 7;
    const rand = (k: number) => ((a = (a * 1103515245 + 12345) >>> 0) >>> 8) % k;
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + rand(12);
      const kinds = Uint8Array.from({ length: n }, () =>
        rand(4) === 0 ? OP_KINDS.notify.code : OP_KINDS.copy.code,
      );
      const count = rand(20);
      const k: number[] = [];
      const lists: (number[] | undefined)[] = [];
      for (let r = 0; r < count; r++) {
        k.push([COPY, FILL, ATOMIC][rand(3)]!);
        lists.push(
          rand(8) === 0 ? undefined : Array.from({ length: rand(3) }, () => rand(n + 2) - 1),
        );
      }
      const x = commandsOfOps(rows(k, lists), n, kinds);
      for (let o = 0; o < n; o++) {
        const want: number[] = [];
        if (kinds[o] === OP_KINDS.copy.code)
          lists.forEach((l, r) => {
            if (k[r] !== ATOMIC) for (const op of l ?? []) if (op === o) want.push(r);
          });
        expect(listOf(x, o)).toEqual(want);
        expect(hasCommands(x, o)).toBe(want.length > 0);
      }
    }
  });
});
