// simulate(): the executor's entry point. Takes compiled SDMA streams + manifest (read here
// with the back end's one packet table: stream-rows.ts, backend/sdma/decode.ts) or a command
// trace, turns them into a PackedProgram (absolute addresses, every command a row of typed
// arrays: program.ts), runs it (execute.ts) and, when the IR is known, checks the
// postcondition: the final provenance of every buffer byte must equal what the reference
// semantics (ir/interp.ts runReference) gives, which covers every collective's and every
// `ensure`'s expectation at once. Reports bandwidth as AMD-DMA-Latte defines it
// (reference/mi300x-node.md section 3).

import type { Snapshot } from "../forensics/snapshot.js";
import { scanStream } from "../backend/sdma/decode.js";
import type { Manifest, ManifestMemory } from "../backend/sdma/manifest.js";
import { POLL_RETRY_FOREVER, type Packet } from "../backend/sdma/packets.js";
import type { Trace, TraceCmd } from "../backend/trace/trace.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { referenceRun } from "../ir/interp.js";
import { OP_KINDS, type IrModule } from "../ir/ir.js";
import {
  coalesce,
  firstDifference,
  readRange,
  type ProvenanceState,
  type Source,
} from "../ir/provenance.js";
import type { Target } from "../target/target.js";
import { checkBreadcrumbs } from "./breadcrumb-check.js";
import { assertNever } from "../util/assert-never.js";
import {
  execute,
  MAX_RACES,
  type ExecOptions,
  type ExecResult,
  type ExecStats,
  type Timeline,
} from "./execute.js";
import { hex } from "./memory.js";
import type { SyncTrace } from "./semantics.js";
import { readMachineModel, type MachineModel } from "./model.js";
import {
  QueueStreamCheck,
  validateManifest,
  validateManifestInputs,
  validateManifestModule,
  validateTrace,
} from "./validate-input.js";
import {
  POLL_FUNC_ROW,
  rowsOfCleanStream,
  UNMODELLED_FLAGS,
  UNMODELLED_SWAPS,
} from "./stream-rows.js";
import { pollFuncOfName } from "../target/poll.js";
import { PackedRows } from "../backend/sdma/packed-rows.js";
import { WordRegionsBuilder, type WordRegions } from "./regions.js";
import { syncWordColumns } from "./sync-words.js";
import { withSourceFrames } from "./report-frames.js";
import {
  ATOMIC,
  COPY,
  CommandWriter,
  completionColumns,
  FENCE,
  NOP,
  POLL,
  shared,
  unpackProgram,
  type Completions,
  type ListProgram,
  type PackedProgram,
  type PackedQueue,
  type SimCmd,
  type SimRegion,
} from "./program.js";
import { pushAll } from "../util/arrays.js";
import { bandwidthOf, NO_BANDWIDTH, type Bandwidth } from "./bandwidth.js";

export type { Bandwidth } from "./bandwidth.js";

export type SimInput =
  | {
      readonly manifest: Manifest;
      /** Packet streams by the manifest's file names. */
      readonly streams: ReadonlyMap<string, Uint32Array>;
      /** The IR the streams were compiled from: enables the postcondition check. */
      readonly module?: IrModule | undefined;
      /**
       * The manifest passed validateManifest on its own already (as `dmac sim DIR` reads it):
       * only what the streams and the module add is checked again (validateManifestInputs).
       */
      readonly validated?: boolean | undefined;
      /**
       * With `validated`: the module still being built, on a helper thread
       * (cli/commands/sim-helper.ts). simulate() takes it once it has built the program and
       * does not read `module` before; the checks keep their order.
       */
      readonly frontEnd?: DeferredModule | undefined;
    }
  | { readonly trace: Trace; readonly module?: IrModule | undefined };

/** An IR module that comes later, from a thread that can also run the checks (check-thread.ts). */
export interface DeferredModule {
  module(): IrModule | undefined;
  /** The checks of the run on that thread (ExecOptions.checks); undefined: here. */
  readonly checks?: ExecOptions["checks"];
  /** Called once simulate() is done with it: the thread may go. */
  release?(): void;
}

export interface SimulateOptions extends Omit<ExecOptions, "model"> {
  readonly target: Target;
  /** The input's file name for DMAC6011 reports (default manifest.json / trace.json). */
  readonly inputFile?: string | undefined;
  /** The IR whose collective sizes the bandwidth figures when the input has none (--no-verify). */
  readonly sizedBy?: IrModule | undefined;
}

export interface SimResult {
  readonly diagnostics: Diagnostic[];
  /** No errors, every queue drained, and the postcondition was checked and holds. */
  readonly verified: boolean;
  readonly postcondition: "holds" | "fails" | "unchecked";
  /**
   * What the schedule itself claims beyond its own copies (with the IR): the collective it
   * `implements` and its number of `ensure`s. The final state is checked against the reference
   * semantics either way; the summary says which promise that proves.
   */
  readonly claims?:
    { readonly collective: string | undefined; readonly ensures: number } | undefined;
  /** The run deadlocked only on waits a monotonic external-signal producer cannot meet. */
  readonly deadlockOnExternal: boolean;
  readonly stats: ExecStats;
  readonly bandwidth: Bandwidth;
  readonly timeline: Timeline | undefined;
  readonly program: PackedProgram | undefined;
  readonly model: MachineModel | undefined;
  /** With SimulateOptions.syncTrace (the fuzzers' equivalence oracle): see semantics.ts. */
  readonly syncTrace?: SyncTrace | undefined;
  /** A deadlock or the watchdog ended the run: the words a host could read (sim --snapshot). */
  readonly snapshot?: Snapshot | undefined;
}

