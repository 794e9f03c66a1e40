// Calibration of the timing model against the single-copy latency breakdown published by
// AMD-DMA-Latte (reference/mi300x-node.md section 4): one GPU0 -> GPU1 copy, its time split into
// control (host builds the commands and writes the ring), schedule (doorbell until the engine
// starts the copy), copy (the copy packet) and sync (completion signal until the host sees it).
//
// Two things live here:
// - predictBreakdown(model): runs the real executor on that single copy (copy + ATOMIC to a host
//   completion slot, DMA-Latte's default sync) at each size and measures the four phases on its
//   timeline. The calibration test asserts every phase share is within 5 points of the table.
// - fitPhaseCosts(): the fit that produced the target's constants: the four phases as fixed
//   costs (control C, schedule D, copy start-up U, sync Y) plus bytes / link bandwidth, chosen to
//   minimise the largest share error over the table (minimax, by a shrinking grid search). The
//   table gives only shares, so one scale must be fixed: the usable link bandwidth (48 GB/s).

import { execute } from "./execute.js";
import type { MachineModel } from "./model.js";
import type { SimProgram } from "./program.js";

export type Phase = "control" | "schedule" | "copy" | "sync";
export const PHASES: readonly Phase[] = ["control", "schedule", "copy", "sync"];

/** mi300x-node.md section 4: shares in percent; sizes are 1 KB .. 64 MB doubling (binary units). */
export const MEASURED: readonly {
  readonly bytes: number;
  readonly share: Readonly<Record<Phase, number>>;
}[] = (
  [
    [5, 31, 29, 35],
    [4, 31, 29, 35],
    [5, 30, 30, 36],
    [4, 31, 30, 35],
    [4, 30, 33, 33],
    [4, 28, 36, 32],
    [4, 23, 46, 27],
    [7, 20, 51, 22],
    [3, 17, 62, 18],
    [2, 13, 72, 13],
    [1, 10, 79, 10],
    [1, 5, 89, 5],
    [1, 3, 93, 3],
    [0, 1, 97, 1],
    [0, 1, 98, 1],
    [0, 0, 99, 0],
    [0, 0, 100, 0],
  ] as const
).map(([control, schedule, copy, sync], i) => ({
  bytes: 1024 * 2 ** i,
  share: { control, schedule, copy, sync },
}));

export interface Breakdown {
  readonly bytes: number;
  /** Microseconds of each phase. */
  readonly us: Readonly<Record<Phase, number>>;
  readonly totalUs: number;
  /** Percent of the total. */
  readonly share: Readonly<Record<Phase, number>>;
  /** Model share minus measured share, percentage points. */
  readonly error: Readonly<Record<Phase, number>>;
}

const SRC = 0x1000_0000;
const DST = 0x2000_0000;
const SLOT = 0x9000_0000;

/** The single GPU0 -> GPU1 copy of the calibration run, as DMA-Latte's pcpy submits it. */
export function singleCopyProgram(gpus: number, bytes: number, engine = 14): SimProgram {
  return {
    gpus,
    queues: [
      {
        name: `gpu0.sdma${engine}`,
        gpu: 0,
        engine,
        position: "byte",
        entries: [
          { cmd: { kind: "copy", src: SRC, dst: DST, bytes }, at: 0, packets: 1 },
          { cmd: { kind: "atomic", addr: SLOT, width: 64, add: -1 }, at: 28, packets: 1 },
        ],
      },
    ],
    regions: [
      { kind: "buffer", name: "src", gpu: 0, addr: SRC, bytes, buffer: 0 },
      { kind: "buffer", name: "dst", gpu: 1, addr: DST, bytes, buffer: 1 },
      { kind: "completion", name: "completion[0]", gpu: null, addr: SLOT, bytes: 8, initial: 1 },
    ],
    bufferSizes: [bytes, bytes],
    bufferNames: ["src", "dst"],
    completions: [{ addr: SLOT, done: 0, queue: `gpu0.sdma${engine}` }],
    trigger: null,
    externalSignals: [],
  };
}

