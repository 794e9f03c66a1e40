// Verification of an instantiated schedule against what it claims: the `implements` collective
// (DMAC3020, or DMAC3022/DMAC3023 when its buffers do not fit) and every `ensure` (DMAC3021),
// checked on the final state of the reference semantics (ir/interp.ts), run once. Also the
// circular-wait check (DMAC3018), which needs only program order.
//
// A failing check names the first wrong destination ranges (at most MAX_REPORTED per check, then
// "(N more)"), what each holds, what it should hold, and the op that last wrote it, with that op's
// statement as a related note; so a wrong offset in a loop points at the copy and the loop values.

import { foldCompare } from "../check/types.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { lineCol } from "../source/source-file.js";
import { diag, type Diagnostic, type Related } from "../diagnostics/diagnostic.js";
import { assertNever } from "../util/assert-never.js";
import { expectedOf } from "./collectives.js";
import { COLLECTIVES, isCollectiveName } from "../check/collectives.js";
import { keepReference, runReference, runReferenceSources } from "./interp.js";
import { formatRegion } from "./print.js";
import {
  COMPARE_OPS,
  describeBinding,
  OP_KINDS,
  opKind,
  type IrCollective,
  type IrModule,
  type IrRegion,
} from "./ir.js";
import { coalescedRange, type ProvenanceState, type Source } from "./provenance.js";
import { pushAll } from "../util/arrays.js";

const MAX_REPORTED = 3;

/** What a destination should hold: the initial bytes of a region, or a byte everywhere. */
type Expectation =
  | { readonly kind: "region"; readonly region: IrRegion }
  | { readonly kind: "byte"; readonly value: number };

interface Check {
  readonly dst: IrRegion;
  readonly expected: Expectation;
  /** The ensure instance's loop values ("" for collectives). */
  readonly binding: string;
}

/** A maximal destination range with one source run and one writer that is not as expected. */
interface WrongPiece {
  readonly dst: IrRegion;
  readonly holds: Source;
  readonly should: Source;
  readonly writer: number;
  readonly binding: string;
}

export function verifyModule(
  m: IrModule,
  file: SourceFile,
  opts: {
    readonly maxPieces?: number | undefined;
    /** Keep the reference run for the executor's final-state check (interp.ts referenceRun). */
    readonly keepReference?: boolean | undefined;
  } = {},
): Diagnostic[] {
  const out = checkCircularWaits(m, file);
  if (m.collective === undefined && m.ensures.length === 0) return out;
  const maxPieces = opts.maxPieces ?? Infinity;
  // The sources alone decide whether the postconditions hold; a failing one names the op that
  // last wrote each wrong range, which only the exact run says: made then.
  const state = runReferenceSources(m, maxPieces);
  if (opts.keepReference === true) keepReference(m, state);
  const tooLarge = (at: number): Diagnostic[] => {
    const span = m.stmts[m.ops.stmt[at]!]?.span;
    return [...out, diag("DMAC3025", span ? { file, span } : undefined, [String(maxPieces)])];
  };
  if (state.overAt !== undefined) return tooLarge(state.overAt);
  const found = checkPostconditions(m, file, state);
  if (found.length === 0 || state.writersExact) return [...out, ...found];
  // (The exact run may stop where the merged one did not: its pieces are finer. A partial state
  // is not checked: bytes its later ops write would read as wrong.)
  const exact = runReference(m, undefined, maxPieces);
  if (exact.overAt !== undefined) return tooLarge(exact.overAt);
  pushAll(out, checkPostconditions(m, file, exact));
  return out;
}

/** The collective's and every ensure's diagnostics on the final state `state`. */
function checkPostconditions(m: IrModule, file: SourceFile, state: ProvenanceState): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (m.collective !== undefined) pushAll(out, checkCollective(m, file, state, m.collective));
  pushAll(out, checkEnsures(m, file, state));
  return out;
}

function collectiveText(m: IrModule, c: IrCollective): string {
  const args = c.args.map((a) =>
    a.kind === "buffer" ? (m.buffers[a.id]?.name ?? `#${a.id}`) : String(a.value),
  );
  return `${c.name}(${args.join(", ")})`;
}

