// THE table of collectives that `implements` can name: each one's summary and the argument
// signatures the checker checks an `implements` clause against. What each one means (its
// postcondition as data) is ir/collectives.ts, keyed by the same names.
//
// Argument kinds: "buffer" names a buffer of the schedule, "int" is an int expression (a rank or
// a shift). A collective may accept several signatures (broadcast in place or out of place).

export type CollectiveArgKind = "buffer" | "int";

export interface CollectiveSignature {
  readonly args: readonly { readonly name: string; readonly kind: CollectiveArgKind }[];
}

export interface CollectiveSpec {
  readonly summary: string;
  readonly signatures: readonly CollectiveSignature[];
}

const buf = (name: string) => ({ name, kind: "buffer" as const });
const int = (name: string) => ({ name, kind: "int" as const });

export const COLLECTIVES = {
  all_gather: {
    summary: "dst@p[r*S +: S] == src@r for every p, r (S = size of src)",
    signatures: [{ args: [buf("src"), buf("dst")] }],
  },
  all_gather_inplace: {
    summary: "buf@p[r*S +: S] == buf@r[r*S +: S] initially, for every p, r (S = size / ranks)",
    signatures: [{ args: [buf("buf")] }],
  },
  all_to_all: {
    summary: "dst@p[r*S +: S] == src@r[p*S +: S] for every p, r (S = size / ranks)",
    signatures: [{ args: [buf("src"), buf("dst")] }],
  },
  all_to_all_inplace: {
    summary: "buf@p[r*S +: S] == buf@r[p*S +: S] initially, for every p, r (S = size / ranks)",
    signatures: [{ args: [buf("buf")] }],
  },
  broadcast: {
    summary: "buf@p == buf@root initially (in place), or dst@p == src@root, for every p",
    signatures: [
      { args: [buf("buf"), int("root")] },
      { args: [buf("src"), buf("dst"), int("root")] },
    ],
  },
  scatter: {
    summary: "dst@p == src@root[p*S +: S] for every p (S = size of dst)",
    signatures: [{ args: [buf("src"), buf("dst"), int("root")] }],
  },
  gather: {
    summary: "dst@root[r*S +: S] == src@r for every r (S = size of src)",
    signatures: [{ args: [buf("src"), buf("dst"), int("root")] }],
  },
  send_recv: {
    summary: "dst@to == src@from",
    signatures: [{ args: [buf("src"), buf("dst"), int("from"), int("to")] }],
  },
  permute: {
    summary: "dst@((r + shift) mod ranks) == src@r for every r",
    signatures: [{ args: [buf("src"), buf("dst"), int("shift")] }],
  },
} as const satisfies Record<string, CollectiveSpec>;

export type CollectiveName = keyof typeof COLLECTIVES;

export function isCollectiveName(name: string): name is CollectiveName {
  return Object.hasOwn(COLLECTIVES, name);
}
