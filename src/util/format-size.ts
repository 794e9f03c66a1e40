// The one formatter of byte counts for people (tables, summaries, messages, progress). IEC units
// (B, KiB, MiB, GiB, TiB, PiB: powers of 1024), a space before the unit, and two fixed rules:
//
//   formatSize       for reading: the largest unit the value reaches; a whole number of it
//                    prints whole ("4 KiB", "576 KiB", "1000 KiB"), anything else to 3
//                    significant digits ("1.50 MiB", "15.3 GiB", "449 KiB"). Below 1 KiB,
//                    whole bytes ("449 B"): a fraction of a byte (a mean) is rounded, never shown.
//   formatSizeExact  where the exact value matters (a file against its size limit, a buffer
//                    against the size a collective needs): the largest unit that divides it
//                    ("16 MiB", "1536 KiB"), else bytes ("16777217 B").
//
// Machine-readable outputs (JSON, CSV) carry plain byte counts and never go through here; nor do
// values printed as .dmac literals (`-D chunk=2KiB`, check/types.ts formatValue), which must read
// back as source.

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;
const STEP = 1024;

/** `n` bytes for reading: "449 B", "4 KiB", "1.50 MiB" (rules above). */
export function formatSize(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n < 0) return `-${formatSize(-n)}`;
  let u = 0;
  let v = Math.round(n);
  if (v < STEP) return `${v} B`;
  v = n;
  while (v >= STEP && u < UNITS.length - 1) {
    v /= STEP;
    u++;
  }
  if (Number.isInteger(v)) return `${v} ${UNITS[u]}`;
  const text = threeDigits(v);
  // 1023.7 KiB rounds to 1024: that is 1.00 MiB.
  if (Number(text) >= STEP && u < UNITS.length - 1) return `1.00 ${UNITS[u + 1]}`;
  return `${text} ${UNITS[u]}`;
}

/** 3 significant digits of v in [1, 1024) (or above, in the largest unit), without exponents. */
function threeDigits(v: number): string {
  return v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
}

/** `n` bytes exactly: "16 MiB", "1536 KiB", "16777217 B" (rules above). */
export function formatSizeExact(n: number): string {
  if (!Number.isSafeInteger(n)) return `${n} B`;
  let u = 0;
  let v = n;
  while (v !== 0 && v % STEP === 0 && u < UNITS.length - 1) {
    v /= STEP;
    u++;
  }
  return `${v} ${UNITS[u]}`;
}