const EMPTY_STATS: ExecStats = {
  totalUs: 0,
  hostSubmitUs: 0,
  events: 0,
  packets: 0,
  engines: [],
  links: [],
  pcie: [],
  peerBytes: 0,
  localBytes: 0,
};

export function simulate(input: SimInput, opts: SimulateOptions): SimResult {
  try {
    return simulateInput(input, opts);
  } finally {
    if ("manifest" in input) input.frontEnd?.release?.();
  }
}

/** A simulation that ran nothing: what stopped it. */
const failed = (d: Diagnostic[], model?: MachineModel): SimResult => ({
  diagnostics: d,
  verified: false,
  postcondition: "unchecked",
  deadlockOnExternal: false,
  stats: EMPTY_STATS,
  bandwidth: NO_BANDWIDTH,
  timeline: undefined,
  program: undefined,
  model,
});

function simulateInput(input: SimInput, opts: SimulateOptions): SimResult {
  const m = readMachineModel(opts.target);
  if (!m.ok) return failed([diag("DMAC5006", undefined, [opts.target.name, m.error])]);
  const model = m.model;
  // A hand-edited or corrupt document is reported before anything is built from it.
  const deferred = "manifest" in input && input.validated === true ? input.frontEnd : undefined;
  let module = deferred ? undefined : input.module;
  const invalid =
    "manifest" in input
      ? (input.validated === true ? validateManifestInputs : validateManifest)(input.manifest, {
          file: opts.inputFile,
          streams: input.streams,
          module,
        })
      : validateTrace(input.trace, { file: opts.inputFile, module });
  if (invalid) return failed([invalid], model);
  const built =
    "manifest" in input
      ? packedFromManifest(input.manifest, input.streams, opts.inputFile)
      : packedFromTrace(input.trace);
  const early =
    deferred && "manifest" in input && !("error" in built)
      ? runBeforeModule(input.manifest, built.program, deferred, model, opts)
      : undefined;
  if (early) return early;
  if (deferred && "manifest" in input) {
    // Built meanwhile; its check against the manifest still comes before the build's errors.
    module = deferred.module();
    const late = module && validateManifestModule(input.manifest, { file: opts.inputFile, module });
    if (late) return failed([late], model);
  }
  if ("error" in built) return failed([built.error], model);
  const program = module
    ? withMeaning(
        built.program,
        module,
        "manifest" in input ? input.manifest.memory : input.trace.memory,
        "manifest" in input ? input.manifest : undefined,
      )
    : built.program;
  const misfit = outsideModel(
    program,
    model,
    opts.inputFile ?? ("manifest" in input ? "manifest.json" : "trace.json"),
  );
  if (misfit) return failed([misfit], model);
  const ex = execute(program, {
    ...opts,
    model,
    checks: opts.checks ?? deferred?.checks,
    finalCheck: module && ((prov, p, where) => finalStateProblems(module!, prov, p, where)),
  });
  return resultOf(ex, program, model, module, opts);
}

/**
 * The run of a manifest whose IR is still being built on the helper thread, started before it
 * comes (its wait was ~0.07 s of the 262,144-copy all-to-all's main thread), where nothing the
 * event loop decides depends on it: the checks run on that thread, over its own copy of the IR,
 * and the manifest has no user signals (the IR says which of those are external, which the
 * producer raises: timing). The IR's check against the manifest then comes after the run; a
 * mismatch is reported alone, as it would have been before the run. Undefined: run the usual
 * way (no thread for the checks, user signals, a program the model refuses).
 */
function runBeforeModule(
  manifest: Manifest,
  built: PackedProgram,
  deferred: DeferredModule,
  model: MachineModel,
  opts: SimulateOptions,
): SimResult | undefined {
  if (manifest.memory.signals.length > 0 || opts.record === true || opts.syncTrace === true)
    return undefined;
  if (!deferred.checks || opts.checks) return undefined;
  const program: PackedProgram = { ...built, meaning: undefined };
  if (outsideModel(program, model, opts.inputFile ?? "manifest.json")) return undefined;
  // (Shared memory the checks' thread only reads: the result's meaning takes it again below.)
  const slotOwner = slotOwnersOf(manifest);
  const sink = deferred.checks(program, opts.maxRaces ?? MAX_RACES, {
    meaning: { signals: [], slotOwner },
    shape: {
      ranks: manifest.ranks,
      trigger: manifest.trigger,
      memory: { buffers: manifest.memory.buffers, signals: manifest.memory.signals },
    },
  });
  if (!sink) return undefined;
  const ex = execute(program, { ...opts, model, checks: () => sink });
  const module = deferred.module();
  const late = module && validateManifestModule(manifest, { file: opts.inputFile, module });
  if (late) return failed([late], model);
  const meant = module ? withMeaning(built, module, manifest.memory, manifest, slotOwner) : program;
  return resultOf(ex, meant, model, module, opts);
}

