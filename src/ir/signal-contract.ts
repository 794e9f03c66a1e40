// The contract a user signal states with outside code, worded once for every place which shows
// a flag (the hover, `dmac check`'s summary, the dump's header): what the producer stores in
// the 32-bit word to raise the flag to k. docs/language.md, "Signals".

import type { SignalEncoding } from "../frontend/ast.js";

/** "count: stores k" or "thermometer: stores 2^k - 1": the encoding and the word for k. */
export function signalStores(encoding: SignalEncoding | undefined): string {
  return encoding === "thermometer" ? "thermometer: stores 2^k - 1" : "count: stores k";
}

/** The encoding and what outside code stores for k, in a sentence. */
export function signalContract(encoding: SignalEncoding | undefined): string {
  return encoding === "thermometer"
    ? "thermometer: the word holds 2^k - 1 for k (bits 0..k-1 set, k <= 32); outside code raises it to k by storing 2^k - 1"
    : "count: the word holds k after k events; outside code raises it to k by storing k, and notify adds 1";
}
