// The lines a differing `dump` golden's report opens with, before its unified diff: what changed
// in aggregate (packets, queues, bytes the data packets move, before and after), then the queues
// whose packet counts differ. A listing diff of a real change runs to thousands of lines and
// opens with the header (a `# syncN` line per sync word), which says nothing about the size of
// the change. Read from the two listing texts (docs/listings.md) in one pass each: no compile.

import { formatSize } from "../util/format-size.js";

/** What one listing holds. */
interface DumpTotals {
  packets: number;
  bytes: number;
  /** Packets per queue, in listing order. */
  readonly queues: Map<string, number>;
}

/** Queues named on the second line; the rest are counted. */
const MAX_QUEUES_NAMED = 4;

const UNIT: Readonly<Record<string, number>> = {
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  PiB: 2 ** 50,
};

// A packet's first line: offset, its raw dwords, then its name (continuation lines have no name;
// `.dword` lines are not packets). `bytes=` is a count (`262144`, plain listing) or a size
// (`256 KiB`, annotated).
const PACKET = /^[0-9a-f]{8,} (?: [0-9a-f]{8})+  [A-Z]/;
const BYTES = / bytes=(\d+)(?: (B|KiB|MiB|GiB|TiB|PiB))?/;
const QUEUE = /^# queue ([^:\s]+)/;

function totals(text: string): DumpTotals {
  const t: DumpTotals = { packets: 0, bytes: 0, queues: new Map() };
  let queue: string | undefined;
  for (let at = 0; at < text.length;) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    at = end + 1;
    const q = line.startsWith("# queue ") ? QUEUE.exec(line) : null;
    if (q) t.queues.set((queue = q[1]!), 0);
    else if (PACKET.test(line)) {
      t.packets++;
      if (queue !== undefined) t.queues.set(queue, t.queues.get(queue)! + 1);
      const b = BYTES.exec(line);
      if (b) t.bytes += Number(b[1]) * UNIT[b[2] ?? "B"]!;
    }
  }
  return t;
}

const count = (n: number): string => n.toLocaleString("en-US");

/**
 * `dump: 1,040 -> 520 packets, 16 -> 16 queues, 4 MiB -> 4 MiB moved`, then (when some differ)
 * `packet counts that differ: gpu0.sdma2 104 -> 52, gpu1.sdma2 (none) -> 8, and 3 more queues`
 * (queues whose number of packets changed, in listing order); each line ends
 * with a newline.
 */
export function dumpSummary(expected: string, actual: string): string {
  const a = totals(expected);
  const b = totals(actual);
  const lines = [
    `dump: ${count(a.packets)} -> ${count(b.packets)} packets, ${count(a.queues.size)} -> ${count(b.queues.size)} queues, ${formatSize(a.bytes)} -> ${formatSize(b.bytes)} moved`,
  ];
  const differ: string[] = [];
  const shown = (n: number | undefined): string => (n === undefined ? "(none)" : count(n));
  for (const name of new Set([...a.queues.keys(), ...b.queues.keys()])) {
    const x = a.queues.get(name);
    const y = b.queues.get(name);
    if (x !== y) differ.push(`${name} ${shown(x)} -> ${shown(y)}`);
  }
  if (differ.length > 0) {
    const named = differ.slice(0, MAX_QUEUES_NAMED);
    const more = differ.length - named.length;
    lines.push(
      `packet counts that differ: ${named.join(", ")}${more > 0 ? `, and ${more} more queues` : ""}`,
    );
  }
  return lines.join("\n") + "\n";
}