function checkCollective(
  m: IrModule,
  file: SourceFile,
  state: ProvenanceState,
  c: IrCollective,
): Diagnostic[] {
  const at = { file, span: c.span };
  const res = expectedOf(m, c);
  if (res.kind === "problem") {
    const p = res.problem;
    switch (p.kind) {
      case "size":
        return [diag("DMAC3022", at, [`${collectiveText(m, c)}: ${p.detail}`])];
      case "missing":
        return [
          diag("DMAC3023", at, [`buffer '${p.buffer}'`, p.rank], {
            hint: `${c.name} needs '${p.buffer}' on rank ${p.rank}; declare it without \`on\` to have it on every rank`,
          }),
        ];
      default:
        return assertNever(p, "collective problem");
    }
  }
  const checks: Check[] = res.pairs.map((pair) => ({
    dst: pair.dst,
    expected: { kind: "region", region: pair.src },
    binding: "",
  }));
  const wrong = findWrong(state, checks);
  if (wrong.total === 0 && wrong.unexamined === 0) return [];
  const summary = isCollectiveName(c.name) ? COLLECTIVES[c.name].summary : "";
  return [
    diag("DMAC3020", at, [collectiveText(m, c), describeWrong(m, file, wrong)], {
      hint: `${c.name} means ${summary}`,
      related: relatedNotes(m, file, wrong),
    }),
  ];
}

function checkEnsures(m: IrModule, file: SourceFile, state: ProvenanceState): Diagnostic[] {
  // One diagnostic per ensure statement, however many loop instances of it fail.
  const byStmt = new Map<number, Check[]>();
  for (const e of m.ensures) {
    const checks = byStmt.get(e.stmt) ?? [];
    checks.push({
      dst: e.dst,
      expected:
        e.expected.kind === "region" ? { kind: "region", region: e.expected.region } : e.expected,
      binding: describeBinding(m, e.stmt, e.bind),
    });
    byStmt.set(e.stmt, checks);
  }
  const out: Diagnostic[] = [];
  for (const [stmt, checks] of byStmt) {
    const wrong = findWrong(state, checks);
    if (wrong.total === 0 && wrong.unexamined === 0) continue;
    const span: Span = m.stmts[stmt]?.span ?? { start: 0, end: 0 };
    out.push(
      diag("DMAC3021", { file, span }, [describeWrong(m, file, wrong)], {
        related: relatedNotes(m, file, wrong),
      }),
    );
  }
  return out;
}

/** Wrong pieces kept for the report (the rest are counted). */
const MAX_WRONG_KEPT = 1000;
/** Pieces the detailed walk of failing checks may visit before it only counts the rest. */
const MAX_WRONG_WALK = 1_000_000;

interface Wrong {
  /** The first wrong pieces found (at most MAX_WRONG_KEPT), sorted by destination. */
  readonly pieces: WrongPiece[];
  /** Wrong pieces found in all (0: every check holds). */
  readonly total: number;
  /** Failing checks not walked piece by piece once MAX_WRONG_WALK was reached. */
  readonly unexamined: number;
}

const shifted = (s: Source, d: number): Source =>
  s.kind === "initial" && d !== 0 ? { ...s, offset: s.offset + d } : s;

/**
 * Every wrong piece of every check, sorted by destination (rank, buffer, offset). Near-linear:
 * each (rank, buffer) the checks read is coalesced once into runs of one source (whoever wrote
 * them), and a check whose range lies in one run that matches holds in O(log runs); only failing
 * checks are walked piece by piece, up to MAX_WRONG_WALK pieces, then only counted. (Checking each
 * ensure by walking its range made 10^4 ensures over a buffer written in 10^4 pieces 10^8 piece
 * visits, and kept every wrong one: 2.6 GB at 3,000.)
 */
function findWrong(state: ProvenanceState, checks: readonly Check[]): Wrong {
  const runsOf = new Map<
    string,
    { starts: Float64Array; runs: ReturnType<typeof coalescedRange> }
  >();
  const holds = (c: Check): boolean => {
    const { dst } = c;
    if (dst.len === 0) return true;
    const k = `${dst.rank}:${dst.buffer}`;
    let r = runsOf.get(k);
    if (r === undefined) {
      const size = state.bufferSizes[dst.buffer]!;
      const runs = coalescedRange(state, dst.rank, dst.buffer, 0, size, false);
      r = { starts: Float64Array.from(runs, (x) => x.start), runs };
      runsOf.set(k, r);
    }
    let lo = 0;
    let hi = r.runs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (r.starts[mid]! <= dst.offset) lo = mid;
      else hi = mid - 1;
    }
    const run = r.runs[lo]!;
    if (run.end < dst.offset + dst.len) return false;
    return sameSource(shifted(run.source, dst.offset - run.start), expectedAt(c.expected, 0));
  };
  const pieces: WrongPiece[] = [];
  let total = 0;
  let walked = 0;
  let unexamined = 0;
  for (const c of checks) {
    if (holds(c)) continue;
    if (walked >= MAX_WRONG_WALK) {
      unexamined++;
      continue;
    }
    const { dst } = c;
    const segs = coalescedRange(state, dst.rank, dst.buffer, dst.offset, dst.len);
    walked += segs.length;
    for (const s of segs) {
      const should = expectedAt(c.expected, s.start - dst.offset);
      if (sameSource(s.source, should)) continue;
      total++;
      if (pieces.length < MAX_WRONG_KEPT)
        pieces.push({
          dst: { rank: dst.rank, buffer: dst.buffer, offset: s.start, len: s.end - s.start },
          holds: s.source,
          should,
          writer: s.writer,
          binding: c.binding,
        });
    }
  }
  pieces.sort(
    (a, b) => a.dst.rank - b.dst.rank || a.dst.buffer - b.dst.buffer || a.dst.offset - b.dst.offset,
  );
  return { pieces, total, unexamined };
}

