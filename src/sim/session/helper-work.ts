// The helper thread's side of helper.ts: builds a source's IR and sends it back, then runs
// the checks of the run (src/sim/check-thread.ts) over it when asked.

import type { IrModule } from "../../ir/ir.js";
import { serveChecks, type ChecksRequest } from "../check-thread.js";
import type { ProvenanceState } from "../../ir/provenance.js";
import { prepareParsing } from "../../frontend/parse.js";
import { referenceRun } from "../../ir/interp.js";
import type { FinalCheck } from "../checker.js";
import { finalStateProblems } from "../postcondition.js";
import { buildSourceModule, type SourceRequest } from "./front-end.js";
import type { HelperReply } from "./helper.js";

/** The IR built here, kept for the checks, and its reference run (ir/interp.ts). */
let built: IrModule | undefined;
let reference: ProvenanceState | undefined;

/**
 * What the front end builds once per process (the parser), made while the thread waits for its
 * first request (helper-thread.ts): the request then finds it built.
 */
export function prepare(): void {
  prepareParsing();
}

/**
 * The module goes to the calling thread with its typed arrays in shared memory: both threads read
 * the same IR (the checks, served next, run over it here). The op table and the loop values, its
 * bulk, are built there; anything else is copied there once.
 */
export function serveFrontEnd(req: SourceRequest, post: (reply: HelperReply) => void): void {
  const source = buildSourceModule(req, true);
  built = source.module;
  shareArrays(built);
  post({ kind: "module", source });
  // While the other thread decodes the streams: the final state it will be checked against.
  if (built) reference = referenceRun(built);
}

/** Every typed array under `root` (plain objects and arrays walked) moved to shared memory. */
function shareArrays(root: unknown): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const x = o[key];
      if (!ArrayBuffer.isView(x)) stack.push(x);
      else if (!(x instanceof DataView) && x.buffer instanceof ArrayBuffer) {
        const t = x as unknown as Float64Array;
        const copy = new (t.constructor as Float64ArrayConstructor)(
          new SharedArrayBuffer(t.byteLength),
        );
        copy.set(t);
        o[key] = copy;
      }
    }
  }
}

/** The checks of a run, over the module built here. */
export function serveCheckRequest(req: ChecksRequest, post: (reply: HelperReply) => void): void {
  const m = built;
  const want = reference;
  const finalCheck: FinalCheck | undefined =
    m && want && ((prov, p, where) => finalStateProblems(m, prov, p, where, want));
  post(serveChecks(req, m, finalCheck));
}