/** The simulation's result from the run of `program` (with `module`, the IR, when known). */
function resultOf(
  ex: ExecResult,
  program: PackedProgram,
  model: MachineModel,
  module: IrModule | undefined,
  opts: SimulateOptions,
): SimResult {
  const diagnostics = [...ex.diagnostics];
  let postcondition: SimResult["postcondition"] = "unchecked";
  if (ex.finalState) {
    pushAll(diagnostics, ex.finalState);
    postcondition = ex.finalState.length === 0 ? "holds" : "fails";
  }
  const bandwidth = bandwidthOf(
    {
      gpus: program.gpus,
      us: ex.stats.totalUs,
      peerBytes: ex.stats.peerBytes,
      localBytes: ex.stats.localBytes,
    },
    module ?? opts.sizedBy,
  );
  const errors = diagnostics.some((d) => d.severity === "error");
  return {
    // Each report that cites a queue position gets that command's statement as its span.
    diagnostics: withSourceFrames(diagnostics, program, module),
    verified: !errors && ex.completed && postcondition === "holds",
    postcondition,
    claims: module && { collective: module.collective?.name, ensures: module.ensures.length },
    deadlockOnExternal: ex.deadlockOnExternal,
    stats: ex.stats,
    bandwidth,
    timeline: ex.timeline,
    program,
    model,
    syncTrace: ex.syncTrace,
    snapshot: ex.snapshot,
  };
}

/**
 * The program with the schedule's meaning attached (semantics.ts checks the run against it). With
 * the IR known, the external signals are the ones the schedule never notifies (not "the ones no
 * queue writes": a stream that writes an external signal itself must not silence its producer),
 * and each completion slot belongs to the queue whose `completionSlots` list it.
 */
function withMeaning(
  p: PackedProgram,
  m: IrModule,
  memory: ManifestMemory,
  manifest: Manifest | undefined,
  slotOwner: Int32Array | undefined = manifest && slotOwnersOf(manifest),
): PackedProgram {
  const signals: { addr: number; signal: number; rank: number }[] = [];
  const notified = new Set<number>();
  // (The ops are read only for the signals: none, no pass over a million ops after the run.)
  const notify = OP_KINDS.notify.code;
  if (memory.signals.length > 0)
    for (let i = 0; i < m.ops.count; i++)
      if (m.ops.kind[i] === notify) notified.add(m.ops.signal[i]! * m.ranks + m.ops.sigRank[i]!);
  const external: number[] = [];
  for (const s of memory.signals) {
    signals.push({ addr: s.address, signal: s.id, rank: s.gpu });
    if (!notified.has(s.id * m.ranks + s.gpu)) external.push(s.address);
  }
  return {
    ...p,
    externalSignals: external,
    meaning: { module: m, signals, slotOwner },
  };
}

/** The queue that signals each completion slot (its `completionSlots`), -1 where none does. */
function slotOwnersOf(manifest: Manifest): Int32Array {
  const owner = shared(new Int32Array(0), manifest.memory.completionSignals.count).fill(-1);
  manifest.queues.forEach((mq, qi) => {
    const slots = mq.completionSlots;
    for (let j = 0; j < slots.length; j++) if (owner[slots[j]!] === -1) owner[slots[j]!] = qi;
  });
  return owner;
}

/** A well-formed input for a node other than the target's (more GPUs or engines than it has). */
function outsideModel(p: PackedProgram, m: MachineModel, file: string): Diagnostic | undefined {
  if (p.gpus > m.gpus)
    return diag("DMAC6011", undefined, [
      file,
      "$.ranks",
      `${p.gpus} GPUs, but target ${m.name} has ${m.gpus}`,
    ]);
  const i = p.queues.findIndex((q) => q.engine >= m.engines);
  if (i >= 0)
    return diag("DMAC6011", undefined, [
      file,
      `$.queues[${i}].engine`,
      `engine ${p.queues[i]!.engine}, but target ${m.name} has ${m.engines} per GPU`,
    ]);
  const j = p.queues.findIndex((q) => m.part.engineProblem[q.engine] !== undefined);
  if (j >= 0)
    return diag("DMAC6011", undefined, [
      file,
      `$.queues[${j}].engine`,
      `queue ${p.queues[j]!.name} ${m.part.engineProblem[p.queues[j]!.engine]!} (target ${m.name})`,
    ]);
  const h = p.regions.findIndex((r) => r.host);
  if (h >= 0 && m.pcie === undefined)
    return diag("DMAC6011", undefined, [
      file,
      "$.memory.buffers",
      `buffer ${p.regions[h]!.name} is in host memory, but target ${m.name} has no "pcie" section to model the host links`,
    ]);
  return undefined;
}

// ---- inputs -> SimProgram --------------------------------------------------------------------

/**
 * A manifest's or trace's memory map: buffers, user signals and the trigger as objects; sync words,
 * completion slots and timestamp slots as columns (regions.ts: there may be one per packet, half a
 * million sync words and a million slots on the forward program), named when a report asks.
 */
