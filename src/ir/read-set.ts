// The reads of one (rank, buffer) since the last write to their bytes, for dependency inference
// (deps.ts): a set of records [lo, hi) read by op `op`, supporting insertion, "every record
// overlapping [lo, hi)" and removal. A treap (a randomised balanced search tree, keyed by
// (lo, record id)) whose nodes also keep the largest `hi` of their subtree, so that a query visits
// only subtrees that can overlap: O(log n) per insertion and removal, O((k + 1) log n) for a query
// reporting k records. Priorities come from a fixed xorshift sequence, so the shape (and
// everything else) is deterministic.
//
// Nothing here allocates per record (a million ops insert a million records): nodes live in two
// typed arrays, one of numbers (lo, hi, subtree max hi) and one of links (left, right, op,
// priority), three and four slots per node so that a node is one or two cache lines; freed nodes
// are chained through their left link; insertion descends to the node's place and splits only the
// subtree below it; removal descends to the node and merges its children; the records a query
// takes out are copied to scratch arrays (read them with takenLo/Hi/Op until the next query).
// Records become nodes of the tree only when a query comes: until then an insertion appends its
// three numbers to a pending list, so reads that no write ever looks at (a source buffer nobody
// writes) cost three array stores each, and no node.

/** Slots per node in `num` and in `link`. */
const NUM = 3; // lo, hi, maxHi
const LINK = 4; // left, right, op, prio

export class ReadSet {
  private num = new Float64Array(64 * NUM);
  private link = new Int32Array(64 * LINK);
  private used = 0;
  private freeHead = -1;
  private root = -1;
  /** Records added since the last query, not yet in the tree: [lo, hi, op] each. */
  private pending = new Float64Array(3 * 16);
  private pendingCount = 0;
  private seed = 0x9e3779b9;
  // split() results (no tuple per call).
  private splitL = -1;
  private splitR = -1;
  // The records the last takeOverlapping took out, in (lo, id) order.
  private takeLo = new Float64Array(16);
  private takeHi = new Float64Array(16);
  private takeOp = new Int32Array(16);
  private takeNode = new Int32Array(16);
  /** Records the last takeOverlapping took out. */
  taken = 0;
  /** Records in the set. */
  size = 0;

  /** Adds the record [lo, hi) read by `op` (nothing for an empty range). */
  add(lo: number, hi: number, op: number): void {
    if (lo >= hi) return;
    const at = 3 * this.pendingCount++;
    if (at === this.pending.length) {
      const next = new Float64Array(this.pending.length * 2);
      next.set(this.pending);
      this.pending = next;
    }
    this.pending[at] = lo;
    this.pending[at + 1] = hi;
    this.pending[at + 2] = op;
    this.size++;
  }

  /**
   * Removes every record overlapping [lo, hi); they are then readable, in (lo, insertion) order,
   * as takenLo/Hi/Op(k) for k < taken, until the next call.
   */
  takeOverlapping(lo: number, hi: number): void {
    this.taken = 0;
    if (lo >= hi) return;
    // Nodes in the order of the records (their ids, which break ties of lo, keep that order).
    const p = this.pending;
    for (let k = 0; k < 3 * this.pendingCount; k += 3)
      this.root = this.insert(this.root, this.alloc(p[k]!, p[k + 1]!, p[k + 2]!));
    this.pendingCount = 0;
    if (this.root < 0) return;
    this.collect(this.root, lo, hi);
    const num = this.num;
    for (let k = 0; k < this.taken; k++) {
      const n = this.takeNode[k]!;
      this.takeLo[k] = num[n * NUM]!;
      this.takeHi[k] = num[n * NUM + 1]!;
      this.takeOp[k] = this.link[n * LINK + 2]!;
      this.root = this.remove(this.root, n);
      this.link[n * LINK] = this.freeHead;
      this.freeHead = n;
    }
    this.size -= this.taken;
  }

  takenLo(k: number): number {
    return this.takeLo[k]!;
  }
  takenHi(k: number): number {
    return this.takeHi[k]!;
  }
  takenOp(k: number): number {
    return this.takeOp[k]!;
  }

  private alloc(lo: number, hi: number, op: number): number {
    let n = this.freeHead;
    if (n >= 0) this.freeHead = this.link[n * LINK]!;
    else {
      if (this.used * NUM === this.num.length) this.grow();
      n = this.used++;
    }
    const num = this.num;
    num[n * NUM] = lo;
    num[n * NUM + 1] = hi;
    num[n * NUM + 2] = hi;
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    const link = this.link;
    link[n * LINK] = -1;
    link[n * LINK + 1] = -1;
    link[n * LINK + 2] = op;
    link[n * LINK + 3] = x; // compared as signed: any fixed total order of priorities will do
    return n;
  }

