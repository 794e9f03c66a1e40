// What each collective that `implements` can name means (the table of names and signatures is
// check/collectives.ts): `expected(m, args)` gives the postcondition as data, pairs {dst, src}
// meaning "at the end, dst holds what src held at the start", byte for byte. Before that it
// checks that the buffers fit the collective (sizes, existence on the ranks involved, ranks in
// range) and returns a problem instead, which verify (ir/verify.ts) reports as DMAC3022 / DMAC3023.

import { isCollectiveName, type CollectiveName } from "../check/collectives.js";
import { formatSizeExact } from "../util/format-size.js";
import { InternalError } from "../util/internal-error.js";
import type { IrBuffer, IrCollective, IrModule, IrRegion } from "./ir.js";

/** At the end of the schedule, `dst` holds the bytes `src` held at the start. */
export interface ExpectedPair {
  readonly dst: IrRegion;
  readonly src: IrRegion;
}

export type CollectiveProblem =
  /** DMAC3022: sizes that do not fit, a root or rank argument outside the target. */
  | { readonly kind: "size"; readonly detail: string }
  /** DMAC3023: a buffer declared `on RANK` that the collective needs on another rank. */
  | { readonly kind: "missing"; readonly buffer: string; readonly rank: number };

export type ExpectedResult =
  | { readonly kind: "ok"; readonly pairs: readonly ExpectedPair[] }
  | { readonly kind: "problem"; readonly problem: CollectiveProblem };

/** Reads the arguments of an `implements` clause (already type-checked against `signatures`). */
function argReader(m: IrModule, args: IrCollective["args"]) {
  return {
    buffer(k: number): IrBuffer {
      const a = args[k];
      if (a?.kind !== "buffer") throw new InternalError(`collective argument ${k} is not a buffer`);
      const b = m.buffers[a.id];
      if (b === undefined) throw new InternalError(`collective argument ${k}: no buffer ${a.id}`);
      return b;
    },
    int(k: number): number {
      const a = args[k];
      if (a?.kind !== "int") throw new InternalError(`collective argument ${k} is not an int`);
      return a.value;
    },
  };
}

const ok = (pairs: ExpectedPair[]): ExpectedResult => ({ kind: "ok", pairs });
const sizeProblem = (detail: string): ExpectedResult => ({
  kind: "problem",
  problem: { kind: "size", detail },
});

/** A buffer needed on `rank` but declared only on another one. */
function missingOn(b: IrBuffer, rank: number): ExpectedResult | undefined {
  if (b.rank === -1 || b.rank === rank) return undefined;
  return { kind: "problem", problem: { kind: "missing", buffer: b.name, rank } };
}

function missingOnAny(b: IrBuffer, ranks: number): ExpectedResult | undefined {
  for (let p = 0; p < ranks; p++) {
    const miss = missingOn(b, p);
    if (miss !== undefined) return miss;
  }
  return undefined;
}

function rankOutOfRange(what: string, v: number, ranks: number): ExpectedResult | undefined {
  if (Number.isInteger(v) && v >= 0 && v < ranks) return undefined;
  return sizeProblem(`${what} ${v} is outside the target (ranks 0..${ranks - 1})`);
}

function notDivisible(b: IrBuffer, ranks: number): ExpectedResult | undefined {
  if (b.size % ranks === 0) return undefined;
  return sizeProblem(
    `the size of '${b.name}' (${formatSizeExact(b.size)}) is not divisible by ${ranks} ranks`,
  );
}

function sizeIs(b: IrBuffer, want: number, why: string): ExpectedResult | undefined {
  if (b.size === want) return undefined;
  return sizeProblem(
    `the size of '${b.name}' is ${formatSizeExact(b.size)} but must be ${why} = ${formatSizeExact(want)}`,
  );
}

const region = (b: IrBuffer, rank: number, offset: number, len: number): IrRegion => ({
  rank,
  buffer: b.id,
  offset,
  len,
});

/**
 * The exchange shared by the all-gather and all-to-all families: every rank p receives, at block r
 * of `dst` (offset r*S), block `srcBlock(p, r)` of `src` on rank r (blocks of S bytes).
 */
function exchange(
  ranks: number,
  dst: IrBuffer,
  src: IrBuffer,
  S: number,
  srcBlock: (p: number, r: number) => number,
): ExpectedResult {
  const pairs: ExpectedPair[] = [];
  for (let p = 0; p < ranks; p++) {
    for (let r = 0; r < ranks; r++)
      pairs.push({ dst: region(dst, p, r * S, S), src: region(src, r, srcBlock(p, r) * S, S) });
  }
  return ok(pairs);
}

/** The in-place variants: one buffer on every rank, split into one block per rank. */
function exchangeInPlace(
  m: IrModule,
  args: IrCollective["args"],
  srcBlock: (p: number, r: number) => number,
): ExpectedResult {
  const b = argReader(m, args).buffer(0);
  const bad = missingOnAny(b, m.ranks) ?? notDivisible(b, m.ranks);
  if (bad !== undefined) return bad;
  return exchange(m.ranks, b, b, b.size / m.ranks, srcBlock);
}