function regionsOf(
  mem: ManifestMemory,
  trigger: { address: number } | null,
  initial: number,
): {
  regions: SimRegion[];
  wordRegions: WordRegions;
  bufferSizes: number[];
  bufferNames: string[];
} {
  const regions: SimRegion[] = [];
  const bufferSizes: number[] = [];
  const bufferNames: string[] = [];
  for (const b of mem.buffers) {
    regions.push({
      kind: "buffer",
      name: b.name,
      gpu: b.gpu,
      addr: b.address,
      bytes: b.size,
      buffer: b.id,
      ...(b.host ? { host: true } : {}),
    });
    bufferSizes[b.id] = b.size;
    bufferNames[b.id] = b.name;
  }
  for (let i = 0; i < bufferSizes.length; i++) {
    bufferSizes[i] ??= 1;
    bufferNames[i] ??= `buffer${i}`;
  }
  for (const s of mem.signals)
    regions.push({
      kind: "signal",
      name: `${s.name}@${s.gpu}`,
      gpu: s.gpu,
      addr: s.address,
      bytes: 4,
    });
  if (trigger)
    regions.push({ kind: "trigger", name: "trigger", gpu: null, addr: trigger.address, bytes: 4 });
  const sync = syncWordColumns(mem.syncWords);
  const cs = mem.completionSignals;
  const ts = mem.timestampSlots;
  const tsBytes = Math.max(8, Math.min(ts.stride, 32));
  const words = new WordRegionsBuilder(sync.count + cs.count + ts.count);
  for (let k = 0; k < sync.count; k++) words.add("sync", sync.address(k), 4, sync.gpu(k));
  for (let k = 0; k < cs.count; k++)
    words.add("completion", cs.base + k * cs.stride, 8, null, initial);
  for (let k = 0; k < ts.count; k++) words.add("timestamp", ts.base + k * ts.stride, tsBytes, null);
  const wordRegions = words.finish((k) => {
    if (k >= sync.count + cs.count) return `timestamp[${k - sync.count - cs.count}]`;
    if (k >= sync.count) return `completion[${k - sync.count}]`;
    return sync.name(k);
  });
  return { regions, wordRegions, bufferSizes, bufferNames };
}

/**
 * Writes packet pk into row i as simCmdOfPacket reads it. The packets a program has by the
 * million (linear copies, FENCEs, memory polls, ATOMIC adds) go straight into the columns: a
 * SimCmd in between, read back by kind name, was a third of building the program. Anything else,
 * or any of these with a field the executor does not model, goes through simCmdOfPacket.
 */
function writePacket(w: CommandWriter, i: number, pk: Packet): void {
  switch (pk.kind) {
    case "copy_linear":
      if (unsupportedFields(pk) !== undefined) break;
      w.kind[i] = COPY;
      w.a[i] = pk.src;
      w.b[i] = pk.dst;
      w.bytes[i] = pk.bytes;
      return;
    case "fence":
      if (unsupportedFields(pk) !== undefined) break;
      w.kind[i] = FENCE;
      w.a[i] = pk.addr;
      w.value[i] = pk.data;
      return;
    case "poll_mem": {
      const func = POLL_FUNC_ROW.get(pk.func);
      if (func === undefined || unsupportedFields(pk) !== undefined) break;
      w.kind[i] = POLL;
      w.a[i] = pk.addr;
      w.b[i] = pk.mask;
      w.c[i] = pk.retryCount === POLL_RETRY_FOREVER ? -1 : pk.retryCount;
      w.bytes[i] = pk.interval;
      w.value[i] = pk.value;
      w.aux[i] = func;
      return;
    }
    case "atomic": {
      if (unsupportedFields(pk) !== undefined) break;
      const width = pk.op === "add64" ? 64 : pk.op === "add32" ? 32 : 0;
      if (width === 0) break;
      w.kind[i] = ATOMIC;
      w.a[i] = pk.addr;
      // (-1, the completion signal's add, without BigInt arithmetic.)
      w.value[i] = pk.src === ALL_ONES ? -1 : Number(BigInt.asIntN(width, pk.src));
      w.aux[i] = width;
      return;
    }
  }
  w.cmd(i, simCmdOfPacket(pk));
}

const ALL_ONES = 0xffff_ffff_ffff_ffffn;

/** ROCr's HDP flush (sdma-gfx942.md 2.10): a register poll the firmware recognises, verbatim. */
function isRocrHdpFlush(pk: Extract<Packet, { kind: "poll_reg" }>): boolean {
  return (
    pk.hdpFlush !== true &&
    pk.func === "always" &&
    pk.reg === 0 &&
    pk.reqReg === 0x80000000 &&
    pk.value === 0 &&
    pk.mask === 0 &&
    pk.interval === 0 &&
    pk.retryCount === 0
  );
}

/**
 * Fields the reference says to write as 0 (endian swap, encrypt, TMZ) or whose effect the
 * executor cannot model (a FENCE to a physical address, an ATOMIC loop, HDP flush on a memory
 * poll), set in this packet: the hardware's reading is undocumented, so it is not run (DMAC6007).
 */
function unsupportedFields(pk: Packet): string[] | undefined {
  const r = pk as unknown as Readonly<Record<string, unknown>>;
  // (The fast path: dmac's packets have none of these, so one look at each.)
  if (
    !r["encrypt"] &&
    !r["tmz"] &&
    !r["gpa"] &&
    !r["loop"] &&
    !r["hdpFlush"] &&
    !r["srcSw"] &&
    !r["dstSw"] &&
    !r["dst1Sw"] &&
    !r["dst2Sw"] &&
    !r["sw"]
  )
    return undefined;
  const out: string[] = [];
  for (const f of UNMODELLED_FLAGS) if (r[f] === true) out.push(`${f} = 1`);
  for (const f of UNMODELLED_SWAPS)
    if (typeof r[f] === "number" && r[f] !== 0) out.push(`${f} = ${r[f] as number}`);
  return out;
}