  private grow(): void {
    const num = new Float64Array(this.num.length * 2);
    num.set(this.num);
    this.num = num;
    const link = new Int32Array(this.link.length * 2);
    link.set(this.link);
    this.link = link;
  }

  /** Key order: by lo, then by node index (unique). */
  private before(a: number, lo: number, id: number): boolean {
    const x = this.num[a * NUM]!;
    return x < lo || (x === lo && a < id);
  }

  /** Recomputes the subtree max hi of node n from its children. */
  private pull(n: number): void {
    const num = this.num;
    const link = this.link;
    let m = num[n * NUM + 1]!;
    const l = link[n * LINK]!;
    const r = link[n * LINK + 1]!;
    if (l >= 0 && num[l * NUM + 2]! > m) m = num[l * NUM + 2]!;
    if (r >= 0 && num[r * NUM + 2]! > m) m = num[r * NUM + 2]!;
    num[n * NUM + 2] = m;
  }

  /** Inserts the single node n into subtree t; returns the subtree's new root. */
  private insert(t: number, n: number): number {
    if (t < 0) return n;
    const link = this.link;
    if (link[n * LINK + 3]! > link[t * LINK + 3]!) {
      this.split(t, this.num[n * NUM]!, n);
      link[n * LINK] = this.splitL;
      link[n * LINK + 1] = this.splitR;
      this.pull(n);
      return n;
    }
    const side = this.before(n, this.num[t * NUM]!, t) ? 0 : 1;
    link[t * LINK + side] = this.insert(link[t * LINK + side]!, n);
    const hi = this.num[n * NUM + 1]!;
    if (hi > this.num[t * NUM + 2]!) this.num[t * NUM + 2] = hi;
    return t;
  }

  /** Splits subtree t into splitL (keys < (lo, id)) and splitR (keys >= (lo, id)). */
  private split(t: number, lo: number, id: number): void {
    if (t < 0) {
      this.splitL = -1;
      this.splitR = -1;
      return;
    }
    const link = this.link;
    if (this.before(t, lo, id)) {
      this.split(link[t * LINK + 1]!, lo, id);
      link[t * LINK + 1] = this.splitL;
      this.pull(t);
      this.splitL = t;
    } else {
      this.split(link[t * LINK]!, lo, id);
      link[t * LINK] = this.splitR;
      this.pull(t);
      this.splitR = t;
    }
  }

  private merge(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    const link = this.link;
    if (link[a * LINK + 3]! > link[b * LINK + 3]!) {
      link[a * LINK + 1] = this.merge(link[a * LINK + 1]!, b);
      this.pull(a);
      return a;
    }
    link[b * LINK] = this.merge(a, link[b * LINK]!);
    this.pull(b);
    return b;
  }

  /** Removes node n from subtree t (it must be there); returns the subtree's new root. */
  private remove(t: number, n: number): number {
    const link = this.link;
    if (t === n) return this.merge(link[n * LINK]!, link[n * LINK + 1]!);
    const side = this.before(n, this.num[t * NUM]!, t) ? 0 : 1;
    link[t * LINK + side] = this.remove(link[t * LINK + side]!, n);
    this.pull(t);
    return t;
  }

  /** Appends the nodes of subtree t overlapping [lo, hi) to takeNode, in key order. */
  private collect(t: number, lo: number, hi: number): void {
    const num = this.num;
    if (t < 0 || num[t * NUM + 2]! <= lo) return;
    this.collect(this.link[t * LINK]!, lo, hi);
    if (num[t * NUM]! >= hi) return;
    if (num[t * NUM + 1]! > lo) {
      if (this.taken === this.takeNode.length) this.growTaken();
      this.takeNode[this.taken++] = t;
    }
    this.collect(this.link[t * LINK + 1]!, lo, hi);
  }

  private growTaken(): void {
    const cap = this.takeNode.length * 2;
    const node = new Int32Array(cap);
    node.set(this.takeNode);
    this.takeNode = node;
    this.takeLo = new Float64Array(cap);
    this.takeHi = new Float64Array(cap);
    this.takeOp = new Int32Array(cap);
  }
}
