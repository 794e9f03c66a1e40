// The IR that `dmac sim` checks a compiled output against: the source its manifest or trace
// names, rebuilt through the front end (no lowering). It depends only on the source, never on
// the streams, so `dmac sim DIR` has it built on a helper thread (sim-helper.ts) while it reads
// the streams; a FrontEndJob is either that or the same work done here, on the calling thread.

import { dirname } from "node:path";
import { checkBuffersFit } from "../../backend/sdma/layout.js";
import { DEFAULT_MAX_PACKETS } from "../../driver/compile.js";
import { checkSource } from "../../check/check-source.js";
import { selectSchedule } from "../../check/select-schedule.js";
import { diag, hasErrors, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { DEFAULT_MAX_SOURCE_BYTES } from "../../frontend/parse.js";
import type { IrModule } from "../../ir/ir.js";
import { analyzeSchedule } from "../../driver/analyze.js";
import { countDataPackets } from "../../queues/lower.js";
import type { SourceFile } from "../../source/source-file.js";
import type { ExecOptions } from "../../sim/execute.js";
import type { Target } from "../../target/target.js";
import { pushAll } from "../../util/arrays.js";
import { readSourceFile } from "../../options/options.js";

/** The IR recompiled from a manifest's or trace's source, or why there is none. */
export interface SourceModule {
  readonly module?: IrModule | undefined;
  readonly unchecked?: string | undefined;
  /** The source path as shown in messages (relative to the working directory). */
  readonly shown?: string | undefined;
}

/** A source found on disk, and how the output says to build it (plain data: sent to a thread). */
export interface SourceRequest {
  readonly path: string;
  readonly shown: string;
  readonly defines: Record<string, string>;
  readonly schedule: string;
  readonly target: Target | undefined;
}

/**
 * The IR of a request's source, or why it cannot be built (see frontEndModule); `shared`: its
 * typed arrays in shared memory.
 */
export function buildSourceModule(req: SourceRequest, shared = false): SourceModule {
  const { path, shown } = req;
  const read = readSourceFile(path, DEFAULT_MAX_SOURCE_BYTES);
  if (!read.file)
    return {
      unchecked: `cannot read its source ${shown}: ${read.diagnostics[0]?.message ?? "unreadable"}`,
      shown,
    };
  const q = frontEndModule(read.file, {
    defines: req.defines,
    schedule: req.schedule,
    baseDir: dirname(path),
    targetOverride: req.target,
    shared,
  });
  if (q.module) return { module: q.module, shown };
  const first = q.diagnostics.find((d) => d.severity === "error");
  return {
    unchecked: `its source ${shown} does not compile with the recorded schedule and parameters${
      first ? ` (${first.code} ${first.message})` : ""
    }`,
    shown,
  };
}

/** The source module of a request, as it becomes known: `module()` waits for it (on a helper
 * thread) or has it already (built on the calling thread). */
export interface FrontEndJob {
  /** The source's path as shown in messages, known at once. */
  readonly shown: string | undefined;
  module(): SourceModule;
  /** The run's checks on the thread that built the module (sim-helper.ts); absent: here. */
  readonly checks?: ExecOptions["checks"];
  /** The thread may go (the run is over). */
  release?(): void;
}

/** The job done on the calling thread, now (as before threads). */
export function inlineFrontEnd(req: SourceRequest): FrontEndJob {
  const source = buildSourceModule(req);
  return { shown: req.shown, module: () => source };
}

/**
 * The IR of a source as `dmac compile` would build it, without lowering or passes: the executor
 * only needs the module (reference semantics, meaning checks). The checks `compileToQueues` makes
 * after the front end without building anything (buffers fit a GPU's window, the data packets
 * lowering would make are within the default --max-packets) are kept, so a source that no longer
 * compiles is refused with the same first error as before. Dependency edges are not inferred, so
 * compile's bound on them (DMAC3024) is the one check not repeated here.
 */
export function frontEndModule(
  file: SourceFile,
  opts: {
    readonly defines: Record<string, string>;
    readonly schedule: string;
    readonly baseDir: string;
    readonly targetOverride: Target | undefined;
    /** The module's typed arrays in shared memory (built on a thread for another). */
    readonly shared?: boolean | undefined;
  },
): { module: IrModule | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const done = (module?: IrModule) => ({ module, diagnostics: sortDiagnostics(diagnostics) });
  const checked = checkSource(file, opts);
  pushAll(diagnostics, checked.diagnostics);
  if (hasErrors(diagnostics)) return done();
  const selected = selectSchedule(checked.schedules, opts.schedule);
  pushAll(diagnostics, selected.diagnostics);
  if (!selected.schedule || hasErrors(diagnostics)) return done();
  // No dependency edges: the executor's checks never read them (src/driver/analyze.ts).
  // (Verification's reference run is kept: the final state is checked against it.)
  const analyzed = analyzeSchedule(selected.schedule, {
    edges: false,
    keepReference: true,
    shared: opts.shared,
  });
  pushAll(diagnostics, analyzed.diagnostics);
  const module = analyzed.module;
  if (!module || hasErrors(diagnostics)) return done();
  pushAll(diagnostics, checkBuffersFit(module, file));
  if (hasErrors(diagnostics)) return done();
  const target = selected.schedule.target;
  const count = countDataPackets(module, target, {}, DEFAULT_MAX_PACKETS);
  if (count.over !== undefined) {
    const stmt = module.stmts[module.ops.stmt[count.over]!];
    diagnostics.push(
      diag("DMAC4010", stmt ? { file, span: stmt.span } : undefined, [
        `the schedule lowers to more than ${DEFAULT_MAX_PACKETS} data packets (copies split at ${String(target.limits.maxCopyBytes)} bytes); this operation crosses the limit (--max-packets raises it)`,
      ]),
    );
    return done();
  }
  return done(module);
}