function allGather(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const S = src.size;
  const bad =
    missingOnAny(src, m.ranks) ??
    missingOnAny(dst, m.ranks) ??
    sizeIs(
      dst,
      m.ranks * S,
      `${m.ranks} ranks * the size of '${src.name}' (${formatSizeExact(S)})`,
    );
  if (bad !== undefined) return bad;
  return exchange(m.ranks, dst, src, S, () => 0);
}

function allGatherInplace(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  return exchangeInPlace(m, args, (_p, r) => r);
}

function allToAll(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const bad =
    missingOnAny(src, m.ranks) ??
    missingOnAny(dst, m.ranks) ??
    notDivisible(src, m.ranks) ??
    sizeIs(dst, src.size, `the size of '${src.name}'`);
  if (bad !== undefined) return bad;
  return exchange(m.ranks, dst, src, src.size / m.ranks, (p) => p);
}

function allToAllInplace(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  return exchangeInPlace(m, args, (p) => p);
}

function broadcast(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const inPlace = args.length === 2;
  const src = a.buffer(0);
  const dst = inPlace ? src : a.buffer(1);
  const root = a.int(inPlace ? 1 : 2);
  const bad =
    rankOutOfRange("root", root, m.ranks) ??
    missingOn(src, root) ??
    missingOnAny(dst, m.ranks) ??
    sizeIs(dst, src.size, `the size of '${src.name}'`);
  if (bad !== undefined) return bad;
  const pairs: ExpectedPair[] = [];
  for (let p = 0; p < m.ranks; p++) {
    pairs.push({ dst: region(dst, p, 0, dst.size), src: region(src, root, 0, src.size) });
  }
  return ok(pairs);
}

function scatter(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const root = a.int(2);
  const S = dst.size;
  const bad =
    rankOutOfRange("root", root, m.ranks) ??
    missingOn(src, root) ??
    missingOnAny(dst, m.ranks) ??
    sizeIs(
      src,
      m.ranks * S,
      `${m.ranks} ranks * the size of '${dst.name}' (${formatSizeExact(S)})`,
    );
  if (bad !== undefined) return bad;
  const pairs: ExpectedPair[] = [];
  for (let p = 0; p < m.ranks; p++)
    pairs.push({ dst: region(dst, p, 0, S), src: region(src, root, p * S, S) });
  return ok(pairs);
}

function gather(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const root = a.int(2);
  const S = src.size;
  const bad =
    rankOutOfRange("root", root, m.ranks) ??
    missingOnAny(src, m.ranks) ??
    missingOn(dst, root) ??
    sizeIs(
      dst,
      m.ranks * S,
      `${m.ranks} ranks * the size of '${src.name}' (${formatSizeExact(S)})`,
    );
  if (bad !== undefined) return bad;
  const pairs: ExpectedPair[] = [];
  for (let r = 0; r < m.ranks; r++)
    pairs.push({ dst: region(dst, root, r * S, S), src: region(src, r, 0, S) });
  return ok(pairs);
}

function sendRecv(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const from = a.int(2);
  const to = a.int(3);
  const bad =
    rankOutOfRange("from", from, m.ranks) ??
    rankOutOfRange("to", to, m.ranks) ??
    missingOn(src, from) ??
    missingOn(dst, to) ??
    sizeIs(dst, src.size, `the size of '${src.name}'`);
  if (bad !== undefined) return bad;
  return ok([{ dst: region(dst, to, 0, dst.size), src: region(src, from, 0, src.size) }]);
}

function permute(m: IrModule, args: IrCollective["args"]): ExpectedResult {
  const a = argReader(m, args);
  const src = a.buffer(0);
  const dst = a.buffer(1);
  const shift = a.int(2);
  const bad =
    missingOnAny(src, m.ranks) ??
    missingOnAny(dst, m.ranks) ??
    sizeIs(dst, src.size, `the size of '${src.name}'`);
  if (bad !== undefined) return bad;
  const pairs: ExpectedPair[] = [];
  for (let r = 0; r < m.ranks; r++) {
    const p = (((r + shift) % m.ranks) + m.ranks) % m.ranks;
    pairs.push({ dst: region(dst, p, 0, dst.size), src: region(src, r, 0, src.size) });
  }
  return ok(pairs);
}

/** What each collective means: its postcondition as data (the checker has its signatures). */
const EXPECTED: {
  readonly [K in CollectiveName]: (m: IrModule, args: IrCollective["args"]) => ExpectedResult;
} = {
  all_gather: allGather,
  all_gather_inplace: allGatherInplace,
  all_to_all: allToAll,
  all_to_all_inplace: allToAllInplace,
  broadcast: broadcast,
  scatter: scatter,
  gather: gather,
  send_recv: sendRecv,
  permute: permute,
};

/** The postcondition of an `implements` clause as data, or why its buffers do not fit. */
export function expectedOf(m: IrModule, c: IrCollective): ExpectedResult {
  if (!isCollectiveName(c.name))
    throw new InternalError(`unknown collective '${c.name}' after checking`);
  return EXPECTED[c.name](m, c.args);
}
