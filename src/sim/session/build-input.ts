// The session's build step (session.ts): a manifest or trace, read, becomes the executor's input.
// The document is validated before anything it names is read (src/sim/validate-input.ts); then
// its target, its packet streams (each exactly the dwords the manifest declares; packets counted
// before anything is decoded, --max-packets) and the IR of the source it names, rebuilt through
// the front end (front-end.ts) with its parameters, schedule and --target file: on the helper
// thread when there is one (helper.ts), else here.

import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Manifest } from "../../backend/sdma/manifest.js";
import { countEntries } from "../../backend/sdma/decode.js";
import type { Trace } from "../../backend/trace/trace.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { TypeName } from "../../frontend/ast.js";
import { builtinTarget, type Target } from "../../target/target.js";
import { InputFileError, readInputFile, regularFileSize } from "../../util/read-input.js";
import { readErrorReason, readTargetOption } from "../../options/options.js";
import {
  DEFAULT_SIM_MAX_PACKETS,
  tooManyPackets,
  type LoadedInput,
  type SimCompileOptions,
} from "../loaded-input.js";
import { validateManifest } from "../validate-input.js";
import { validateTrace } from "../validate-trace.js";
import { inlineFrontEnd, type FrontEndJob, type SourceModule } from "./front-end.js";
import type { SimHelper } from "./helper.js";
import type { JsonInput } from "./read-json.js";

/** A bad option or input: DMAC5004 naming it. */
export function badOption(option: string, detail: string): Diagnostic {
  return diag("DMAC5004", undefined, [option, detail]);
}

/**
 * The largest manifest.json or trace.json `dmac sim` reads (see docs/safety.md): what compile's
 * default limits can produce (4M packets with conservative sync: ~320-480 MB), below V8's
 * longest string (2^29 - 24 characters), which a manifest without its sidecar is parsed as.
 */
export const MAX_SIM_JSON_BYTES = 500 << 20;
/** The largest packet stream file `dmac sim` reads: compile's default --max-stream-bytes. */
export const MAX_SIM_STREAM_BYTES = 256 << 20;

/** A path for messages: relative to the working directory unless that climbs out of it. */
export function shownPath(path: string): string {
  const r = relative(process.cwd(), path);
  return r === "" || r.startsWith("..") || isAbsolute(r) ? path : r;
}

/**
 * Where to look for the source a manifest or trace names. Outputs that record `targetFile` (this
 * dmac and later) store the source path relative to their own directory; older ones stored it
 * as given to the compiler, relative to the compile's working directory, so for them the working
 * directory is tried first, then the document's directory.
 */
function sourceCandidates(recorded: string, docDir: string, relativeToDoc: boolean): string[] {
  if (isAbsolute(recorded)) return [recorded];
  const here = join(docDir, recorded);
  return relativeToDoc ? [here] : [...new Set([resolve(recorded), resolve(here)])];
}

/**
 * The IR of the source named by a manifest/trace, built with its parameters and schedule (and
 * the target file it was compiled with, if any), for the postcondition: found here, built on the
 * helper thread when there is one (helper.ts). Nothing found, a file that is not a regular
 * file or too large, or a source that no longer compiles that way: no module, and the reason
 * (dmac sim then fails unless --no-verify).
 */
function moduleFor(
  sourceFile: string | null | undefined,
  docDir: string,
  relativeToDoc: boolean,
  params: readonly { name: string; type: TypeName; value: number | boolean }[],
  schedule: string,
  target: Target | undefined,
  helper: SimHelper | undefined,
): FrontEndJob {
  const none = (source: SourceModule): FrontEndJob => ({
    shown: source.shown,
    module: () => source,
  });
  if (!sourceFile) return none({ unchecked: "it does not name its source file" });
  const candidates = sourceCandidates(sourceFile, docDir, relativeToDoc);
  let path: string | undefined;
  for (const c of candidates) {
    try {
      regularFileSize(c);
      path = c;
      break;
    } catch (e) {
      if (!(e instanceof InputFileError) || e.code !== "ENOENT")
        return none({
          unchecked: `cannot read its source ${shownPath(c)}: ${readErrorReason(e)}`,
          shown: shownPath(c),
        });
    }
  }
  if (path === undefined)
    return none({
      unchecked: `its source ${JSON.stringify(sourceFile)} was not found (looked for ${candidates.map(shownPath).join(" and ")})`,
    });
  // Each parameter as a constant of its own type: `B` marks byte counts.
  const defines = Object.fromEntries(
    params.map((p) => [p.name, p.type === "bytes" ? `${String(p.value)}B` : String(p.value)]),
  );
  const req = { path, shown: shownPath(path), defines, schedule, target };
  return helper ? helper.frontEnd(req) : inlineFrontEnd(req);
}

