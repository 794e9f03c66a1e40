// `dmac disasm FILE.bin [--json] [--raw] [--manifest M] [--base-offset N]`: decodes any gfx942
// SDMA stream (little-endian dwords) and prints the listing on stdout (or, with --json, one JSON
// document of the decoded packets and problems). Beside the manifest that lists it (--manifest, or
// manifest.json in the stream's directory) the listing is annotated (src/backend/sdma/listing.ts:
// names, sizes, source lines, warnings; disasm-listing.ts finds them); --raw, or no manifest,
// gives the plain listing. A manifest that cannot be used is a DMAC4106 warning. Unknown packets, truncated packets, reserved bits and huge addresses are
// warnings (DMAC4101..DMAC4104) with their byte offsets; a file size that is not a multiple of 4
// is reported as a truncated tail. Input that is evidently not a packet stream (text, or more
// problems than --max-problems) is DMAC4105: the first problems, the listing up to where decoding
// stopped, exit 1. Exit 0 otherwise, unless the file cannot be read (DMAC5001) or an option is
// bad (DMAC5004): exit 1.

import type { Command } from "commander";
import { lengthAt, lookupHeader } from "../../backend/sdma/bitfield.js";
import { scanStream, type DecodedEntry, type StreamProblem } from "../../backend/sdma/decode.js";
import { readInputFile } from "../../util/read-input.js";
import { disassemble, disassembleInto, TextSink } from "../../backend/sdma/disasm.js";
import { listingHeader, QueueAnnotator } from "../../backend/sdma/listing.js";
import { PACKET_NAME } from "../../backend/sdma/packets.js";
import { findListing, type StreamListing } from "./disasm-listing.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import { parsePositiveInt, readErrorReason } from "../../options/options.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";

export interface DisasmCommandOptions extends DiagnosticOutput {
  readonly json?: boolean | undefined;
  readonly baseOffset?: string | undefined;
  readonly maxProblems?: string | undefined;
  readonly raw?: boolean | undefined;
  readonly manifest?: string | undefined;
}

/** Problems (DMAC4101..4104) after which disasm decides the input is not a stream it can read. */
export const DEFAULT_MAX_PROBLEMS = 20;

const hexOffset = (v: number): string => `0x${v.toString(16).padStart(8, "0")}`;

/** `N` or `0xN`, a non-negative safe integer. */
export function parseOffset(text: string): number | undefined {
  const clean = text.replace(/_/g, "");
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(clean)) return undefined;
  const v = Number(clean);
  return Number.isSafeInteger(v) ? v : undefined;
}

