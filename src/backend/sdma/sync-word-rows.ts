// The manifest's `memory.syncWords` as compile writes it: rows of numbers, not objects. With
// conservative sync every polled FENCE has a word of its own (half a million at 10^6 operations);
// as objects they were 50 MB of heap, their JSON went through the generic writer key by key, and
// the sidecar converted them back to numbers. The rows are the sidecar's own encoding
// (manifest-sidecar.ts field 5) and write the same JSON text as the objects (writeSyncWordRows,
// tested against the generic writer).

import type { QueueProgram } from "../../queues/queue-program.js";
import { queueName, syncWordInHost } from "../../queues/queue-program.js";
import type { Layout } from "./layout.js";
import type { TextSink } from "./disasm.js";
import type { ManifestSyncWord } from "./manifest.js";
import { NULL_GPU, SYNC_WORD_KINDS, SYNC_WORD_NUMBERS } from "./manifest-sidecar.js";

/** SYNC_WORD_NUMBERS numbers per word: id (= its index), kind (index of SYNC_WORD_KINDS), gpu
 * (NULL_GPU: host memory), address, and its queues as indices of `queueNames` (a progress
 * word's producer and consumer; another word's queue and 0). */
export class SyncWordRows {
  constructor(
    readonly numbers: Float64Array | Uint32Array,
    readonly queueNames: readonly string[],
  ) {}
  get length(): number {
    return this.numbers.length / SYNC_WORD_NUMBERS;
  }
  /** Word k as the manifest's object. */
  at(k: number): ManifestSyncWord {
    const n = this.numbers;
    const o = SYNC_WORD_NUMBERS * k;
    const kind = SYNC_WORD_KINDS[n[o + 1]!]!;
    const id = n[o]!;
    const gpu = n[o + 2] === NULL_GPU ? null : n[o + 2]!;
    const address = n[o + 3]!;
    const a = this.queueNames[n[o + 4]!]!;
    return kind === "progress"
      ? { id, kind, gpu, address, producer: a, consumer: this.queueNames[n[o + 5]!]! }
      : { id, kind, gpu, address, queue: a };
  }
  toArray(): ManifestSyncWord[] {
    return Array.from({ length: this.length }, (_, k) => this.at(k));
  }
  /** JSON.stringify gives the array of objects it stands for. */
  toJSON(): ManifestSyncWord[] {
    return this.toArray();
  }
}

/** The program's sync words at their laid-out addresses. */
export function syncWordRows(p: QueueProgram, layout: Layout): SyncWordRows {
  const out = new Float64Array(SYNC_WORD_NUMBERS * p.syncWords.length);
  p.syncWords.forEach((w, id) => {
    const o = SYNC_WORD_NUMBERS * id;
    out[o] = id;
    out[o + 1] = SYNC_WORD_KINDS.indexOf(w.kind);
    out[o + 2] = syncWordInHost(p, id) ? NULL_GPU : w.gpu;
    out[o + 3] = layout.syncAddr[id]!;
    out[o + 4] = w.kind === "progress" ? w.producer : w.queue;
    out[o + 5] = w.kind === "progress" ? w.consumer : 0;
  });
  return new SyncWordRows(out, p.queues.map(queueName));
}

/**
 * The rows as manifest.json spells the array of objects at `depth` (manifest.ts writeJson: one
 * key per line, two spaces per level). Every constant piece is encoded once; a word costs three
 * numbers and four copies.
 */
export function writeSyncWordRows(out: TextSink, rows: SyncWordRows, depth: number): void {
  if (rows.length === 0) return out.text("[]");
  const i1 = "  ".repeat(depth + 1);
  const i2 = "  ".repeat(depth + 2);
  const ascii = (s: string): Uint8Array => Buffer.from(s, "utf8");
  const head = ascii(`${i1}{\n${i2}"id": `);
  const kindText = SYNC_WORD_KINDS.map((k) =>
    ascii(`,\n${i2}"kind": ${JSON.stringify(k)},\n${i2}"gpu": `),
  );
  const address = ascii(`,\n${i2}"address": `);
  // The end of a word from its address on: by kind and queues (a few hundred distinct ones).
  const tails = new Map<number, Uint8Array>();
  const tail = (kind: number, a: number, b: number): Uint8Array => {
    const key = (kind * 65536 + a) * 65536 + b; // queue indices are < 65536 (gpus x engines)
    let t = tails.get(key);
    if (t === undefined) {
      const name = (q: number) => JSON.stringify(rows.queueNames[q]);
      const queues =
        SYNC_WORD_KINDS[kind] === "progress"
          ? `,\n${i2}"producer": ${name(a)},\n${i2}"consumer": ${name(b)}`
          : `,\n${i2}"queue": ${name(a)}`;
      tails.set(key, (t = ascii(`${queues}\n${i1}}`)));
    }
    return t;
  };
  const n = rows.numbers;
  out.text("[\n");
  for (let k = 0; k < rows.length; k++) {
    const o = SYNC_WORD_NUMBERS * k;
    out.ascii(head);
    out.decimal(n[o]!);
    out.ascii(kindText[n[o + 1]!]!);
    if (n[o + 2] === NULL_GPU) out.text("null");
    else out.decimal(n[o + 2]!);
    out.ascii(address);
    out.decimal(n[o + 3]!);
    out.ascii(tail(n[o + 1]!, n[o + 4]!, n[o + 5]!));
    out.text(k < rows.length - 1 ? ",\n" : "\n");
  }
  out.text("  ".repeat(depth));
  out.char(0x5d); // ]
}