/** Every path a manifest or trace may read besides itself: source, target file, packet streams. */
function namedFiles(
  doc: {
    sourceMap?: { file?: unknown };
    source?: unknown;
    targetFile?: unknown;
    queues?: readonly { file?: unknown }[];
  },
  docDir: string,
): string[] {
  const out: string[] = [];
  const src = doc.sourceMap?.file ?? doc.source;
  if (typeof src === "string") out.push(...sourceCandidates(src, docDir, false));
  for (const q of doc.queues ?? []) if (typeof q.file === "string") out.push(join(docDir, q.file));
  if (typeof doc.targetFile === "string") out.push(recordedTargetPath(doc.targetFile, docDir));
  return out;
}

/** A recorded `targetFile` is relative to the manifest or trace that records it. */
function recordedTargetPath(targetFile: string, docDir: string): string {
  return isAbsolute(targetFile) ? targetFile : join(docDir, targetFile);
}

/**
 * The target a manifest or trace was compiled with when it records a target file (`targetFile`,
 * relative to the document): loaded for the recompile and, without --target, for the run; or
 * the target the compile was told to use instead of the source's own, if any: a recorded
 * --target file, or a built-in one recorded by name (`targetBuiltin`).
 */
function recordedTarget(
  doc: { readonly targetFile?: unknown; readonly targetBuiltin?: unknown },
  docDir: string,
): { target: Target | undefined; diagnostics: Diagnostic[] } {
  if (typeof doc.targetFile === "string")
    return readTargetOption(shownPath(recordedTargetPath(doc.targetFile, docDir)));
  const builtin =
    typeof doc.targetBuiltin === "string" ? builtinTarget(doc.targetBuiltin) : undefined;
  if (typeof doc.targetBuiltin === "string" && !builtin)
    return { target: undefined, diagnostics: [diag("DMAC2006", undefined, [doc.targetBuiltin])] };
  return { target: builtin, diagnostics: [] };
}

/**
 * The session's build step for a manifest or trace, read (read-json.ts): validated, its target
 * found, its streams read and counted, and the IR of its source asked for (of the helper thread,
 * when there is one: `helper`).
 */
