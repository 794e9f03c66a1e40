// The equivalence oracle of the executor fuzz targets: a mutated stream (or manifest) that the
// executor calls "verified" must mean what the original means. It compares the mutant's sync
// trace (src/sim/semantics.ts: every data packet as it ran, every write to a user signal or a
// completion slot, every satisfied poll of a user signal, with their vector clocks) with the
// unmutated original's and with the IR, independently of the executor's own checks:
//
//   data         the same data packets (kind, operands, bytes, fill byte), as a multiset;
//   notify       each user signal is raised by the same number of ATOMIC adds of 1, and when it
//                reaches k, every packet of every data op before the k-th `notify` in program
//                order that writes its rank is ordered before it (the word's clock covers it);
//   when         every packet of an op inside `when` is ordered after a poll of the flag that
//                saw it meet the condition;
//   completion   each slot is written once, by the queue the (mutant's) manifest gives it, after
//                every packet of every op the original's completion packet announces.
//
// Which packets implement which op comes from the ORIGINAL's source map (dmac's own output, so
// trustworthy), matched to the mutant's packets by what they do (the data key), never from the
// mutant's own source map. Requirements come from the IR, not from the original's vector clocks,
// so a harmless timing change (a poll interval) does not look like a difference.

import type { Manifest } from "../src/backend/sdma/manifest.js";
import type { IrModule } from "../src/ir/ir.js";
import type { SyncData, SyncTrace } from "../src/sim/semantics.js";

// IR op kind codes (src/ir/ir.ts OP_KINDS; only types may be imported from src/).
const K_COPY = 0;
const K_BCAST = 1;
const K_SWAP = 2;
const K_FILL = 3;
const K_NOTIFY = 5;
const CMP = ["==", "!=", "<", "<=", ">", ">="] as const;

const isData = (k: number): boolean =>
  k === K_COPY || k === K_BCAST || k === K_SWAP || k === K_FILL;

export const dataKey = (d: SyncData): string =>
  `${d.kind}|${d.operands.map((o) => o.join(":")).join(",")}|${d.bytes}|${d.value}`;

function holds(cmp: string, v: number, ref: number): boolean {
  switch (cmp) {
    case "==":
      return v === ref;
    case "!=":
      return v !== ref;
    case "<":
      return v < ref;
    case "<=":
      return v <= ref;
    case ">":
      return v > ref;
    default:
      return v >= ref;
  }
}