function expectedAt(e: Expectation, delta: number): Source {
  switch (e.kind) {
    case "region":
      return {
        kind: "initial",
        rank: e.region.rank,
        buffer: e.region.buffer,
        offset: e.region.offset + delta,
      };
    case "byte":
      return { kind: "byte", value: e.value };
    default:
      return assertNever(e, "expectation");
  }
}

function sameSource(a: Source, b: Source): boolean {
  if (a.kind === "initial") {
    return (
      b.kind === "initial" && a.rank === b.rank && a.buffer === b.buffer && a.offset === b.offset
    );
  }
  return b.kind === "byte" && a.value === b.value;
}

/** What `len` bytes at `at` hold (or should hold), in words. */
function describeSource(m: IrModule, s: Source, at: IrRegion): string {
  switch (s.kind) {
    case "initial":
      if (s.rank === at.rank && s.buffer === at.buffer && s.offset === at.offset)
        return "its own initial bytes";
      return `${formatRegion(m, { rank: s.rank, buffer: s.buffer, offset: s.offset, len: at.len })} (initial)`;
    case "byte":
      return `byte 0x${s.value.toString(16).padStart(2, "0")}`;
    default:
      return assertNever(s, "source");
  }
}

function opName(m: IrModule, op: number): string {
  const kind = opKind(m.ops, op);
  return kind === "bcast" ? "copy" : kind;
}

function writerText(m: IrModule, file: SourceFile, op: number): string {
  if (op < 0) return "never written";
  const stmt = m.ops.stmt[op]!;
  const span = m.stmts[stmt]?.span;
  const where =
    span === undefined
      ? ""
      : ` at ${lineCol(file, span.start).line}:${lineCol(file, span.start).col}`;
  const binding = describeBinding(m, stmt, m.ops.bind[op]!);
  return `written by ${opName(m, op)}${where}${binding === "" ? "" : " " + binding}`;
}

/**
 * A copy wrote the piece from exactly the bytes it should hold, but they had changed by then:
 * the copy read its source after an earlier operation overwrote it.
 */
function readAfterOverwrite(w: WrongPiece, m: IrModule): boolean {
  const t = m.ops;
  if (w.writer < 0 || opKind(t, w.writer) !== "copy" || w.should.kind !== "initial") return false;
  const delta = w.dst.offset - t.dstOff[w.writer]!;
  return (
    t.srcRank[w.writer] === w.should.rank &&
    t.srcBuf[w.writer] === w.should.buffer &&
    t.srcOff[w.writer]! + delta === w.should.offset
  );
}

/**
 * The mistakes behind wrong ranges, most telling first: each recognises a piece by how what it
 * holds differs from what it should hold, and says the usual slip in the source.
 */
const CAUSES: readonly {
  readonly is: (w: WrongPiece, m: IrModule) => boolean;
  readonly says: string;
}[] = [
  {
    is: readAfterOverwrite,
    says: "copies that read the right place after an earlier operation had overwritten it (a loop order that overwrites a chunk before it is sent on: reorder the loops or the copies)",
  },
  {
    is: (w) => w.writer < 0,
    says: "ranges never written (a loop that stops short, a `where` that skips too much, or an index with the wrong loop variable that sends the copies elsewhere)",
  },
  {
    is: (w) =>
      w.holds.kind === "initial" &&
      w.holds.rank === w.dst.rank &&
      w.should.kind === "initial" &&
      w.should.rank !== w.dst.rank,
    says: "data that never left its own rank (a destination written `@r` where `@p` was meant?)",
  },
  {
    is: (w) =>
      w.holds.kind === "initial" && w.should.kind === "initial" && w.holds.rank === w.should.rank,
    says: "the right rank's bytes from the wrong offset (an offset with the wrong loop variable, e.g. `p * chunk` for `r * chunk`?)",
  },
  {
    is: (w) =>
      w.holds.kind === "initial" &&
      w.should.kind === "initial" &&
      w.holds.offset === w.should.offset,
    says: "the right offset of the wrong rank (a rank index with the wrong loop variable?)",
  },
  {
    is: (w) => w.holds.kind === "initial" && w.should.kind === "initial",
    says: "bytes from another rank and offset (an index with the wrong loop variable or expression?)",
  },
  {
    is: (w) => w.holds.kind === "byte" && w.should.kind === "initial",
    says: "bytes a `fill` wrote (a fill over the wrong range?)",
  },
  { is: () => true, says: "the wrong byte values" },
];