export function buildJsonInput(
  p: string,
  read: JsonInput,
  opts: SimCompileOptions & { readonly verify?: boolean | undefined },
  helper: SimHelper | undefined,
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  const verify = opts.verify !== false;
  const { json, bytes, sidecar, diagnostics } = read;
  if (json === undefined) return { loaded: undefined, diagnostics };
  const kind =
    typeof json === "object" && json !== null ? (json as { kind?: unknown }).kind : undefined;
  const dir = dirname(p);
  if (kind === "dmac-manifest") {
    // Validated before its queue files are read or its source recompiled (src/sim/validate-input.ts).
    const invalid = validateManifest(json, { file: p, fileBytes: bytes, sidecar });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const manifest = json as Manifest;
    const recorded = recordedTarget(manifest, dir);
    if (recorded.diagnostics.length > 0)
      return { loaded: undefined, diagnostics: recorded.diagnostics };
    const target = opts.target ?? recorded.target ?? builtinTarget(manifest.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [manifest.target])] };
    const streams = new Map<string, Uint32Array>();
    for (const [i, q] of manifest.queues.entries()) {
      const file = join(dir, q.file);
      let size: number | undefined;
      try {
        // Checked before reading: the file must be exactly the dwords the manifest declares.
        const b = readInputFile(
          file,
          { maxBytes: MAX_SIM_STREAM_BYTES, what: "a packet stream" },
          (n) => (n === q.dwords * 4 ? undefined : ((size = n), "wrong size")),
        );
        if (b.byteLength !== q.dwords * 4) size = b.byteLength; // shrank while read
        if (size !== undefined) throw new Error("wrong size");
        streams.set(
          q.file,
          b.byteOffset % 4 === 0
            ? new Uint32Array(b.buffer, b.byteOffset, q.dwords)
            : new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
        );
      } catch (e) {
        const d =
          size !== undefined
            ? diag("DMAC6011", undefined, [
                p,
                `$.queues[${i}].dwords`,
                `${q.dwords} dwords (${q.dwords * 4} bytes), but ${q.file} is ${size} bytes`,
              ])
            : diag("DMAC5001", undefined, [file, readErrorReason(e)]);
        return { loaded: undefined, diagnostics: [d] };
      }
    }
    // Counted from the headers before anything is decoded or run.
    const maxPackets = opts.maxPackets ?? DEFAULT_SIM_MAX_PACKETS;
    let packets = 0;
    for (const words of streams.values()) {
      packets += countEntries(words, maxPackets - packets);
      if (packets > maxPackets)
        return {
          loaded: undefined,
          diagnostics: [tooManyPackets(`the streams of ${p} hold`, maxPackets)],
        };
    }
    // The IR comes later (helper thread): simulate() takes it once it has built the program.
    const job = verify
      ? moduleFor(
          manifest.sourceMap.file,
          dir,
          manifest.targetFile !== undefined,
          manifest.params,
          manifest.schedule,
          recorded.target,
          helper,
        )
      : undefined;
    // Source positions in reports name the file as found from here, not as recorded.
    const shown =
      job?.shown !== undefined
        ? { ...manifest, sourceMap: { ...manifest.sourceMap, file: job.shown } }
        : manifest;
    return {
      loaded: {
        input: {
          manifest: shown,
          streams,
          validated: true,
          ...(job && {
            frontEnd: {
              module: () => job.module().module,
              checks: job.checks,
              release: () => job.release?.(),
            },
          }),
          get module() {
            return job?.module().module;
          },
        },
        target,
        file: p,
        get unchecked() {
          return job ? job.module().unchecked : "--no-verify";
        },
        reads: namedFiles(manifest, dir),
      },
      diagnostics: [],
    };
  }
  if (kind === "dmac-trace") {
    const invalid = validateTrace(json, { file: p, fileBytes: bytes });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const trace = json as Trace;
    const maxPackets = opts.maxPackets ?? DEFAULT_SIM_MAX_PACKETS;
    let commands = 0;
    for (const q of trace.queues) commands += q.cmds.length;
    if (commands > maxPackets)
      return { loaded: undefined, diagnostics: [tooManyPackets(`${p} has`, maxPackets)] };
    const recorded = recordedTarget(trace, dir);
    if (recorded.diagnostics.length > 0)
      return { loaded: undefined, diagnostics: recorded.diagnostics };
    const target = opts.target ?? recorded.target ?? builtinTarget(trace.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [trace.target])] };
    const source = verify
      ? moduleFor(
          trace.source,
          dir,
          trace.targetFile !== undefined,
          trace.params,
          trace.schedule,
          recorded.target,
          undefined,
        ).module()
      : { unchecked: "--no-verify" };
    return {
      loaded: {
        input: { trace, module: source.module },
        target,
        file: p,
        unchecked: source.unchecked,
        reads: namedFiles(trace as { source?: unknown; targetFile?: unknown }, dir),
      },
      diagnostics: [],
    };
  }
  return {
    loaded: undefined,
    diagnostics: [
      badOption("input", `${p} is neither a .dmac file, a dmac manifest nor a dmac trace`),
    ],
  };
}