/** Little-endian dwords of `bytes` (a trailing partial dword is left out). */
export function bytesToDwords(bytes: Uint8Array): Uint32Array {
  const n = Math.floor(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = new Uint32Array(n);
  for (let i = 0; i < n; i++) words[i] = view.getUint32(i * 4, true);
  return words;
}

/**
 * Whether `bytes` is text (UTF-8 without control characters other than tab, line and page
 * breaks) rather than packets: every SDMA stream has NUL bytes (a header's opcode is in its low
 * byte and its upper bytes are mostly zero, NOP is 0x00000000), so text of 4 bytes or more is a
 * source file, a manifest or a trace given by mistake. The first 4 KiB decide.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const sample = bytes.subarray(0, 4096);
  for (const b of sample) if (b < 0x20 && b !== 9 && b !== 10 && b !== 12 && b !== 13) return false;
  if (sample.every((b) => b === 0x20)) return false; // blank padding is not evidence of text
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Thrown by the scan's visitor to stop at the problem limit. */
class Stop {
  constructor(readonly endWord: number) {}
}

/**
 * Decodes `words` until `maxProblems` problems are found (0: no limit): the entries and problems
 * seen, and the dword index where decoding stopped (undefined: it reached the end).
 */
export function decodeBounded(
  words: Uint32Array,
  maxProblems: number,
  keepPackets = true,
): { packets: DecodedEntry[]; problems: StreamProblem[]; stoppedAt: number | undefined } {
  const packets: DecodedEntry[] = [];
  const problems: StreamProblem[] = [];
  try {
    scanStream(words, (entry, here) => {
      if (keepPackets) packets.push(entry);
      for (const p of here) problems.push(p);
      if (maxProblems > 0 && problems.length >= maxProblems && here.length > 0)
        throw new Stop(entry.offset / 4 + entry.words);
    });
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return { packets, problems, stoppedAt: e.endWord < words.length ? e.endWord : undefined };
  }
  return { packets, problems, stoppedAt: undefined };
}

/** The largest file `dmac disasm` reads (its listing is written as it goes, in bounded memory). */
export const MAX_DISASM_BYTES = 512 << 20;
/** Dwords per chunk of the listing written at a time. */
const CHUNK_DWORDS = 1 << 16;

/**
 * Dword indices that start a packet (or an undecodable dword), about every CHUNK_DWORDS apart,
 * from the headers and length fields alone; a truncated packet and what follows it stay in the
 * last chunk. Listing each chunk on its own gives the same text as listing the whole stream.
 */
function chunkStarts(words: Uint32Array): number[] {
  const starts = [0];
  const end = words.length;
  let i = 0;
  while (i < end) {
    if (i - starts[starts.length - 1]! >= CHUNK_DWORDS) starts.push(i);
    const c = lookupHeader(words[i]!);
    if (c === undefined) {
      i++;
      continue;
    }
    const len = lengthAt(c, words, i, end);
    if (len < 1 || i + len > end) break;
    i += len;
  }
  return starts;
}

/**
 * The listing of `words` written to `out` a chunk at a time: a 128 MiB stream of NOPs is 33M
 * lines (over 1 GB of text), more than one string can hold; built whole it ran out of memory.
 */
function writeListing(
  words: Uint32Array,
  base: number,
  out: (text: string) => void,
  annotated: StreamListing | undefined,
): void {
  const starts = chunkStarts(words);
  // One annotator for the whole stream: it walks the source map in step with the chunks.
  const hooks = annotated ? new QueueAnnotator(annotated.listing, annotated.rows) : undefined;
  if (annotated)
    out(`${listingHeader(annotated.listing)}# queue ${annotated.queue}: ${words.length} dwords\n`);
  for (let k = 0; k < starts.length; k++) {
    const a = starts[k]!;
    const b = k + 1 < starts.length ? starts[k + 1]! : words.length;
    const chunk = words.subarray(a, b);
    if (!hooks) {
      out(disassemble(chunk, { baseOffset: base + a * 4 }));
      continue;
    }
    const sink = new TextSink();
    disassembleInto(sink, chunk, { baseOffset: base + a * 4, hooks, streamOffset: a * 4 });
    out(new TextDecoder().decode(sink.bytes()));
  }
}

/**
 * JSON.stringify(doc, jsonValue, 2) with `doc.packets` the entries of `words`, written a piece at
 * a time (the document of 33M packets does not fit one string).
 */
function writeJsonDocument(
  doc: Record<string, unknown>,
  words: Uint32Array,
  base: number,
  out: (text: string) => void,
  annotated: StreamListing | undefined,
): void {
  const notes = annotated ? new QueueAnnotator(annotated.listing, annotated.rows) : undefined;
  const MARK = "\u0000packets\u0000";
  const text = JSON.stringify({ ...doc, packets: MARK }, jsonValue, 2);
  const at = text.indexOf(JSON.stringify(MARK));
  let buf = text.slice(0, at);
  let first = true;
  scanStream(words, (e) => {
    const packet = e.packet.kind === "unknown" ? undefined : e.packet;
    const entry = {
      offset: base + e.offset,
      raw: Array.from(words.subarray(e.offset / 4, e.offset / 4 + e.words), (w) =>
        w.toString(16).padStart(8, "0"),
      ),
      ...(packet ? { name: PACKET_NAME[packet.kind] } : {}),
      packet: e.packet,
      ...notes?.entryNotes(e.offset, packet),
    };
    buf +=
      (first ? "[\n    " : ",\n    ") +
      JSON.stringify(entry, jsonValue, 2).replace(/\n/g, "\n    ");
    first = false;
    if (buf.length > 1 << 20) {
      out(buf);
      buf = "";
    }
  });
  buf += first ? "[]" : "\n  ]";
  out(buf + text.slice(at + JSON.stringify(MARK).length) + "\n");
}

function problemDiagnostic(p: StreamProblem, base: number): Diagnostic {
  return diag(p.code, undefined, [hexOffset(base + p.offset), p.detail]);
}

function jsonValue(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? `0x${v.toString(16)}` : v;
}

export function runDisasm(path: string, opts: DisasmCommandOptions, ctx: CliContext): number {
  let base = 0;
  if (opts.baseOffset !== undefined) {
    const v = parseOffset(opts.baseOffset);
    if (v === undefined) {
      const d = diag(
        "DMAC5004",
        undefined,
        ["--base-offset", `'${opts.baseOffset}' is not a byte offset`],
        {
          hint: "write a non-negative integer, decimal or 0x-prefixed hex",
        },
      );
      return reportDiagnostics(ctx, [d], opts);
    }
    base = v;
  }
  const limit = parsePositiveInt(
    "--max-problems",
    opts.maxProblems === "0" ? undefined : opts.maxProblems,
  );
  if (limit.diagnostics.length > 0) return reportDiagnostics(ctx, limit.diagnostics, opts);
  const maxProblems = opts.maxProblems === "0" ? 0 : (limit.value ?? DEFAULT_MAX_PROBLEMS);
  let bytes: Uint8Array;
  try {
    // A regular file only, size-checked before reading (src/util/read-input.ts).
    bytes = readInputFile(path, { maxBytes: MAX_DISASM_BYTES, what: "a packet stream to list" });
  } catch (e) {
    return reportDiagnostics(ctx, [diag("DMAC5001", undefined, [path, readErrorReason(e)])], opts);
  }
  const notAStream = (detail: string, hint: string): Diagnostic =>
    diag("DMAC4105", undefined, [path, detail], { hint });
  if (looksLikeText(bytes)) {
    const d = notAStream(
      "it is text, and every packet stream holds zero bytes",
      "give it a packet stream that dmac compile writes, e.g. out/gpu0.sdma14.bin (dmac sim reads the manifest and traces)",
    );
    if (opts.json === true) {
      const doc = disasmDocument(path, base, [], [], { offset: base, reason: d.message });
      ctx.streams.out(JSON.stringify(doc, null, 2) + "\n");
      if (opts.format === "json") return EXIT_USER_ERROR;
    }
    return reportDiagnostics(ctx, [d], opts);
  }
  const allWords = bytesToDwords(bytes);
  const found =
    opts.raw === true ? { diagnostics: [] } : findListing(path, allWords, opts.manifest);
  const annotated = found.listing;
  // Only the problems are kept: the listing and the JSON document decode again as they write.
  const { problems, stoppedAt } = decodeBounded(allWords, maxProblems, false);
  const words = stoppedAt === undefined ? allWords : allWords.subarray(0, stoppedAt);
  const diagnostics = [...found.diagnostics, ...problems.map((p) => problemDiagnostic(p, base))];
  const tailAt = allWords.length * 4;
  const tail = stoppedAt === undefined ? [...bytes.subarray(tailAt)] : [];
  if (stoppedAt !== undefined)
    diagnostics.push(
      notAStream(
        `${problems.length} problems in its first ${stoppedAt * 4} bytes (of ${bytes.length}); decoding stopped there`,
        `the problems are listed above; --max-problems N allows more (0: no limit)`,
      ),
    );
  if (tail.length > 0) {
    diagnostics.push(
      diag("DMAC4102", undefined, [
        hexOffset(base + tailAt),
        `the file is ${bytes.length} bytes, not a whole number of dwords: the last ${tail.length} byte(s) are ignored`,
      ]),
    );
  }
  if (opts.json === true) {
    const doc = disasmDocument(
      path,
      base,
      tail,
      [
        ...problems.map((p) => ({ ...p, offset: base + p.offset })),
        ...(tail.length > 0
          ? [{ offset: base + tailAt, code: "DMAC4102", detail: "partial dword" }]
          : []),
      ],
      stoppedAt !== undefined
        ? { offset: base + stoppedAt * 4, reason: diagnostics.at(-1)!.message }
        : undefined,
      annotated,
    );
    writeJsonDocument(doc, words, base, ctx.streams.out, annotated);
    // The problems are in the document; a second JSON document on stdout would break it.
    if (opts.format === "json") return hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
  } else {
    writeListing(words, base, ctx.streams.out, annotated);
    if (tail.length > 0) {
      const hexBytes = tail.map((b) => `0x${b.toString(16).padStart(2, "0")}`).join(" ");
      ctx.streams.out(
        `${(base + tailAt).toString(16).padStart(8, "0")}  .byte ${hexBytes}  ; not a whole dword\n`,
      );
    }
  }
  return reportDiagnostics(ctx, diagnostics, opts);
}

/**
 * The `--json` document without its packets (writeJsonDocument streams them into `packets`):
 * schemas/disasm.schema.json. `stopped`: where and why decoding gave up, when it did.
 */
function disasmDocument(
  file: string,
  baseOffset: number,
  trailingBytes: readonly number[],
  problems: readonly object[],
  stopped: { readonly offset: number; readonly reason: string } | undefined,
  annotated?: StreamListing,
): Record<string, unknown> {
  const ctx = annotated?.listing.ctx;
  return {
    version: 1,
    file,
    baseOffset,
    ...(annotated && ctx
      ? {
          annotations: {
            queue: annotated.queue,
            source: ctx.sourceFile,
            ...(ctx.sourceNote !== undefined ? { sourceNote: ctx.sourceNote } : {}),
          },
        }
      : {}),
    packets: [],
    trailingBytes,
    problems,
    ...(stopped !== undefined ? { stopped } : {}),
  };
}

export function registerDisasm(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("disasm")
    .description("decode a gfx942 SDMA packet stream (little-endian dwords) and print a listing")
    .argument("<file>", "a packet stream, e.g. gpu0.sdma2.bin")
    .option(
      "--json",
      "print the decoded packets and problems as one JSON document (as --format json does)",
    )
    .option(
      "--raw",
      "the plain listing: addresses in hex, no names, sizes, source lines or warnings",
    )
    .option(
      "--manifest <file>",
      "annotate from this manifest (default: manifest.json beside the stream, when there is one)",
    )
    .option("--base-offset <n>", "add this byte offset (decimal or 0x hex) to every printed offset")
    .option(
      "--max-problems <n>",
      `stop (DMAC4105, exit 1) after this many problems: the input is not a stream dmac can read (default ${DEFAULT_MAX_PROBLEMS}, 0: no limit)`,
    );
  addDiagnosticOptions(cmd).action((file: string, opts: DisasmCommandOptions) => {
    // --format json is --json (json-output.ts): the document instead of the listing.
    ctx.exit(runDisasm(file, opts.format === "json" ? { ...opts, json: true } : opts, ctx));
  });
}
