// The executor's pass over a packet stream that the decoder has nothing to say about: one table
// lookup per header (the back end's packet table, bitfield.ts), one packet object each, nothing
// else allocated. A stream with anything irregular (an unknown header, a truncated packet,
// reserved bits, an address above 2^53) is not its business: it returns false at the first such
// packet and the caller reads the stream again with decode.ts's scanStream, which describes every
// problem.

import { lengthAt, lookupHeader } from "../backend/sdma/bitfield.js";
import type { Packet } from "../backend/sdma/packets.js";

/** Calls `visit` with each packet and its byte offset; false if the stream is not clean. */
export function scanCleanStream(
  words: Uint32Array,
  visit: (offset: number, packet: Packet) => void,
): boolean {
  const end = words.length;
  let i = 0;
  while (i < end) {
    const c = lookupHeader(words[i]!);
    if (c === undefined) return false;
    const len = lengthAt(c, words, i, end);
    if (len < 0 || i + len > end || c.suspicious(words, i)) return false;
    visit(i * 4, c.unpack(words, i, len));
    i += len;
  }
  return true;
}
