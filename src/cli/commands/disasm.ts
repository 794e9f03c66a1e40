// `dmac disasm FILE.bin [--json] [--base-offset N]`: decodes any gfx942 SDMA stream (little-endian
// dwords) and prints the listing on stdout (or, with --json, one JSON document of the decoded
// packets and problems). Unknown packets, truncated packets, reserved bits and huge addresses are
// warnings (DMAC4101..DMAC4104) with their byte offsets; a file size that is not a multiple of 4
// is reported as a truncated tail. Exit 0 unless the file cannot be read (DMAC5001) or an option
// is bad (DMAC5004): exit 1.

import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { decodeStream, type StreamProblem } from "../../backend/sdma/decode.js";
import { disassemble } from "../../backend/sdma/disasm.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import {
  addDiagnosticOptions,
  readErrorReason,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";

export interface DisasmCommandOptions extends DiagnosticOutput {
  readonly json?: boolean | undefined;
  readonly baseOffset?: string | undefined;
}

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
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return reportDiagnostics(ctx, [diag("DMAC5001", undefined, [path, readErrorReason(e)])], opts);
  }
  const words = bytesToDwords(bytes);
  const { packets, problems } = decodeStream(words);
  const diagnostics = problems.map((p) => problemDiagnostic(p, base));
  const tailAt = words.length * 4;
  const tail = [...bytes.subarray(tailAt)];
  if (tail.length > 0) {
    diagnostics.push(
      diag("DMAC4102", undefined, [
        hexOffset(base + tailAt),
        `the file is ${bytes.length} bytes, not a whole number of dwords: the last ${tail.length} byte(s) are ignored`,
      ]),
    );
  }
  if (opts.json === true) {
    const doc = {
      version: 1,
      file: path,
      baseOffset: base,
      packets: packets.map((e) => ({
        offset: base + e.offset,
        raw: Array.from(words.subarray(e.offset / 4, e.offset / 4 + e.words), (w) =>
          w.toString(16).padStart(8, "0"),
        ),
        packet: e.packet,
      })),
      trailingBytes: tail,
      problems: [
        ...problems.map((p) => ({ ...p, offset: base + p.offset })),
        ...(tail.length > 0
          ? [{ offset: base + tailAt, code: "DMAC4102", detail: "partial dword" }]
          : []),
      ],
    };
    ctx.streams.out(JSON.stringify(doc, jsonValue, 2) + "\n");
    // The problems are in the document; a second JSON document on stdout would break it.
    if (opts.format === "json") return hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
  } else {
    let text = disassemble(words, { baseOffset: base });
    if (tail.length > 0) {
      const hexBytes = tail.map((b) => `0x${b.toString(16).padStart(2, "0")}`).join(" ");
      text += `${(base + tailAt).toString(16).padStart(8, "0")}  .byte ${hexBytes}  ; not a whole dword\n`;
    }
    ctx.streams.out(text);
  }
  return reportDiagnostics(ctx, diagnostics, opts);
}

export function registerDisasm(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("disasm")
    .description("decode a gfx942 SDMA packet stream (little-endian dwords) and print a listing")
    .argument("<file>", "a packet stream, e.g. gpu0.sdma2.bin")
    .option("--json", "print the decoded packets and problems as one JSON document")
    .option(
      "--base-offset <n>",
      "add this byte offset (decimal or 0x hex) to every printed offset",
    );
  addDiagnosticOptions(cmd).action((file: string, opts: DisasmCommandOptions) => {
    ctx.exit(runDisasm(file, opts, ctx));
  });
}