/**
 * The cause most wrong pieces share, with how many ("likely cause: ... (12 of 56 wrong ranges).
 * "), or "" when no cause covers more than half of them: then the ranges speak for themselves.
 */
function likelyCause(m: IrModule, found: Wrong): string {
  const counts = CAUSES.map(() => 0);
  for (const w of found.pieces) counts[CAUSES.findIndex((c) => c.is(w, m))]!++;
  const best = counts.indexOf(Math.max(...counts));
  const kept = found.pieces.length;
  if (counts[best]! * 2 <= kept) return "";
  return `likely cause: ${CAUSES[best]!.says} (${counts[best]} of ${kept}${found.total > kept ? " examined" : ""} wrong ranges). `;
}

function describeWrong(m: IrModule, file: SourceFile, found: Wrong): string {
  const wrong = found.pieces;
  const parts = wrong.slice(0, MAX_REPORTED).map((w) => {
    const prefix = w.binding === "" ? "" : `${w.binding}: `;
    return (
      `${prefix}${formatRegion(m, w.dst)} holds ${describeSource(m, w.holds, w.dst)} ` +
      `(${writerText(m, file, w.writer)}) but should hold ${describeSource(m, w.should, w.dst)}`
    );
  });
  if (found.total > MAX_REPORTED) parts.push(`(${found.total - MAX_REPORTED} more)`);
  if (found.unexamined > 0)
    parts.push(`(and ${found.unexamined} more failing instances, not examined)`);
  return `${likelyCause(m, found)}${parts.join("; ")}`;
}

function relatedNotes(m: IrModule, file: SourceFile, found: Wrong): Related[] {
  const notes: Related[] = [];
  for (const w of found.pieces.slice(0, MAX_REPORTED)) {
    if (w.writer < 0) continue;
    const stmt = m.ops.stmt[w.writer]!;
    const span = m.stmts[stmt]?.span;
    if (span === undefined) continue;
    const binding = describeBinding(m, stmt, m.ops.bind[w.writer]!);
    notes.push({
      message: `${formatRegion(m, w.dst)} last written by this ${opName(m, w.writer)}${binding === "" ? "" : " " + binding}`,
      file,
      span,
    });
  }
  return notes;
}

/**
 * DMAC3018: a `when` on a signal that this schedule raises with `notify` (so nothing else is
 * assumed to raise it) whose condition does not hold at the count of notifies that precede it in
 * program order: the later notifies come after the wait, so the wait blocks forever. Signals the
 * schedule never notifies are raised by outside code and are not checked. One diagnostic per
 * `when` statement (its first failing instance).
 */
export function checkCircularWaits(m: IrModule, file: SourceFile): Diagnostic[] {
  if (m.signals.length === 0) return []; // (no signal, no wait: not a pass over every op)
  const t = m.ops;
  const total = new Map<number, number>();
  const key = (i: number): number => t.signal[i]! * m.ranks + t.sigRank[i]!;
  const notify = OP_KINDS.notify.code;
  for (let i = 0; i < t.count; i++) {
    if (t.kind[i] === notify) total.set(key(i), (total.get(key(i)) ?? 0) + 1);
  }
  if (total.size === 0) return [];
  const seen = new Map<number, number>();
  const reported = new Set<number>();
  const out: Diagnostic[] = [];
  for (let i = 0; i < t.count; i++) {
    const kind = opKind(t, i);
    if (kind === "notify") {
      seen.set(key(i), (seen.get(key(i)) ?? 0) + 1);
      continue;
    }
    if (kind !== "wait") continue;
    const all = total.get(key(i)) ?? 0;
    if (all === 0) continue;
    const before = seen.get(key(i)) ?? 0;
    const op = COMPARE_OPS[t.cmp[i]!]!;
    const want = t.value[i]!;
    if (foldCompare(before, op, want) || reported.has(t.stmt[i]!)) continue;
    reported.add(t.stmt[i]!);
    const sig = `${m.signals[t.signal[i]!]?.name ?? `#${t.signal[i]}`}@${t.sigRank[i]}`;
    const binding = describeBinding(m, t.stmt[i]!, t.bind[i]!);
    const detail =
      `${sig} ${op} ${want} never holds${binding === "" ? "" : ` ${binding}`}: only this schedule raises ${sig}, ` +
      `and ${before} of its ${all} notifies come before this wait in program order, so it sees ${sig} = ${before}`;
    out.push(
      diag(
        "DMAC3018",
        { file, span: m.stmts[t.stmt[i]!]?.span ?? { start: 0, end: 0 } },
        [detail],
        {
          hint: `move the notifies this wait needs before the \`when\`, or wait for a count they reach`,
        },
      ),
    );
  }
  return out;
}