/** The executor's reading of one decoded packet (the packet table did the bit work). */
export function simCmdOfPacket(pk: Packet): SimCmd {
  if (pk.kind !== "poll_reg") {
    const bad = unsupportedFields(pk);
    if (bad !== undefined && bad.length > 0)
      return {
        kind: "bad",
        detail: `${pk.kind.toUpperCase()} with ${bad.join(", ")}: the reference says to write 0 there, and the executor does not model it`,
      };
  }
  switch (pk.kind) {
    case "nop":
    case "timestamp_set":
    case "trap": // raises an interrupt; no memory effect the executor models
      return { kind: "nop" };
    case "copy_linear":
      return { kind: "copy", src: pk.src, dst: pk.dst, bytes: pk.bytes };
    case "copy_broadcast":
      return { kind: "bcast", src: pk.src, dst: pk.dst1, dst2: pk.dst2, bytes: pk.bytes };
    case "copy_swap":
      return { kind: "swap", a: pk.a, b: pk.b, bytes: pk.bytes };
    case "constant_fill":
      if (pk.fillSize !== "byte" && pk.fillSize !== "dword")
        return { kind: "bad", detail: `CONSTANT_FILL with undocumented fill size ${pk.fillSize}` };
      if (pk.fillSize === "dword" && ((pk.data >>> 0) & 0xff) * 0x01010101 !== pk.data >>> 0)
        return {
          kind: "bad",
          detail:
            "CONSTANT_FILL of a dword pattern whose bytes differ (the executor models byte fills)",
        };
      return { kind: "fill", dst: pk.dst, bytes: pk.bytes, value: pk.data & 0xff };
    case "fence":
      return { kind: "fence", addr: pk.addr, value: pk.data };
    case "poll_mem":
      if (pk.func === "reserved7")
        return { kind: "bad", detail: "POLL_REGMEM with the reserved compare function 7" };
      return {
        kind: "poll",
        addr: pk.addr,
        func: pollFuncOfName(pk.func),
        value: pk.value,
        mask: pk.mask,
        interval: pk.interval,
        retries: pk.retryCount === POLL_RETRY_FOREVER ? undefined : pk.retryCount,
      };
    case "poll_reg":
      // ROCr's HDP flush is a register poll the firmware recognises; it has no effect the
      // executor models. Any other register poll waits on a register the executor does not have.
      if (isRocrHdpFlush(pk)) return { kind: "nop" };
      return {
        kind: "bad",
        detail: `POLL_REGMEM on register ${hex(pk.reg)}${pk.hdpFlush === true ? " with HDP flush" : ""}: register polls are not allowed in a user queue (only ROCr's HDP-flush form is accepted, as a no-op)`,
      };
    case "atomic":
      if (pk.op === "add64")
        return { kind: "atomic", addr: pk.addr, width: 64, add: Number(BigInt.asIntN(64, pk.src)) };
      if (pk.op === "add32")
        return { kind: "atomic", addr: pk.addr, width: 32, add: Number(BigInt.asIntN(32, pk.src)) };
      return {
        kind: "bad",
        detail: `ATOMIC ${pk.op} is not modelled by the executor (only add32/add64)`,
      };
    case "sem_mem_incr":
      return { kind: "atomic", addr: pk.addr, width: 64, add: 1 };
    case "timestamp_get":
    case "timestamp_get_global":
      return { kind: "timestamp", addr: pk.addr };
    case "write_linear":
      return {
        kind: "bad",
        detail: "WRITE_UNTILED is not modelled by the executor (dmac never emits it)",
      };
    case "cond_exe":
      return { kind: "bad", detail: "COND_EXE is not modelled by the executor" };
    case "indirect_buffer":
      return {
        kind: "bad",
        detail: "INDIRECT_BUFFER is not allowed in a user queue run by the executor",
      };
    default:
      return assertNever(pk, "packet");
  }
}

/** The completion signals the host waits for, with the queue that signals each (for reports). */
function completionsOf(
  mem: ManifestMemory,
  queues: readonly PackedQueue[],
  cmds: CommandWriter,
  done: number,
): Completions {
  const cs = mem.completionSignals;
  const out = completionColumns(cs.count);
  // Slot k's owner: the last queue with a FENCE/ATOMIC on slot k's 8-byte word (by index, not
  // a map keyed by address: there may be one slot per packet).
  for (let q = 0; q < queues.length; q++)
    ownSlots(q, queues[q]!.first, queues[q]!.count, cmds, cs, out.queue);
  out.done.fill(done);
  for (let k = 0; k < cs.count; k++) out.addr[k] = cs.base + k * cs.stride;
  return out;
}

/**
 * Queue q as the owner of the slots its FENCEs and ATOMICs write. (A function of its own: the
 * loop over queues, first run before V8 kept feedback for completionsOf, threw away the code it
 * compiled while in this loop.)
 */
function ownSlots(
  q: number,
  first: number,
  count: number,
  cmds: CommandWriter,
  cs: ManifestMemory["completionSignals"],
  owner: Int32Array,
): void {
  for (let i = first; i < first + count; i++)
    if (cmds.kind[i] === FENCE || cmds.kind[i] === ATOMIC) {
      // (The 8-byte word by a division by 8, exact on a double, not `%`: a million of them.)
      const word = Math.floor(cmds.a[i]! / 8) * 8;
      const k = (word - cs.base) / cs.stride;
      if (Number.isInteger(k) && k >= 0 && k < cs.count) owner[k] = q;
    }
}

