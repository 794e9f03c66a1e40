// The reads of one (rank, buffer) since the last write to their bytes, for dependency inference
// (deps.ts): a set of records [lo, hi) read by op `op`, supporting insertion, "every record
// overlapping [lo, hi)" and removal. A treap (a randomised balanced search tree, keyed by
// (lo, record id)) whose nodes also keep the largest `hi` of their subtree, so that a query visits
// only subtrees that can overlap: O(log n) per insertion and removal, O((k + 1) log n) for a query
// reporting k records. Nodes live in typed arrays (struct of arrays) with a free list: millions of
// records cost tens of bytes each, not an object each. Priorities come from a fixed xorshift
// sequence, so the shape (and everything else) is deterministic.

export class ReadSet {
  private lo = new Float64Array(64);
  private hi = new Float64Array(64);
  private maxHi = new Float64Array(64);
  private op = new Int32Array(64);
  private left = new Int32Array(64);
  private right = new Int32Array(64);
  private prio = new Uint32Array(64);
  private used = 0;
  private free: number[] = [];
  private root = -1;
  private seed = 0x9e3779b9;
  /** Records in the set. */
  size = 0;

  private alloc(lo: number, hi: number, op: number): number {
    let n = this.free.pop();
    if (n === undefined) {
      if (this.used === this.lo.length) this.grow();
      n = this.used++;
    }
    this.lo[n] = lo;
    this.hi[n] = hi;
    this.maxHi[n] = hi;
    this.op[n] = op;
    this.left[n] = -1;
    this.right[n] = -1;
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    this.prio[n] = this.seed;
    return n;
  }

  private grow(): void {
    const cap = this.lo.length * 2;
    const f64 = (a: Float64Array): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.lo = f64(this.lo);
    this.hi = f64(this.hi);
    this.maxHi = f64(this.maxHi);
    this.op = i32(this.op);
    this.left = i32(this.left);
    this.right = i32(this.right);
    const p = new Uint32Array(cap);
    p.set(this.prio);
    this.prio = p;
  }

  private pull(n: number): void {
    let m = this.hi[n]!;
    const l = this.left[n]!;
    const r = this.right[n]!;
    if (l >= 0 && this.maxHi[l]! > m) m = this.maxHi[l]!;
    if (r >= 0 && this.maxHi[r]! > m) m = this.maxHi[r]!;
    this.maxHi[n] = m;
  }

  /** Key order: by lo, then by node index (unique). */
  private before(a: number, lo: number, id: number): boolean {
    const x = this.lo[a]!;
    return x < lo || (x === lo && a < id);
  }

  /** Splits tree t into (keys < (lo, id), keys >= (lo, id)). */
  private split(t: number, lo: number, id: number): [number, number] {
    if (t < 0) return [-1, -1];
    if (this.before(t, lo, id)) {
      const [a, b] = this.split(this.right[t]!, lo, id);
      this.right[t] = a;
      this.pull(t);
      return [t, b];
    }
    const [a, b] = this.split(this.left[t]!, lo, id);
    this.left[t] = b;
    this.pull(t);
    return [a, t];
  }

  private merge(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    if (this.prio[a]! > this.prio[b]!) {
      this.right[a] = this.merge(this.right[a]!, b);
      this.pull(a);
      return a;
    }
    this.left[b] = this.merge(a, this.left[b]!);
    this.pull(b);
    return b;
  }

  /** Adds the record [lo, hi) read by `op` (nothing for an empty range). */
  add(lo: number, hi: number, op: number): void {
    if (lo >= hi) return;
    const n = this.alloc(lo, hi, op);
    const [a, b] = this.split(this.root, lo, n);
    this.root = this.merge(this.merge(a, n), b);
    this.size++;
  }

  /**
   * Removes every record overlapping [lo, hi) and returns them (node ids: read them with
   * `recordLo/Hi/Op` before the next `add`, which may reuse the ids).
   */
  takeOverlapping(lo: number, hi: number, out: number[]): void {
    out.length = 0;
    if (lo >= hi) return;
    this.collect(this.root, lo, hi, out);
    for (const n of out) this.remove(n);
  }

  recordLo(n: number): number {
    return this.lo[n]!;
  }
  recordHi(n: number): number {
    return this.hi[n]!;
  }
  recordOp(n: number): number {
    return this.op[n]!;
  }

  private collect(t: number, lo: number, hi: number, out: number[]): void {
    // An explicit stack: the tree is balanced only in expectation.
    const stack = [t];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n < 0 || this.maxHi[n]! <= lo) continue;
      stack.push(this.left[n]!);
      if (this.lo[n]! < hi) {
        if (this.hi[n]! > lo) out.push(n);
        stack.push(this.right[n]!);
      }
    }
  }

  private remove(n: number): void {
    const lo = this.lo[n]!;
    const [a, b] = this.split(this.root, lo, n);
    const [mid, c] = this.split(b, lo, n + 1);
    // mid is exactly node n (keys are unique).
    this.root = this.merge(a, this.merge(this.merge(this.left[mid]!, this.right[mid]!), c));
    this.free.push(n);
    this.size--;
  }
}
