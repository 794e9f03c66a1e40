// A manifest's sync words (`memory.syncWords`) as the executor reads them: from manifest.json, a
// list of objects; from its sidecar (backend/sdma/manifest-sidecar.ts, field 5), a table of
// numbers that validate-input.ts attaches in the list's place. Both are read through
// syncWordColumns, so the checks and the memory map need no object per word (half a million on
// the forward program of bench/gen.js).

import { NULL_GPU, SYNC_WORD_KINDS, SYNC_WORD_NUMBERS } from "../backend/sdma/manifest-sidecar.js";
import type { ManifestSyncWord } from "../backend/sdma/manifest.js";

/** The sidecar's sync words: SYNC_WORD_NUMBERS numbers each; queues named by index. */
export class SyncWordTable {
  constructor(
    readonly values: ArrayLike<number>,
    readonly queueNames: readonly string[],
  ) {}
  get length(): number {
    return this.values.length / SYNC_WORD_NUMBERS;
  }
}

export interface SyncWordColumns {
  readonly count: number;
  readonly address: (k: number) => number;
  /** null: host memory. */
  readonly gpu: (k: number) => number | null;
  /** `sync<id> (producer -> consumer)` or `sync<id> (kind of queue)`. */
  readonly name: (k: number) => string;
}

export function syncWordColumns(
  list: readonly ManifestSyncWord[] | SyncWordTable,
): SyncWordColumns {
  if (list instanceof SyncWordTable) {
    const v = list.values;
    const queue = (k: number, j: number): string =>
      list.queueNames[v[SYNC_WORD_NUMBERS * k + j]!] ?? "?";
    return {
      count: list.length,
      address: (k) => v[SYNC_WORD_NUMBERS * k + 3]!,
      gpu: (k) => {
        const g = v[SYNC_WORD_NUMBERS * k + 2]!;
        return g === NULL_GPU ? null : g;
      },
      name: (k) => {
        const id = v[SYNC_WORD_NUMBERS * k]!;
        const kind = SYNC_WORD_KINDS[v[SYNC_WORD_NUMBERS * k + 1]!];
        return kind === "progress"
          ? `sync${id} (${queue(k, 4)} -> ${queue(k, 5)})`
          : `sync${id} (${kind} of ${queue(k, 4)})`;
      },
    };
  }
  return {
    count: list.length,
    address: (k) => list[k]!.address,
    gpu: (k) => list[k]!.gpu,
    name: (k) => {
      const w = list[k]!;
      return w.kind === "progress"
        ? `sync${w.id} (${w.producer} -> ${w.consumer})`
        : `sync${w.id} (${w.kind} of ${w.queue})`;
    },
  };
}
