// Which loop instance(s) a packet implements, as the listings and traces print it: `s=1 k=0..3
// r=0`, the values of its statement's loop variables over the ops the packet implements. A
// batched packet implements several instances, so each variable gets the set of its values:
// one value, a run `0..3`, a short list `0,2,5`, or a longer progression `0,2,...,98`; anything
// else is its bounds with the count (`0..98 (7 values)`). Without it, the 104 packets a ring
// makes from one statement all sit under the same source line, indistinguishable.
//
// The facts come from the IR (ops.stmt, ops.bind, stmts[].loopVars) or from a manifest's source
// map, which records them (`sourceMap.stmts[].vars`, `sourceMap.ops`: manifest.ts): one reader
// interface, one description.

import type { IrModule } from "./ir.js";

/** Where the loop values of IR ops are read from. */
export interface OpBindings {
  /** The loop variables of statement `stmt`, outermost first (none outside loops). */
  vars(stmt: number): readonly string[];
  /** The statement op `op` comes from (-1: unknown). */
  stmtOf(op: number): number;
  /** The value of the k-th loop variable of op `op`'s statement for that op. */
  value(op: number, k: number): number;
}

/** The IR's bindings. */
export function irBindings(m: IrModule): OpBindings {
  return {
    vars: (stmt) => m.stmts[stmt]?.loopVars ?? [],
    // An op without a binding (bind -1) is outside loops: no statement to describe it by.
    stmtOf: (op) => (op >= 0 && op < m.ops.count && m.ops.bind[op]! >= 0 ? m.ops.stmt[op]! : -1),
    value: (op, k) => m.bindValues[m.ops.bind[op]! + k]!,
  };
}

/** Values listed one by one up to this many. */
const MAX_LISTED = 4;

/**
 * `s=1 k=0..3 r=0` for the ops of `ops` (IR op indices) that come from statement `stmt` (the
 * others are ordered by the packet, not implemented by it); "" outside loops or without any.
 */
export function describeInstances(b: OpBindings, stmt: number, ops: ArrayLike<number>): string {
  const vars = b.vars(stmt);
  if (vars.length === 0) return "";
  if (ops.length === 1) {
    // The common case (one op per packet), without the sets.
    const op = ops[0]!;
    if (b.stmtOf(op) !== stmt) return "";
    return vars.map((v, k) => `${v}=${b.value(op, k)}`).join(" ");
  }
  const values = vars.map(() => new Set<number>());
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (b.stmtOf(op) !== stmt) continue;
    for (let k = 0; k < vars.length; k++) values[k]!.add(b.value(op, k));
  }
  if (values[0]!.size === 0) return "";
  return vars.map((v, k) => `${v}=${valueSet(values[k]!)}`).join(" ");
}

/** One variable's values (a non-empty set) as the module comment says. */
function valueSet(set: Set<number>): string {
  const v = [...set].sort((a, b) => a - b);
  const first = v[0]!;
  const last = v[v.length - 1]!;
  if (v.length === 1) return String(first);
  if (last - first === v.length - 1) return `${first}..${last}`;
  if (v.length <= MAX_LISTED) return v.join(",");
  const step = v[1]! - first;
  const even = v.every((x, i) => x === first + i * step);
  return even ? `${first},${v[1]},...,${last}` : `${first}..${last} (${v.length} values)`;
}