function externalSignalsOf(regions: readonly SimRegion[], cmds: CommandWriter): number[] {
  const signals = regions.filter((r) => r.kind === "signal");
  if (signals.length === 0) return [];
  const addrs = new Set(signals.map((r) => r.addr));
  const written = new Set<number>();
  for (let i = 0; i < cmds.n; i++)
    if ((cmds.kind[i] === FENCE || cmds.kind[i] === ATOMIC) && addrs.has(cmds.a[i]!))
      written.add(cmds.a[i]!);
  return signals.filter((r) => !written.has(r.addr)).map((r) => r.addr);
}

/** The list form of packedFromManifest's program (tests and tools that edit commands). */
export function programFromManifest(
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  file?: string,
): { program: ListProgram } | { error: Diagnostic } {
  const r = packedFromManifest(manifest, streams, file);
  return "error" in r ? r : { program: unpackProgram(r.program) };
}

/**
 * The executor's program, straight from the packet words: one decoding pass per stream (the
 * back end's packet table, scanStream) writes each packet's command into the rows of a
 * CommandWriter and feeds the manifest's consistency check (QueueStreamCheck); no list of
 * decoded packets or command objects outlives its packet. Each row's IR ops point into one
 * shared copy of the source map's op lists.
 */
export function packedFromManifest(
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  file?: string,
): { program: PackedProgram } | { error: Diagnostic } {
  const { regions, wordRegions, bufferSizes, bufferNames } = regionsOf(
    manifest.memory,
    manifest.trigger,
    manifest.completion.initial,
  );
  // Rows for every packet up front (the manifest's packet starts, at most one per dword: only a
  // capacity; the writer grows past it): each doubling of the nine columns is ~100 MB of
  // ArrayBuffers on the forward program, and every 64 MB of them costs a full collection.
  let rows = 0;
  for (const mq of manifest.queues) {
    const dwords = streams.get(mq.file)?.length ?? 0;
    rows += mq.packetStarts !== undefined ? Math.min(mq.packetStarts.length, dwords) : dwords / 4;
  }
  const rowsOf = sourceRowsByQueue(manifest.sourceMap);
  let ops = 0; // (each source-map row: its offset, its statement, then its ops)
  for (const r of rowsOf.values()) ops += r.starts[r.length]! - 2 * r.length;
  const w = new CommandWriter(Math.ceil(rows), ops);
  const queues: PackedQueue[] = [];
  for (const [index, mq] of manifest.queues.entries()) {
    const words = streams.get(mq.file);
    if (!words)
      return {
        error: diag("DMAC5001", undefined, [
          mq.file,
          "the manifest names this packet stream but it was not given",
        ]),
      };
    const first = w.n;
    const firstOp = w.nOps;
    let check = new QueueStreamCheck(manifest, index, words);
    let opsAt = new SourceMapCursor(rowsOf.get(mq.name), w);
    const clean = rowsOfCleanStream(words, w, check, opsAt, slowRow);
    // Anything irregular: the stream again, every problem described (scanStream).
    if (!clean) {
      w.truncate(first, firstOp);
      check = new QueueStreamCheck(manifest, index, words);
      opsAt = new SourceMapCursor(rowsOf.get(mq.name), w);
      scanStream(words, (d, here) => {
        check.visit(d, here);
        // Every decoder problem at a packet's offset, joined: an undecodable dword, a truncated
        // packet, and also a decodable packet with reserved bits set, an undefined enum value or an
        // address above 2^53 (DMAC4103/4104). The hardware's reading of such a packet is not
        // documented, so the executor reports it (DMAC6007) instead of running it as if they were 0.
        if (d.packet.kind === "unknown" || here.length > 0) {
          const problem = here.length > 0 ? here.map((p) => p.detail).join("; ") : undefined;
          w.bad(
            d.offset,
            problem ?? `undecodable dword ${hex(d.packet.kind === "unknown" ? d.packet.word : 0)}`,
          );
          return;
        }
        const i = w.row(NOP, d.offset);
        writePacket(w, i, d.packet);
        opsAt.at(i, d.offset);
      });
    }
    // What the manifest says about this stream (relocations, completion writes) must hold.
    const inconsistent = check.finish(file);
    if (inconsistent) return { error: inconsistent };
    queues.push({
      name: mq.name,
      gpu: mq.gpu,
      engine: mq.engine,
      position: "byte",
      first,
      count: w.n - first,
    });
  }
  const crumbs = checkBreadcrumbs(manifest, queues, w, rowsOf);
  if (crumbs)
    return {
      error: diag("DMAC6011", undefined, [file ?? "manifest.json", crumbs.path, crumbs.detail]),
    };
  return {
    program: {
      gpus: manifest.ranks,
      queues,
      regions,
      wordRegions,
      bufferSizes,
      bufferNames,
      completions: completionsOf(manifest.memory, queues, w, manifest.completion.done),
      trigger: manifest.trigger && {
        addr: manifest.trigger.address,
        value: manifest.trigger.value,
      },
      externalSignals: externalSignalsOf(regions, w),
      locate: locator(manifest.sourceMap, rowsOf, queues),
      cmds: w.finish(),
    },
  };
}

/**
 * Each queue's source-map rows as one PackedRows: the sidecar's as they are, a JSON manifest's
 * copied (one pass). Later entries for a queue name replace earlier ones.
 */