/** The reasons the mutant is not equivalent to the original (empty: equivalent). */
export function nonEquivalence(
  m: IrModule,
  manifest: Manifest,
  orig: SyncTrace,
  mut: SyncTrace,
  mutManifest: Manifest = manifest,
): string[] {
  const out: string[] = [];
  const t = m.ops;
  const n = t.count;

  // 1. The same data packets.
  const count = new Map<string, number>();
  for (const d of orig.data) count.set(dataKey(d), (count.get(dataKey(d)) ?? 0) + 1);
  for (const d of mut.data) count.set(dataKey(d), (count.get(dataKey(d)) ?? 0) - 1);
  for (const [k, c] of count)
    if (c !== 0) {
      out.push(`data packet ${k} runs ${c > 0 ? "fewer" : "more"} times than in the original`);
      return out;
    }

  // Which ops each data key implements (the original's source map), and the reverse.
  const opsOfKey = new Map<string, Set<number>>();
  const keysOfOp = new Map<number, Set<string>>();
  for (const d of orig.data) {
    const k = dataKey(d);
    for (const o of d.ops ?? []) {
      if (!(o >= 0 && o < n && isData(t.kind[o]!))) continue;
      let s = opsOfKey.get(k);
      if (!s) opsOfKey.set(k, (s = new Set()));
      s.add(o);
      let r = keysOfOp.get(o);
      if (!r) keysOfOp.set(o, (r = new Set()));
      r.add(k);
    }
  }
  const mutByKey = new Map<string, SyncData[]>();
  for (const d of mut.data) {
    const k = dataKey(d);
    let l = mutByKey.get(k);
    if (!l) mutByKey.set(k, (l = []));
    l.push(d);
  }
  /** The mutant's packets of op o that a clock does not cover. */
  const notBefore = (o: number, vc: readonly number[]): SyncData | undefined => {
    for (const k of keysOfOp.get(o) ?? [])
      for (const d of mutByKey.get(k) ?? []) if ((vc[d.queue] ?? 0) < d.clock) return d;
    return undefined;
  };
  const where = (d: SyncData): string => `queue ${d.queue} at ${d.at} (${d.kind})`;

  // 2. Notifies: count, kind of write, and what each value announces.
  const sigOfAddr = new Map(manifest.memory.signals.map((s) => [s.address, s]));
  const signalWrites = (tr: SyncTrace): Map<number, typeof tr.writes> => {
    const w = new Map<number, typeof tr.writes>();
    for (const x of tr.writes) {
      if (x.region !== "signal") continue;
      let l = w.get(x.addr);
      if (!l) w.set(x.addr, (l = []));
      l.push(x);
    }
    return w;
  };
  const ow = signalWrites(orig);
  const mw = signalWrites(mut);
  for (const addr of new Set([...ow.keys(), ...mw.keys()])) {
    const a = ow.get(addr) ?? [];
    const b = mw.get(addr) ?? [];
    const sig = sigOfAddr.get(addr);
    const name = sig ? `${sig.name}@${sig.gpu}` : `signal ${addr}`;
    if (a.length !== b.length || b.some((x) => !x.add || x.operand !== 1)) {
      out.push(`${name}: ${b.length} write(s), the original has ${a.length} (ATOMIC add 1 each)`);
      continue;
    }
    if (!sig) continue;
    const notifies: number[] = [];
    for (let o = 0; o < n; o++)
      if (t.kind[o] === K_NOTIFY && t.signal[o] === sig.id && t.sigRank[o] === sig.gpu)
        notifies.push(o);
    const r = sig.gpu;
    b.forEach((x, k) => {
      const to = notifies[k];
      if (to === undefined) return;
      for (let o = 0; o < to; o++) {
        if (!isData(t.kind[o]!)) continue;
        const writes =
          t.dstRank[o] === r ||
          (t.kind[o] === K_BCAST && t.dst2Rank[o] === r) ||
          (t.kind[o] === K_SWAP && t.srcRank[o] === r);
        if (!writes) continue;
        const late = notBefore(o, x.vc);
        if (late) {
          out.push(`${name} reaches ${k + 1} before ${where(late)} (op ${o}) it announces`);
          return;
        }
      }
    });
  }

  // 3. Guards: each packet of a guarded op follows a poll that saw the flag meet the condition.
  const addrOfSig = new Map(manifest.memory.signals.map((s) => [`${s.id}:${s.gpu}`, s.address]));
  for (const d of mut.data) {
    for (const o of opsOfKey.get(dataKey(d)) ?? []) {
      for (let w = t.guard[o]!; w >= 0 && w < n; w = t.guard[w]!) {
        const addr = addrOfSig.get(`${t.signal[w]}:${t.sigRank[w]}`);
        const cmp = CMP[t.cmp[w]!] ?? "==";
        const ok = mut.observations.some(
          (ob) =>
            ob.addr === addr &&
            holds(cmp, ob.value, t.value[w]!) &&
            (ob.queue === d.queue ? ob.clock < d.clock : (d.vc[ob.queue] ?? 0) >= ob.clock),
        );
        if (!ok) {
          out.push(
            `${where(d)} (op ${o}) runs without a poll that saw its \`when\` (op ${w}) hold`,
          );
          break;
        }
      }
    }
  }

  // 4. Completion slots: once each, by the original's queue, after what the original announces.
  const slots = (tr: SyncTrace): Map<number, typeof tr.writes> => {
    const s = new Map<number, typeof tr.writes>();
    for (const x of tr.writes) {
      if (x.region !== "completion") continue;
      let l = s.get(x.addr);
      if (!l) s.set(x.addr, (l = []));
      l.push(x);
    }
    return s;
  };
  const os = slots(orig);
  const ms = slots(mut);
  const cs = mutManifest.memory.completionSignals;
  const owner = new Map<number, number>();
  mutManifest.queues.forEach((q, i) =>
    q.completionSlots.forEach((k) => owner.set(cs.base + k * cs.stride, i)),
  );
  for (const addr of new Set([...os.keys(), ...ms.keys()])) {
    const a = os.get(addr) ?? [];
    const b = ms.get(addr) ?? [];
    if (a.length !== 1 || b.length !== 1) {
      out.push(`completion slot ${addr}: written ${b.length} time(s), the original ${a.length}`);
      continue;
    }
    const own = owner.get(addr) ?? a[0]!.queue;
    if (b[0]!.queue !== own) {
      out.push(`completion slot ${addr}: written by queue ${b[0]!.queue}, not its owner ${own}`);
      continue;
    }
    for (const o of a[0]!.ops ?? []) {
      if (!(o >= 0 && o < n && isData(t.kind[o]!))) continue;
      const late = notBefore(o, b[0]!.vc);
      if (late) {
        out.push(`completion slot ${addr} is written before ${where(late)} (op ${o})`);
        break;
      }
    }
  }
  return out;
}
