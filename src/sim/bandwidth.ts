// The bandwidth figures of a run, both ways people quote them.
//
// nccl-tests (the default, what rccl-tests and most papers print; its doc/PERFORMANCE.md and the
// per-collective *GetBw functions of src/*.cu): algbw = S / t, with S the collective's size in
// nccl-tests' convention, and busbw = algbw x a factor per collective that makes busbw the
// bandwidth each rank's busiest link direction sees, comparable across collectives and rank
// counts: all-gather, all-to-all, gather and scatter (n-1)/n (S is the whole gathered / scattered
// buffer, n blocks), broadcast and send/recv 1 (S is the buffer). `permute` (each rank sends its
// buffer to one peer) is nccl-tests' sendrecv test: factor 1. In-place forms size as out of place.
//
// AMD-DMA-Latte (reference mi300x-node.md section 3), under its own names: with `total` the
// per-GPU collective size (the executor takes the bytes that crossed xGMI links over N - 1),
// dmaLatteAlgbw = (N-1)/N x total / t and dmaLatteBusbw = total / (N x t): its algbw is
// nccl-tests' busbw for an all-gather or all-to-all, and its busbw 1/(N-1) of that.

import { isCollectiveName, type CollectiveName } from "../check/collectives.js";
import type { IrCollective, IrModule } from "../ir/ir.js";

interface Convention {
  /** nccl-tests' S: which argument's buffer size (per rank, as declared). */
  readonly sizeArg: number;
  readonly factor: (ranks: number) => number;
}

const exchange = (n: number): number => (n - 1) / n;
const one = (): number => 1;

/** nccl-tests' size and busbw factor per collective. */
export const NCCL_TESTS: Readonly<Record<CollectiveName, Convention>> = {
  all_gather: { sizeArg: 1, factor: exchange }, // dst: n x the block
  all_gather_inplace: { sizeArg: 0, factor: exchange },
  all_to_all: { sizeArg: 0, factor: exchange },
  all_to_all_inplace: { sizeArg: 0, factor: exchange },
  broadcast: { sizeArg: 0, factor: one },
  scatter: { sizeArg: 0, factor: exchange }, // src on the root: n x the block
  gather: { sizeArg: 1, factor: exchange }, // dst on the root: n x the block
  send_recv: { sizeArg: 0, factor: one },
  permute: { sizeArg: 0, factor: one },
};

export interface Bandwidth {
  /** The collective whose convention sized S; undefined: unknown (no IR, or no `implements`). */
  readonly collective: CollectiveName | undefined;
  /** nccl-tests' S; an unknown collective is sized as an all-gather: S = totalBytes. */
  readonly sizeBytes: number;
  /** busbw / algbw. */
  readonly busFactor: number;
  /** nccl-tests: S / time. */
  readonly algbwGBps: number;
  /** nccl-tests: algbw x busFactor. */
  readonly busbwGBps: number;
  /** DMA-Latte's "total": bytes moved between GPUs / (N - 1) (= the per-GPU buffer of AG/AA). */
  readonly totalBytes: number;
  /** DMA-Latte: (N-1)/N x total / time. */
  readonly dmaLatteAlgbwGBps: number;
  /** DMA-Latte: total / (N x time). */
  readonly dmaLatteBusbwGBps: number;
}

/**
 * The figures mean something: the run has a collective to size by, or bytes crossed between GPUs.
 * A schedule of host transfers only has neither: its algbw and busbw are n/a (null in JSON).
 */
export function bandwidthDefined(b: Bandwidth): boolean {
  return b.collective !== undefined || b.sizeBytes > 0 || b.totalBytes > 0;
}

/** A bandwidth figure as documents carry it: null where it is not defined. */
export const definedOr = (b: Bandwidth, x: number): number | null =>
  bandwidthDefined(b) ? x : null;

/** A bandwidth figure for a table: `n/a` where it is not defined (null). */
export const gbpsText = (x: number | null, digits = 2): string =>
  x === null ? "n/a" : x.toFixed(digits);

export const NO_BANDWIDTH: Bandwidth = {
  collective: undefined,
  sizeBytes: 0,
  busFactor: 0,
  algbwGBps: 0,
  busbwGBps: 0,
  totalBytes: 0,
  dmaLatteAlgbwGBps: 0,
  dmaLatteBusbwGBps: 0,
};

function sizeOf(m: IrModule, c: IrCollective, arg: number): number | undefined {
  const a = c.args[arg];
  return a?.kind === "buffer" ? m.buffers[a.id]?.size : undefined;
}

/**
 * The figures of a run of `gpus` GPUs that took `us` microseconds and moved `peerBytes` between
 * GPUs (`localBytes` within one, which sizes a single-GPU run); `module` names the collective.
 */
export function bandwidthOf(
  run: { gpus: number; us: number; peerBytes: number; localBytes: number },
  module: IrModule | undefined,
): Bandwidth {
  const N = run.gpus;
  const total = N > 1 ? run.peerBytes / (N - 1) : run.localBytes;
  const c = module?.collective;
  const known = c !== undefined && isCollectiveName(c.name) ? c.name : undefined;
  const S = known ? sizeOf(module!, c!, NCCL_TESTS[known].sizeArg) : undefined;
  const collective = S === undefined ? undefined : known;
  const sizeBytes = S ?? total;
  const busFactor =
    N > 0 ? (collective ? NCCL_TESTS[collective] : NCCL_TESTS.all_gather).factor(N) : 0;
  const per = (bytes: number): number => (run.us > 0 ? bytes / run.us / 1e3 : 0);
  return {
    collective,
    sizeBytes,
    busFactor,
    algbwGBps: per(sizeBytes),
    busbwGBps: per(sizeBytes) * busFactor,
    totalBytes: total,
    dmaLatteAlgbwGBps: N > 0 ? per(((N - 1) / N) * total) : 0,
    dmaLatteBusbwGBps: N > 0 ? per(total / N) : 0,
  };
}

/** The definitions, for `dmac sim --help` and `dmac sweep --help`. */
export const BANDWIDTH_HELP = `
Bandwidth (GB/s = 1e9 bytes/s; time = the run's total time):
  algbw, busbw        as nccl-tests defines them: algbw = size / time, with size the collective's
                      buffer in nccl-tests' convention (all-gather: the gathered buffer, n blocks;
                      all-to-all: one rank's buffer; broadcast: the buffer); busbw = algbw x
                      (n-1)/n for all-gather, all-to-all, gather, scatter and x 1 for broadcast,
                      send_recv, permute (n ranks). Compare these with nccl-tests and rccl-tests.
  DMA-Latte algbw/busbw  AMD-DMA-Latte's figures, with total = the bytes moved between GPUs /
                      (n - 1): algbw = (n-1)/n x total / time, busbw = total / (n x time).`;