function sourceRowsByQueue(sm: Manifest["sourceMap"]): Map<string, PackedRows> {
  const out = new Map<string, PackedRows>();
  for (const q of sm.queues) {
    const e: unknown = q.entries;
    if (e instanceof PackedRows) out.set(q.queue, e);
    else if (Array.isArray(e)) out.set(q.queue, packRows(e as readonly (readonly number[])[]));
  }
  return out;
}

function packRows(rows: readonly (readonly number[])[]): PackedRows {
  let total = 0;
  for (const r of rows) total += r.length;
  const data = new Float64Array(total);
  const starts = new Uint32Array(rows.length + 1);
  let n = 0;
  rows.forEach((r, k) => {
    for (let j = 0; j < r.length; j++) data[n++] = r[j]!;
    starts[k + 1] = n;
  });
  return new PackedRows(data, starts);
}

/**
 * The statement (`file:line:col`) of the packet at a byte offset of queue q: the last source-map
 * row at or before it. Reads the packed rows (typed arrays), so the program holds no parsed
 * rows (a million arrays on the forward program) for the collector to mark all through the run.
 */
function locator(
  sm: Manifest["sourceMap"],
  rowsOf: ReadonlyMap<string, PackedRows>,
  queues: readonly PackedQueue[],
): (q: number, at: number) => string | undefined {
  const { stmts, file } = sm;
  return (q, at) => {
    const rows = rowsOf.get(queues[q]!.name);
    if (!rows) return undefined;
    const { data, starts } = rows;
    let best = -1;
    for (let k = 0; k < rows.length; k++) if (data[starts[k]!]! <= at) best = k;
    const pos = best < 0 ? undefined : stmts[data[starts[best]! + 1]!];
    return pos ? `${file}:${pos.line}:${pos.col}` : undefined;
  };
}

/** A packet the fast reading leaves to its object: checked, then written into row i. */
function slowRow(
  w: CommandWriter,
  check: QueueStreamCheck,
  i: number,
  offset: number,
  packet: Packet,
): void {
  check.packet(offset, packet);
  writePacket(w, i, packet);
}

/**
 * Sets the IR ops of the packet at a byte offset (row i), from a queue's source-map rows
 * (`[byteOffset, stmt, op, ...]`: the packets from byteOffset to the next row implement those
 * ops; each row's ops are copied once into the writer's shared list). Offsets must be asked in
 * increasing order; rows are taken in order of their offsets (a hand-edited map need not be
 * sorted; equal offsets keep their order). A class, not a closure per queue: the stream reader
 * calls `at` for every packet, and a call site that met one closure per queue was compiled
 * again for each new one (V8 checks the function it inlined, and each queue's is another).
 */
export class SourceMapCursor {
  private readonly data: PackedRows["data"];
  private readonly starts: PackedRows["starts"];
  private readonly n: number;
  private readonly order: number[] | undefined;
  private k = -1;
  private lo = -1;
  private hi = -1;

  constructor(
    rows: PackedRows | undefined,
    private readonly w: CommandWriter,
  ) {
    this.data = rows?.data ?? new Float64Array(0);
    this.starts = rows?.starts ?? new Uint32Array(1);
    this.n = rows?.length ?? 0;
    const { data, starts, n } = this;
    const offsetOf = (r: number): number => data[starts[r]!]!;
    let sorted = true;
    for (let k = 1; k < n && sorted; k++) sorted = offsetOf(k - 1) <= offsetOf(k);
    this.order = sorted
      ? undefined
      : Array.from({ length: n }, (_, r) => r).sort((a, b) => offsetOf(a) - offsetOf(b));
  }

  at(i: number, offset: number): void {
    const { data, starts, n, order } = this;
    while (this.k + 1 < n && data[starts[order ? order[this.k + 1]! : this.k + 1]!]! <= offset) {
      this.k++;
      this.lo = -1;
    }
    if (this.k < 0) return;
    if (this.lo < 0) {
      const r = order ? order[this.k]! : this.k;
      this.lo = this.w.nOps;
      for (let j = starts[r]! + 2; j < starts[r + 1]!; j++) this.w.pushOp(data[j]!);
      this.hi = this.w.nOps;
    }
    this.w.setOps(i, this.lo, this.hi);
  }
}

function simCmdOfTrace(c: TraceCmd): SimCmd {
  switch (c.op) {
    case "copy":
      return { kind: "copy", src: c.src.addr, dst: c.dst.addr, bytes: c.bytes };
    case "bcast":
      return { kind: "bcast", src: c.src.addr, dst: c.dst.addr, dst2: c.dst2.addr, bytes: c.bytes };
    case "swap":
      return { kind: "swap", a: c.a.addr, b: c.b.addr, bytes: c.bytes };
    case "fill":
      return { kind: "fill", dst: c.dst.addr, bytes: c.bytes, value: c.value };
    case "poll":
      return {
        kind: "poll",
        addr: c.at.addr,
        func: c.func,
        value: c.value,
        mask: c.mask,
        interval: 4,
      };
    case "fence":
      return { kind: "fence", addr: c.at.addr, value: c.value };
    case "atomic":
      return { kind: "atomic", addr: c.at.addr, width: c.width, add: c.add };
    case "timestamp":
      return { kind: "timestamp", addr: c.at.addr };
    default:
      return {
        kind: "bad",
        detail: `unknown trace command ${JSON.stringify((c as { op?: unknown }).op)}`,
      };
  }
}

/** The list form of packedFromTrace's program. */
export function programFromTrace(trace: Trace): { program: ListProgram } | { error: Diagnostic } {
  const r = packedFromTrace(trace);
  return "error" in r ? r : { program: unpackProgram(r.program) };
}

