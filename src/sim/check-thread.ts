// The checks of a run on another thread (checker.ts, check-log.ts): what the event loop sends that
// thread (its program without functions, the log's shared memory) and what the thread does with
// it. Plain data both ways: the thread itself is the session's (sim/session/helper.ts), which
// already holds the run's IR.

import { DIAGNOSTICS } from "../diagnostics/codes.js";
import type { IrModule } from "../ir/ir.js";
import {
  checkEnd,
  createCheckState,
  type CheckResult,
  type CheckState,
  type FinalCheck,
  type RawReport,
} from "./checker.js";
import { LogReader, whereToken, type LogEnd, type LogMemory } from "./check-log.js";
import { checkMemory } from "./exec-state.js";
import type { MeaningParts, PackedProgram } from "./program.js";
import { validateManifestModule, type ManifestShape } from "./validate-input.js";
import type { WordRegions } from "./regions.js";

/** The program as sent: no source locator, no word-region namer, the meaning without its IR. */
export type SentProgram = Omit<PackedProgram, "locate" | "meaning" | "wordRegions"> & {
  readonly wordRegions: Omit<WordRegions, "region"> | undefined;
  readonly meaning: MeaningParts | undefined;
};

export interface ChecksRequest {
  readonly kind: "checks";
  readonly program: SentProgram;
  readonly log: LogMemory;
  readonly maxRaces: number;
  /** The run started before its IR came (run.ts runBeforeModule). */
  readonly early?: EarlyChecks | undefined;
}

/**
 * For a run started before its IR came: the meaning's own parts (the program has no meaning yet),
 * and what the IR must match of the manifest (validateManifestModule) before the checks use it.
 */
export interface EarlyChecks {
  readonly meaning: MeaningParts;
  readonly shape: ManifestShape;
}

export interface ChecksReply {
  readonly kind: "checks";
  readonly reports: RawReport[];
  readonly at: number[];
  readonly finalState: string[] | undefined;
}

/** The request for p's run (its typed arrays are copied by postMessage, or shared). */
export function checksRequest(
  p: PackedProgram,
  log: LogMemory,
  maxRaces: number,
  early?: EarlyChecks,
): ChecksRequest {
  const { locate: _l, meaning, wordRegions, ...rest } = p;
  let words: SentProgram["wordRegions"];
  if (wordRegions) {
    const { region: _r, ...columns } = wordRegions;
    words = columns;
  }
  return {
    kind: "checks",
    program: {
      ...rest,
      wordRegions: words,
      meaning: meaning
        ? { signals: meaning.signals, slotOwner: meaning.slotOwner }
        : early?.meaning,
    },
    log,
    maxRaces,
    early,
  };
}

/** The checks of one run on the reading side: their state, the log's reader, what they found. */
export interface ChecksSession {
  readonly state: CheckState;
  readonly reader: LogReader;
  readonly reports: RawReport[];
  readonly at: number[];
}

/**
 * The checks of `req`'s run over the program and `ir` (the run's IR, when known), reading its
 * log; `finalCheck`: the final state's check, given the IR.
 */
export function startChecks(
  req: ChecksRequest,
  ir: IrModule | undefined,
  finalCheck: FinalCheck | undefined,
): ChecksSession {
  const sent = req.program;
  // An IR that does not match the manifest is not used: the other thread reports the mismatch
  // alone and drops this run (run.ts runBeforeModule).
  const module =
    ir && req.early && validateManifestModule(req.early.shape, { module: ir }) ? undefined : ir;
  const p: PackedProgram = {
    ...sent,
    wordRegions: sent.wordRegions && {
      ...sent.wordRegions,
      region: () => {
        throw new Error("check thread: word regions are named on the event loop's thread");
      },
    },
    meaning: sent.meaning && module ? { ...sent.meaning, module } : undefined,
  };
  const { cmdBase, mem } = checkMemory(p);
  const reports: RawReport[] = [];
  const at: number[] = [];
  const state = createCheckState({
    p,
    mem,
    cmdBase,
    maxRaces: req.maxRaces,
    syncTrace: false,
    report: (code, args, hint) => {
      reports.push({ code, args: [...args], hint });
      at.push(state.call);
    },
    where: whereToken,
    finalCheck: p.meaning ? finalCheck : undefined,
    // (This state never leaves the thread: the final-state check names writers from the
    // access maps.)
    provWriters: false,
  });
  return { state, reader: new LogReader(req.log, state), reports, at };
}

/** The end of the run's checks, once the log's END was replayed. */
export function endChecks(c: ChecksSession, end: LogEnd): ChecksReply {
  // The loop's errors and the checks' own make the run unclean, as inline (checker.ts).
  const own = c.reports.some((r) => DIAGNOSTICS[r.code].severity === "error");
  const { finalState } = checkEnd(c.state, end.completed, end.completed && !end.mainErrors && !own);
  return { kind: "checks", reports: c.reports, at: c.at, finalState };
}

/** What the event loop's side makes of a reply: findings to merge, the final state's. */
export function checkResultOf(r: ChecksReply): CheckResult {
  return {
    found: { reports: r.reports, at: r.at },
    finalState: r.finalState,
    prov: undefined,
    syncTrace: undefined,
  };
}

/** The checks of `req`'s run, replayed as the log comes (on the helper thread) to its end. */
export function serveChecks(
  req: ChecksRequest,
  module: IrModule | undefined,
  finalCheck: FinalCheck | undefined,
): ChecksReply {
  const c = startChecks(req, module, finalCheck);
  return endChecks(c, c.reader.toEnd());
}
