// The executor's event queue: a binary min-heap over (time, sequence) stored in typed arrays.
// Ties in time are broken by insertion order, which makes every simulation deterministic.
// An event is two integers (kind, arg) chosen by the caller; nothing is allocated per event.

export class EventHeap {
  private time = new Float64Array(1024);
  private seq = new Float64Array(1024);
  private kind = new Int32Array(1024);
  private arg = new Int32Array(1024);
  private n = 0;
  private nextSeq = 0;

  get size(): number {
    return this.n;
  }

  push(time: number, kind: number, arg: number): void {
    if (this.n === this.time.length) this.grow();
    let i = this.n++;
    const s = this.nextSeq++;
    // Sift up.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = this.time[p]!;
      if (pt < time || (pt === time && this.seq[p]! < s)) break;
      this.time[i] = pt;
      this.seq[i] = this.seq[p]!;
      this.kind[i] = this.kind[p]!;
      this.arg[i] = this.arg[p]!;
      i = p;
    }
    this.time[i] = time;
    this.seq[i] = s;
    this.kind[i] = kind;
    this.arg[i] = arg;
  }

  /** Time of the earliest event (Infinity when empty). */
  peekTime(): number {
    return this.n === 0 ? Infinity : this.time[0]!;
  }

  /** Removes the earliest event; its fields are then in lastTime / lastKind / lastArg. */
  pop(): boolean {
    if (this.n === 0) return false;
    this.lastTime = this.time[0]!;
    this.lastKind = this.kind[0]!;
    this.lastArg = this.arg[0]!;
    const n = --this.n;
    if (n === 0) return true;
    const t = this.time[n]!;
    const s = this.seq[n]!;
    const k = this.kind[n]!;
    const a = this.arg[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (
        r < n &&
        (this.time[r]! < this.time[l]! ||
          (this.time[r] === this.time[l] && this.seq[r]! < this.seq[l]!))
      )
        c = r;
      const ct = this.time[c]!;
      if (t < ct || (t === ct && s < this.seq[c]!)) break;
      this.time[i] = ct;
      this.seq[i] = this.seq[c]!;
      this.kind[i] = this.kind[c]!;
      this.arg[i] = this.arg[c]!;
      i = c;
    }
    this.time[i] = t;
    this.seq[i] = s;
    this.kind[i] = k;
    this.arg[i] = a;
    return true;
  }

  lastTime = 0;
  lastKind = 0;
  lastArg = 0;

  private grow(): void {
    const cap = this.time.length * 2;
    const t = new Float64Array(cap);
    t.set(this.time);
    this.time = t;
    const s = new Float64Array(cap);
    s.set(this.seq);
    this.seq = s;
    const k = new Int32Array(cap);
    k.set(this.kind);
    this.kind = k;
    const a = new Int32Array(cap);
    a.set(this.arg);
    this.arg = a;
  }
}
