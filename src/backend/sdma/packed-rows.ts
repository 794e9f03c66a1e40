// PackedRows: a list of short number rows (the source map's [byteOffset, stmt, op, ...] entries)
// stored flat in two typed arrays instead of one small array per row. At 10^6 operations the
// source map has 10^6 rows; as arrays they were ~70 MB of small objects that every full garbage
// collection had to visit until the manifest was written (docs/performance.md). It iterates as
// (and JSON-serialises to) the array of arrays it stands for; the manifest's formatters write it
// directly (manifest.ts formatJsonBytes), with the same text as the array of arrays.

/** Read-only rows; build them with PackedRowsBuilder. */
export class PackedRows implements Iterable<readonly number[]> {
  /** Row i is data[starts[i] .. starts[i + 1]). */
  constructor(
    readonly data: Float64Array | Uint32Array,
    readonly starts: Uint32Array,
  ) {}
  get length(): number {
    return this.starts.length - 1;
  }
  row(i: number): number[] {
    return Array.from(this.data.subarray(this.starts[i]!, this.starts[i + 1]!));
  }
  *[Symbol.iterator](): Iterator<readonly number[]> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }
  toJSON(): number[][] {
    return [...this].map((r) => [...r]);
  }
}

/** Appends rows to growing typed arrays; `done()` returns them trimmed. */
export class PackedRowsBuilder {
  private data: Float64Array;
  private starts: Uint32Array;
  private n = 0; // values
  private rows = 0;
  /** Exact capacities avoid regrowth and the trimming copy (both typed-array allocations). */
  constructor(expectedRows = 16, expectedValues = 3 * expectedRows) {
    this.data = new Float64Array(Math.max(1, expectedValues));
    this.starts = new Uint32Array(expectedRows + 1);
  }
  /** Starts a row (then `value` its numbers). */
  startRow(): void {
    this.room(1, 0);
    this.starts[this.rows++] = this.n;
  }
  /** A whole row: [a, b, ...values[from .. from + count)] (one call per row: the emitter's
   * source map adds one per operation, mostly before V8 has compiled its loop). */
  row(a: number, b: number, values: ArrayLike<number>, from: number, count: number): void {
    this.room(1, 2 + count);
    this.starts[this.rows++] = this.n;
    const data = this.data;
    let n = this.n;
    data[n++] = a;
    data[n++] = b;
    for (let k = 0; k < count; k++) data[n++] = values[from + k]!;
    this.n = n;
  }
  value(v: number): void {
    this.room(0, 1);
    this.data[this.n++] = v;
  }
  /** Room for `rows` more rows (and the end mark `done` writes) and `values` more numbers: each
   * array doubles when it is short. */
  private room(rows: number, values: number): void {
    if (this.rows + 1 + rows > this.starts.length) {
      const starts = new Uint32Array(Math.max(2 * this.starts.length, this.rows + 1 + rows));
      starts.set(this.starts);
      this.starts = starts;
    }
    if (this.n + values > this.data.length) {
      const data = new Float64Array(Math.max(2 * this.data.length, this.n + values));
      data.set(this.data);
      this.data = data;
    }
  }
  done(): PackedRows {
    const starts =
      this.starts.length === this.rows + 1 ? this.starts : this.starts.slice(0, this.rows + 1);
    starts[this.rows] = this.n;
    const data = this.data.length === this.n ? this.data : this.data.slice(0, this.n);
    return new PackedRows(data, starts);
  }
}
