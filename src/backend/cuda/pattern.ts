// THE source pattern: the initial byte of every buffer instance as the CUDA runner fills it and
// as the compiler's expectation (expect.ts) names it. One definition, mirrored byte for byte by
// runtime/cuda/pattern.h (test/unit/backend/cuda/pattern.test.ts pins both to the same values).
//
// Byte `offset` of buffer `buffer` on `place` (a GPU rank, or HOST_PLACE for host memory) is byte
// (offset & 3) of a 32-bit hash of (buffer, place, offset >> 2). A hash, not `offset & 255`: a copy
// landing 256 bytes (or any multiple) off would match a periodic pattern and pass verification.

/** The place of a host buffer in the pattern (GPU ranks are 0 .. 63). */
export const HOST_PLACE = 255;

/** 32-bit mix of the three keys (murmur3's finaliser over a linear combination). */
export function patternWord(buffer: number, place: number, word: number): number {
  let h =
    (Math.imul(word, 0x9e3779b1) ^
      Math.imul(buffer + 1, 0x85ebca77) ^
      Math.imul(place + 1, 0xc2b2ae3d)) >>>
    0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export function patternByte(buffer: number, place: number, offset: number): number {
  const w = patternWord(buffer, place, Math.floor(offset / 4));
  return (w >>> (8 * (offset % 4))) & 0xff;
}
