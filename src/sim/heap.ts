// The executor's event queue: a binary min-heap over (time, sequence) stored in typed arrays.
// Ties in time are broken by insertion order, which makes every simulation deterministic.
// An event is two integers (kind, arg) chosen by the caller; nothing is allocated per event.
//
// In front of the heap sits one slot that holds the earliest event whenever that event was pushed
// after everything in the heap and sorts before it: an engine's next step is most often the next
// event of the whole node, and it then costs no sift up and down (1.5M events on the 262,144-copy
// all-to-all). The order is the heap's own: (time, sequence), the slot's event being the newest
// of its time only when no heap event shares its time.

/** Events pushed and popped by the process's first heap (its constructor). */
const WARM_UP = 256;
/** The first heap warmed the class's code up; later heaps (a plan search makes thousands) need not. */
let warmed = false;

export class EventHeap {
  private time = new Float64Array(1024);
  private seq = new Float64Array(1024);
  private kind = new Int32Array(1024);
  private arg = new Int32Array(1024);
  private n = 0;
  private nextSeq = 0;

  /** The front slot: set when it holds the earliest event. */
  private front = false;
  // (Times start as a fraction: a field V8 first sees hold a whole number changes the heap's shape
  // when it first holds a fraction, and code compiled for the old shape is thrown away.)
  private fTime = 0.5;
  private fSeq = 0;
  private fKind = 0;
  private fArg = 0;

  constructor() {
    // The heap runs once through every path (the front slot, sifts up and down, ties) and is
    // emptied: V8 compiles code it has not seen run as a bail-out, and keeps no record of the
    // first calls of a function at all. The run's heap first sifted down, and first met a tie,
    // after V8 had compiled the event loop around it: the loop was thrown away and compiled
    // again. The sequence starts again at 0: the run's order is as if this had not happened.
    // (Times with a fraction, as the run's are: a field first set to whole numbers changes shape
    // when it first holds one.)
    if (warmed) return;
    warmed = true;
    for (let k = 0; k < WARM_UP; k++) this.push(((k * 7) % 5) + 0.5, 0, 0);
    while (this.pop()) continue;
    this.nextSeq = 0;
  }

  get size(): number {
    return this.n + (this.front ? 1 : 0);
  }

  push(time: number, kind: number, arg: number): void {
    const s = this.nextSeq++;
    if (!this.front) {
      // Strictly before the heap's top: a heap event of the same time is older, so it goes first.
      if (this.n === 0 || time < this.time[0]!) {
        this.front = true;
        this.fTime = time;
        this.fSeq = s;
        this.fKind = kind;
        this.fArg = arg;
        return;
      }
    } else if (time < this.fTime) {
      // The new event goes in front; the old front (older than everything it sorted before) goes
      // into the heap, where it is the minimum.
      this.pt[0] = this.fTime;
      this.sift(this.fSeq, this.fKind, this.fArg);
      this.fTime = time;
      this.fSeq = s;
      this.fKind = kind;
      this.fArg = arg;
      return;
    }
    this.pt[0] = time;
    this.sift(s, kind, arg);
  }

  /** sift()'s time, passed here: a double passed to a call that is not inlined (sift is not,
   * into every caller of push) is a new heap number, one per event. */
  private readonly pt = new Float64Array(1);

  /** Puts (pt[0], s, kind, arg) into the heap proper. */
  private sift(s: number, kind: number, arg: number): void {
    const time = this.pt[0]!;
    if (this.n === this.time.length) this.grow();
    let i = this.n++;
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

  /** Whether time t is at or before every event (true when empty). A boolean, not the time: a
   * double returned from a call that is not inlined is a heap number, one per event. */
  atOrBefore(t: number): boolean {
    return t <= (this.front ? this.fTime : this.n === 0 ? Infinity : this.time[0]!);
  }

  /** Time of the earliest event (Infinity when empty). */
  peekTime(): number {
    return this.front ? this.fTime : this.n === 0 ? Infinity : this.time[0]!;
  }

  /** Removes the earliest event; its fields are then in lastTime / lastKind / lastArg. */
  pop(): boolean {
    if (this.front) {
      this.front = false;
      this.lastTime = this.fTime;
      this.lastKind = this.fKind;
      this.lastArg = this.fArg;
      return true;
    }
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

  lastTime = 0.5; // (as fTime)
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