export function packedFromTrace(trace: Trace): { program: PackedProgram } | { error: Diagnostic } {
  if (trace.kind !== "dmac-trace" || trace.version !== 1)
    return {
      error: diag("DMAC5004", undefined, [
        "trace",
        "not a dmac command trace (kind 'dmac-trace', version 1)",
      ]),
    };
  const { regions, wordRegions, bufferSizes, bufferNames } = regionsOf(
    trace.memory,
    trace.trigger,
    trace.completion.initial,
  );
  let total = 0;
  for (const q of trace.queues) total += q.cmds.length;
  const w = new CommandWriter(total);
  const queues: PackedQueue[] = trace.queues.map((q) => {
    const first = w.n;
    q.cmds.forEach((c, i) => {
      const row = w.row(NOP, i);
      w.cmd(row, simCmdOfTrace(c));
      if (Array.isArray(c.ops)) w.addOps(row, c.ops);
    });
    return {
      name: q.name,
      gpu: q.gpu,
      engine: q.engine,
      position: "index",
      first,
      count: w.n - first,
    };
  });
  return {
    program: {
      gpus: trace.ranks,
      queues,
      regions,
      wordRegions,
      bufferSizes,
      bufferNames,
      completions: completionsOf(trace.memory, queues, w, trace.completion.done),
      trigger: trace.trigger && { addr: trace.trigger.address, value: trace.trigger.value },
      externalSignals: externalSignalsOf(regions, w),
      cmds: w.finish(),
    },
  };
}

// ---- postcondition ---------------------------------------------------------------------------

function describeSource(m: IrModule, s: Source, len: number): string {
  switch (s.kind) {
    case "initial":
      return `${m.buffers[s.buffer]?.name ?? `buffer${s.buffer}`}@${s.rank}[${s.offset} .. ${s.offset + len})`;
    case "byte":
      return `the byte ${hex(s.value)}`;
    default:
      return assertNever(s, "source");
  }
}

/**
 * Compares the executor's final provenance of every buffer instance with the reference
 * semantics' final state; reports the first differing range of each buffer instance (DMAC6001).
 */
/**
 * The final state against the reference run: DMAC6001's argument for each buffer instance that
 * differs (execute.ts reports them). `where` names a queue position (exec-state.ts where; on
 * another thread a token stands in for it, check-log.ts).
 */
export function finalStateProblems(
  m: IrModule,
  got: ProvenanceState,
  p: PackedProgram,
  where: (q: number, at: number) => string = (q, at) => positionOf(p, q, at),
  want: ProvenanceState = referenceRun(m),
): string[] {
  const out: string[] = [];
  for (const b of m.buffers) {
    for (let rank = 0; rank < m.ranks; rank++) {
      if (b.rank !== -1 && b.rank !== rank) continue;
      // The common case, the states agree: found without making a segment. Otherwise the
      // coalesced segments of both sides name the first differing range.
      if (firstDifference(want, got, rank, b.id, b.size) < 0) continue;
      const ws = coalesce(readRange(want, rank, b.id, 0, b.size), false);
      const gs = coalesce(readRange(got, rank, b.id, 0, b.size), false);
      // Walk both segment lists in step and find the first byte where the sources differ.
      let i = 0;
      let j = 0;
      let pos = 0;
      while (pos < b.size && i < ws.length && j < gs.length) {
        const w = ws[i]!;
        const g = gs[j]!;
        const end = Math.min(w.end, g.end);
        const wsrc = shiftSource(w.source, pos - w.start);
        const gsrc = shiftSource(g.source, pos - g.start);
        if (!sameSource(wsrc, gsrc)) {
          const len = end - pos;
          const writer =
            g.writer >= 0
              ? ` (last written by ${describeWriter(p, g.writer, where)})`
              : " (never written)";
          out.push(
            `${b.name}@${rank}[${pos} .. ${end}) holds ${describeSource(m, gsrc, len)}${writer}, but the schedule means it to hold ${describeSource(m, wsrc, len)}`,
          );
          break;
        }
        pos = end;
        if (w.end === end) i++;
        if (g.end === end) j++;
      }
    }
  }
  return out;
}

function shiftSource(s: Source, d: number): Source {
  return s.kind === "initial" && d !== 0 ? { ...s, offset: s.offset + d } : s;
}

function sameSource(a: Source, b: Source): boolean {
  if (a.kind === "initial")
    return (
      b.kind === "initial" && a.rank === b.rank && a.buffer === b.buffer && a.offset === b.offset
    );
  return b.kind === "byte" && a.value === b.value;
}

function describeWriter(
  p: PackedProgram,
  cmd: number,
  where: (q: number, at: number) => string,
): string {
  for (let q = 0; q < p.queues.length; q++) {
    const queue = p.queues[q]!;
    if (cmd >= queue.first && cmd < queue.first + queue.count) return where(q, p.cmds.at[cmd]!);
  }
  return `command ${cmd}`;
}

/** A queue position as reports show it (as exec-state.ts where). */
function positionOf(p: PackedProgram, q: number, at: number): string {
  const queue = p.queues[q]!;
  const pos = queue.position === "byte" ? `+0x${at.toString(16)}` : `#${at}`;
  const src = p.locate?.(q, at);
  return `${queue.name} ${pos}${src ? ` (${src})` : ""}`;
}
