// Checks a Chrome trace too big for one string (`dmac sim -o` of a big run: 855 MB) against
// schemas/chrome-trace.schema.json, streaming: the file is read in 16 MiB pieces, split into its
// events by tracking JSON strings and nesting, and the events are validated 20,000 at a time as
// documents of their own (the schema says nothing across events). Also checks that the timed
// events come in time order. Prints one line: events, bytes, problems; exit 1 on any problem.
//   node bench/trace-check-stream.js t.json
import { closeSync, openSync, readSync } from "node:fs";

const { validateDocument } = await import(new URL("../dist/schemas.js", import.meta.url).href);
const HEAD = '{"traceEvents":[';
const TAIL = '],"displayTimeUnit":"ns"}\n';

const fd = openSync(process.argv[2], "r");
const piece = Buffer.alloc(Number(process.env["PIECE_BYTES"] ?? 16 << 20));
let carry = Buffer.alloc(0);
let events = 0;
let bytes = 0;
let lastTs = -Infinity;
const problems = [];
let batch = [];

function flush() {
  for (const p of validateDocument("chrome-trace", { traceEvents: batch, displayTimeUnit: "ns" }))
    problems.push(`${p.path ?? ""} ${p.message ?? JSON.stringify(p)}`);
  for (const ev of batch) {
    if (ev.ph === "M") continue;
    if (ev.ts < lastTs) problems.push(`event ${events}: ts ${ev.ts} before ${lastTs}`);
    lastTs = ev.ts;
  }
  batch = [];
}

// Scanner state across pieces: inside a string, after a backslash, nesting depth, event start.
let inString = false;
let escaped = false;
let depth = 0;
let start = -1;
let headSeen = false;
for (;;) {
  const n = readSync(fd, piece, 0, piece.length, null);
  if (n === 0) break;
  bytes += n;
  // (The carried bytes, the start of an open event, were scanned already.)
  const buf = Buffer.concat([carry, piece.subarray(0, n)]);
  let k = carry.length;
  if (!headSeen) {
    if (buf.subarray(0, HEAD.length).toString() !== HEAD)
      problems.push("does not start with " + HEAD);
    headSeen = true;
    k = HEAD.length;
  }
  for (; k < buf.length; k++) {
    const c = buf[k];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) {
      if (depth++ === 0) start = k;
    } else if (c === 0x7d && --depth === 0) {
      batch.push(JSON.parse(buf.subarray(start, k + 1).toString()));
      events++;
      start = -1;
      if (batch.length === 20_000) flush();
    } else if (depth === 0 && c === 0x5d) {
      const rest = buf.subarray(k).toString();
      if (rest !== TAIL.slice(0, rest.length)) problems.push("does not end with " + TAIL);
      break;
    }
  }
  carry = start >= 0 ? Buffer.from(buf.subarray(start)) : Buffer.alloc(0);
  if (start >= 0) start = 0;
}
closeSync(fd);
flush();
console.log(
  JSON.stringify({ events, bytes, problems: problems.slice(0, 20), count: problems.length }),
);
process.exitCode = problems.length > 0 ? 1 : 0;
