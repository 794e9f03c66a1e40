// The back end's outputs of a compiled schedule, as a pure function (no I/O): buildOutputs lays
// the program out and emits SDMA packets, the manifest, and on request dump.txt and trace.json,
// as a list of (file name, contents) in a fixed order (dump.txt is streamed as it is written).
// It stops at the first phase that reports an error.

import { hasErrors, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { describeInstances, irBindings } from "../ir/instances.js";
import type { QueueProgram } from "../queues/queue-program.js";
import { lineText, type SourceFile } from "../source/source-file.js";
import { disassembleInto, TextSink } from "../backend/sdma/disasm.js";
import {
  listingHeader,
  makeListing,
  QueueAnnotator,
  type Listing,
} from "../backend/sdma/listing.js";
import type { PackedRows } from "../backend/sdma/packed-rows.js";
import { emitSdma, streamBytes } from "../backend/sdma/emit.js";
import {
  DEFAULT_LAYOUT,
  layoutProgram,
  type Layout,
  type LayoutConfig,
} from "../backend/sdma/layout.js";
import {
  buildPackedManifest,
  formatJsonBytes,
  manifestOutputs,
  manifestMemory,
  sourceStmts,
  type RecordedPaths,
} from "../backend/sdma/manifest.js";
import { SIDECAR_FILE } from "../backend/sdma/manifest-sidecar.js";
import { emitTrace } from "../backend/trace/trace.js";
import type { OutputFile } from "../backend/output.js";
import { StreamedData } from "../util/streamed-data.js";
import { pushAll } from "../util/arrays.js";
import type { QueuesResult } from "./compile.js";

/** What `--emit` can ask for: sdma (manifest.json + .bin streams), dump (dump.txt, the listing
 * of the streams), trace (trace.json). Each names its own files; the order is the file order. */
export type EmitKind = "sdma" | "dump" | "trace";
export const EMIT_KINDS: readonly EmitKind[] = ["sdma", "dump", "trace"];

export interface OutputOptions {
  readonly emit: readonly EmitKind[];
  readonly layout?: LayoutConfig | undefined;
  readonly maxStreamBytes?: number | undefined;
  /**
   * The source and --target file as the manifest and trace record them (relative to the output
   * directory: `dmac compile -o`); absent: the source name as given, and no `targetFile`.
   */
  readonly paths?: RecordedPaths | undefined;
  /** dump.txt in the plain form (addresses in hex, no source lines): `dmac compile --raw`. */
  readonly rawDump?: boolean | undefined;
}

interface DumpQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly words: Uint32Array;
  /** The queue's source-map entries (annotated listings print source lines from them). */
  readonly sourceMap: PackedRows;
}

/** The listing of the streams (dump.txt), produced chunk by chunk as it is written; annotated
 * (listing.ts) unless `listing` is undefined (--raw). */
function dumpFile(queues: readonly DumpQueue[], listing: Listing | undefined): StreamedData {
  return new StreamedData((write) => {
    // 4 MiB chunks: the listing is assembled as bytes (UTF-8), never as strings, and never whole.
    const out = new TextSink(1 << 22, write);
    if (listing) out.text(listingHeader(listing));
    for (const q of queues) {
      out.text(
        `# queue ${q.name}: gpu ${q.gpu}, engine ${q.engine}, ${q.words.length} dwords (${q.name}.bin)\n`,
      );
      const hooks = listing ? new QueueAnnotator(listing, q.sourceMap) : undefined;
      disassembleInto(out, q.words, { hooks });
      out.text("\n");
    }
    out.end();
  });
}

/** What the annotated dump.txt knows: the manifest's memory, trigger and source map, and the
 * source text itself (in memory: it cannot be missing or changed). */
function compileListing(file: SourceFile, m: IrModule, p: QueueProgram, layout: Layout): Listing {
  const bindings = irBindings(m);
  return makeListing({
    memory: manifestMemory(m, p, layout),
    trigger:
      p.trigger && layout.triggerAddr !== null
        ? { address: layout.triggerAddr, value: p.trigger.value }
        : null,
    sourceFile: file.name,
    stmts: sourceStmts(m, file),
    sourceLine: (line) => (line <= file.lineStarts.length ? lineText(file, line) : undefined),
    instances: (stmt, ops) => describeInstances(bindings, stmt, ops),
  });
}

export function buildOutputs(
  file: SourceFile,
  compiled: NonNullable<QueuesResult["compiled"]>,
  opts: OutputOptions,
): { diagnostics: Diagnostic[]; files: OutputFile[] | undefined } {
  const { module: m, program: p, target } = compiled;
  const laid = layoutProgram(m, p, file, opts.layout ?? DEFAULT_LAYOUT);
  if (!laid.layout) return { diagnostics: laid.diagnostics, files: undefined };
  const layout = laid.layout;
  const files: OutputFile[] = [];
  const diagnostics = [...laid.diagnostics];
  if (opts.emit.includes("sdma") || opts.emit.includes("dump")) {
    let emitted: ReturnType<typeof emitSdma> | undefined = emitSdma(p, m, layout, file, {
      maxStreamBytes: opts.maxStreamBytes,
    });
    pushAll(diagnostics, emitted.diagnostics);
    if (hasErrors(diagnostics))
      return { diagnostics: sortDiagnostics(diagnostics), files: undefined };
    const queues: DumpQueue[] = emitted.queues.map(({ name, gpu, engine, words, sourceMap }) => ({
      name,
      gpu,
      engine,
      words,
      sourceMap,
    }));
    if (opts.emit.includes("sdma")) {
      const { json, sidecar } = manifestOutputs(
        buildPackedManifest(m, p, layout, emitted.queues, file, target.name, opts.paths),
      );
      files.push({ name: "manifest.json", data: json });
      // The manifest's bulky arrays in binary, for `dmac sim DIR` (manifest-sidecar.ts).
      files.push({ name: SIDECAR_FILE, data: sidecar });
    }
    // Memory: drop the packet objects (millions at 10^6 operations) before the outputs are
    // written; garbage collection of a near-full heap was most of the time of big compiles
    // (docs/performance.md). The relocations and source map stay, typed arrays held by the
    // streamed manifest until it is written.
    emitted = undefined;
    if (opts.emit.includes("sdma"))
      for (const q of queues) files.push({ name: `${q.name}.bin`, data: streamBytes(q.words) });
    if (opts.emit.includes("dump")) {
      const listing = opts.rawDump === true ? undefined : compileListing(file, m, p, layout);
      files.push({ name: "dump.txt", data: dumpFile(queues, listing) });
    }
  }
  if (opts.emit.includes("trace")) {
    files.push({
      name: "trace.json",
      data: formatJsonBytes(emitTrace(m, p, layout, target.name, opts.paths)),
    });
  }
  return { diagnostics: sortDiagnostics(diagnostics), files };
}