function toBreakdown(bytes: number, us: Record<Phase, number>): Breakdown {
  const totalUs = PHASES.reduce((a, ph) => a + us[ph], 0);
  const measured = MEASURED.find((m) => m.bytes === bytes)?.share;
  const share = {} as Record<Phase, number>;
  const error = {} as Record<Phase, number>;
  for (const ph of PHASES) {
    share[ph] = (100 * us[ph]) / totalUs;
    error[ph] = measured ? share[ph] - measured[ph] : 0;
  }
  return { bytes, us, totalUs, share, error };
}

/** Runs the executor on the single copy at every size of the table and splits its time into phases. */
export function predictBreakdown(
  model: MachineModel,
  sizes: readonly number[] = MEASURED.map((m) => m.bytes),
): Breakdown[] {
  return sizes.map((bytes) => {
    const r = execute(singleCopyProgram(model.gpus, bytes), { model, record: true });
    const copy = r.timeline!.spans.find((s) => s.name.startsWith("copy"));
    if (!copy || !r.completed)
      throw new Error(`calibration run of ${bytes} bytes did not complete`);
    const submit = r.stats.hostSubmitUs;
    return toBreakdown(bytes, {
      control: submit,
      schedule: copy.start - submit,
      copy: copy.end - copy.start,
      sync: r.stats.totalUs - copy.end,
    });
  });
}

/** Largest |error| over every phase and size. */
export function maxError(b: readonly Breakdown[]): number {
  let m = 0;
  for (const row of b) for (const ph of PHASES) m = Math.max(m, Math.abs(row.error[ph]));
  return m;
}

export interface PhaseFit {
  /** Fixed microseconds of each phase; the copy phase adds bytes / linkGBps. */
  readonly controlUs: number;
  readonly scheduleUs: number;
  readonly copyFixedUs: number;
  readonly syncUs: number;
  readonly linkGBps: number;
  readonly maxErrorPp: number;
}

function analytic(f: Omit<PhaseFit, "maxErrorPp">): Breakdown[] {
  return MEASURED.map((m) =>
    toBreakdown(m.bytes, {
      control: f.controlUs,
      schedule: f.scheduleUs,
      copy: f.copyFixedUs + m.bytes / (f.linkGBps * 1e3),
      sync: f.syncUs,
    }),
  );
}

/**
 * Minimax fit of the four fixed phase costs at a given link bandwidth: a grid search over a box
 * that shrinks around the best point (deterministic; about 10^5 evaluations).
 */
export function fitPhaseCosts(linkGBps = 48): PhaseFit {
  let best = [0.5, 2, 2, 2];
  let bestErr = Infinity;
  let step = 0.5;
  for (let round = 0; round < 7; round++) {
    const center = best;
    for (let a = -4; a <= 4; a++)
      for (let b = -4; b <= 4; b++)
        for (let c = -4; c <= 4; c++)
          for (let d = -4; d <= 4; d++) {
            const x = [
              center[0]! + a * step * 0.25,
              center[1]! + b * step,
              center[2]! + c * step,
              center[3]! + d * step,
            ];
            if (x.some((v) => v <= 0)) continue;
            const e = maxError(
              analytic({
                controlUs: x[0]!,
                scheduleUs: x[1]!,
                copyFixedUs: x[2]!,
                syncUs: x[3]!,
                linkGBps,
              }),
            );
            if (e < bestErr - 1e-12) {
              bestErr = e;
              best = x;
            }
          }
    step /= 3;
  }
  return {
    controlUs: best[0]!,
    scheduleUs: best[1]!,
    copyFixedUs: best[2]!,
    syncUs: best[3]!,
    linkGBps,
    maxErrorPp: bestErr,
  };
}

/** The fitted phase costs the model's constants add up to (for comparing a fit with a target). */
export function modelPhaseCosts(model: MachineModel): Omit<PhaseFit, "maxErrorPp"> {
  const t = model.timing;
  return {
    controlUs: 2 * t.hostPacketUs + t.hostDoorbellUs,
    scheduleUs: t.doorbellLatencyUs,
    copyFixedUs: t.enginePacketUs + t.copyStartupUs,
    syncUs: t.enginePacketUs + t.hostSignalLatencyUs + t.hostPollIntervalUs / 2 + t.hostSlotReadUs,
    linkGBps: Math.min(model.links.usableGBps, t.engineGBps),
  };
}
