// An output file whose contents are produced while it is written.

/**
 * Contents produced while they are written (dump.txt: ~400 MB at 10^6 operations): `writeTo`
 * hands the bytes to `write` in chunks, each valid only during the call. output.ts streams them
 * to disk; `bytes()` collects them for in-memory consumers (golden, tests).
 */
export class StreamedData {
  constructor(readonly writeTo: (write: (chunk: Uint8Array) => void) => void) {}
  bytes(): Uint8Array {
    const chunks: Uint8Array[] = [];
    let n = 0;
    this.writeTo((c) => {
      chunks.push(c.slice());
      n += c.length;
    });
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
