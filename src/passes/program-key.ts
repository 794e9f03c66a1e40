// "Is this the same program?" without printing it: the -O2 plan search dedupes candidates whose
// programs are equal, and the -O1 check skips its predictions when the passes changed nothing.
// Both used to compare JSON.stringify texts (hundreds of MB at 10^6 commands). Here:
// - jsonHash: a 64-bit structural hash (two 32-bit lanes) of a plain-data value;
// - jsonEqual: whether two plain-data values have the same JSON text, without building it.
// "Same" means exactly what comparing JSON.stringify texts meant: keys in their order, properties
// whose value is undefined (or a function) left out, non-finite numbers as null, -0 as 0, arrays'
// undefined elements as null. Queue programs are plain data (numbers, strings, booleans,
// arrays, objects); a value with a toJSON method is compared through JSON.stringify.

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** JSON's view of a property or element: undefined when JSON leaves it out. */
function skipped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

class Hasher {
  a = 0x811c9dc5;
  b = 0x9747b28c;
  mix(x: number): void {
    this.a = Math.imul(this.a ^ x, 0x01000193);
    this.b = Math.imul(this.b ^ x, 0x5bd1e995);
    this.b ^= this.b >>> 13;
  }
  str(s: string): void {
    this.mix(s.length);
    for (let i = 0; i < s.length; i++) this.mix(s.charCodeAt(i));
  }
  value(v: unknown): void {
    switch (typeof v) {
      case "number":
        if (!Number.isFinite(v)) return this.mix(0x6e756c6c); // null
        if ((v | 0) === v) {
          this.mix(1);
          return this.mix(v | 0);
        }
        f64[0] = v;
        this.mix(2);
        this.mix(u32[0]!);
        return this.mix(u32[1]!);
      case "string":
        this.mix(3);
        return this.str(v);
      case "boolean":
        return this.mix(v ? 4 : 5);
      case "object": {
        if (v === null) return this.mix(0x6e756c6c);
        if (typeof (v as { toJSON?: unknown }).toJSON === "function")
          return this.str(JSON.stringify(v));
        if (Array.isArray(v)) {
          this.mix(6);
          this.mix(v.length);
          for (const x of v) {
            if (skipped(x)) this.mix(0x6e756c6c);
            else this.value(x);
          }
          return;
        }
        this.mix(7);
        const o = v as Record<string, unknown>;
        for (const k in o) {
          if (!Object.prototype.hasOwnProperty.call(o, k) || skipped(o[k])) continue;
          this.str(k);
          this.value(o[k]);
        }
        return this.mix(8);
      }
      default:
        return this.mix(0x6e756c6c); // undefined / function at the top level
    }
  }
}

/** A 64-bit structural hash of `v` as a 16-digit hex string: equal JSON texts, equal hashes. */
export function jsonHash(v: unknown): string {
  const h = new Hasher();
  h.value(v);
  return (h.a >>> 0).toString(16).padStart(8, "0") + (h.b >>> 0).toString(16).padStart(8, "0");
}

function ownKeys(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k) && !skipped(o[k])) out.push(k);
  return out;
}

/** JSON.stringify(a) === JSON.stringify(b), for plain data, without building the texts. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number")
    return Number.isFinite(a) ? a === b : !Number.isFinite(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return JSON.stringify(a) === JSON.stringify(b);
  if (
    typeof (a as { toJSON?: unknown }).toJSON === "function" ||
    typeof (b as { toJSON?: unknown }).toJSON === "function"
  )
    return JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) {
      const p = skipped(a[i]) ? null : a[i];
      const q = skipped(y[i]) ? null : y[i];
      if (!jsonEqual(p, q)) return false;
    }
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = ownKeys(x);
  const ky = ownKeys(y);
  if (kx.length !== ky.length) return false;
  for (let i = 0; i < kx.length; i++) {
    if (kx[i] !== ky[i]) return false;
    if (!jsonEqual(x[kx[i]!], y[ky[i]!])) return false;
  }
  return true;
}
