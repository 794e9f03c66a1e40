// Bandwidth sharing between concurrent transfers: max-min fair rates by progressive filling.
//
// A flow loads some resources (per-direction xGMI links, a GPU's HBM) with a weight (bytes of
// resource traffic per byte of the flow: a swap puts one byte on each direction of its link, a
// local copy reads and writes HBM) and has its own cap (the engine's throughput over the bytes
// it moves per flow byte). Rates are recomputed whenever a flow starts or ends; each flow's
// remaining bytes are advanced to "now" first. Progressive filling: raise every unfrozen flow's
// rate together until a resource saturates or a flow hits its cap, freeze those flows, repeat.

export interface FlowLoad {
  readonly resource: number;
  readonly weight: number;
}

export interface Flow {
  readonly id: number;
  /** The resources it loads (mutable so that one Flow per queue can be reused for every command). */
  loads: FlowLoad[];
  /** Largest rate in bytes/us (engine cap). */
  cap: number;
  remaining: number;
  rate: number;
  /** Bumped whenever the rate changes, so that stale completion events can be ignored. */
  version: number;
}

export interface FlowSet {
  readonly capacity: Float64Array;
  /** Bytes moved through each resource by finished flows (weighted; added by the caller). */
  readonly moved: Float64Array;
  /** Current load (bytes/us) of each resource. */
  readonly load: Float64Array;
  readonly active: Flow[];
  /** Number of (active flow, load) pairs on each resource (kept by addFlow/removeFlow). */
  readonly users: Int32Array;
  last: number;
}

export function createFlowSet(capacity: Float64Array): FlowSet {
  return {
    capacity,
    moved: new Float64Array(capacity.length),
    load: new Float64Array(capacity.length),
    active: [],
    users: new Int32Array(capacity.length),
    last: 0,
  };
}

/** Makes `f` active (its rate is set by the next reshare). */
export function addFlow(fs: FlowSet, f: Flow): void {
  fs.active.push(f);
  for (const l of f.loads) fs.users[l.resource]!++;
}

/** Makes `f` inactive. */
export function removeFlow(fs: FlowSet, f: Flow): void {
  // (In place, order kept: rates are summed in this order. `splice` made an array per call.)
  const a = fs.active;
  const at = a.indexOf(f);
  if (at < 0) return;
  // (copyWithin, not a loop that first runs when a flow other than the last ends: late.)
  a.copyWithin(at, at + 1);
  a.pop();
  for (const l of f.loads) fs.users[l.resource]!--;
}

/** Advances every active flow's remaining bytes to time `now`. */
export function advance(fs: FlowSet, now: number): void {
  const dt = now - fs.last;
  if (dt > 0) {
    const flows = fs.active;
    for (let i = 0; i < flows.length; i++) {
      const f = flows[i]!;
      f.remaining = Math.max(0, f.remaining - f.rate * dt);
    }
  }
  fs.last = now;
}

const EPS = 1e-12;

/** Recomputes max-min fair rates of all active flows (call after advance). */
export function reshare(fs: FlowSet): void {
  const flows = fs.active;
  const n = flows.length;
  fs.load.fill(0);
  if (n === 0) return;
  const rate = new Float64Array(n);
  const frozen = new Uint8Array(n);
  const used = new Float64Array(fs.capacity.length);
  const weight = new Float64Array(fs.capacity.length);
  let left = n;
  let level = 0;
  while (left > 0) {
    weight.fill(0);
    for (let i = 0; i < n; i++) {
      if (frozen[i]) continue;
      for (const l of flows[i]!.loads) weight[l.resource]! += l.weight;
    }
    // The largest common increment before some resource saturates or some flow hits its cap.
    let inc = Infinity;
    for (let r = 0; r < weight.length; r++) {
      const w = weight[r]!;
      if (w > 0) inc = Math.min(inc, (fs.capacity[r]! - used[r]!) / w);
    }
    for (let i = 0; i < n; i++) if (!frozen[i]) inc = Math.min(inc, flows[i]!.cap - level);
    inc = Math.max(0, inc);
    level += inc;
    for (let r = 0; r < weight.length; r++) used[r]! += inc * weight[r]!;
    let froze = 0;
    for (let i = 0; i < n; i++) {
      if (frozen[i]) continue;
      rate[i] = level;
      let stop = level >= flows[i]!.cap - EPS * Math.max(1, level);
      if (!stop) {
        for (const l of flows[i]!.loads) {
          const c = fs.capacity[l.resource]!;
          if (used[l.resource]! >= c - EPS * Math.max(1, c)) {
            stop = true;
            break;
          }
        }
      }
      if (stop) {
        frozen[i] = 1;
        froze++;
      }
    }
    left -= froze;
    if (froze === 0) break; // cannot happen with finite caps; guards against float stalls
  }
  for (let i = 0; i < n; i++) {
    const f = flows[i]!;
    if (f.rate !== rate[i]) {
      f.rate = rate[i]!;
      f.version++;
    }
    for (const l of f.loads) fs.load[l.resource]! += f.rate * l.weight;
  }
}

/** Time at which flow `f` finishes at its current rate. */
export function finishTime(fs: FlowSet, f: Flow): number {
  return f.rate > 0 ? fs.last + f.remaining / f.rate : Infinity;
}

/**
 * Max-min fair shares are independent between flows that share no resource. When flow `f` (just
 * added or just removed) shares no resource with any other active flow, only its own rate is
 * affected: set it directly (added) or drop its load (removed) instead of a full reshare.
 * Returns false when a full reshare is needed.
 */
export function reshareAlone(fs: FlowSet, f: Flow, added: boolean): boolean {
  // Another flow shares a resource with f iff the resource has more users than f's own loads on
  // it (f is counted in `users` when active, i.e. when just added, not when just removed).
  const loads = f.loads;
  for (let i = 0; i < loads.length; i++) {
    const r = loads[i]!.resource;
    let own = 0;
    if (added) for (const m of loads) if (m.resource === r) own++;
    if (fs.users[r]! !== own) return false;
  }
  if (!added) {
    for (const l of f.loads) fs.load[l.resource] = 0;
    return true;
  }
  let rate = f.cap;
  for (const l of f.loads) rate = Math.min(rate, fs.capacity[l.resource]! / l.weight);
  if (f.rate !== rate) {
    f.rate = rate;
    f.version++;
  }
  for (const l of f.loads) fs.load[l.resource] = rate * l.weight;
  return true;
}
