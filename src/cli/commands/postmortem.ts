// `dmac postmortem DIR SNAPSHOT [--format json]`: reads a compile's output (manifest.json and the
// packet streams) and a hang snapshot (schemas/snapshot.schema.json: `dmac sim --snapshot`, or a
// loader on hardware) and prints, per GPU and engine, the last completed step with its source
// line and what the queue waits on (src/forensics/postmortem.ts). Exit 0 when it could read both;
// 1 on an unreadable or invalid input (DMAC5001, DMAC6011, DMAC5021). `--format json`: the report
// as one document (schemas/postmortem.schema.json).

import { dirname, join } from "node:path";
import type { Command } from "commander";
import type { Manifest } from "../../backend/sdma/manifest.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { formatPostmortem, postmortem } from "../../forensics/postmortem.js";
import type { Snapshot } from "../../forensics/snapshot.js";
import { validateDocument } from "../../schemas.js";
import { readInputFile, readInputText } from "../../util/read-input.js";
import type { CliContext } from "../main.js";
import { EXIT_OK } from "../io.js";
import { reportJson } from "../json-output.js";
import { readErrorReason } from "../../options/options.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";
import { bytesToDwords } from "./disasm.js";

/** Largest manifest, snapshot and stream postmortem reads (a hang report, not a 10^6-op run). */
const MAX_BYTES = 1 << 28;

type Loaded<T> = { value: T; problem?: undefined } | { value?: undefined; problem: Diagnostic };

function readJson(path: string, schema: "manifest" | "snapshot"): Loaded<unknown> {
  let text: string;
  let json: unknown;
  try {
    text = readInputText(path, { maxBytes: MAX_BYTES, what: `a ${schema}` });
  } catch (e) {
    return { problem: diag("DMAC5001", undefined, [path, readErrorReason(e)]) };
  }
  try {
    json = JSON.parse(text);
  } catch (e) {
    const why = `not JSON: ${(e as Error).message}`;
    return {
      problem:
        schema === "manifest"
          ? diag("DMAC6011", undefined, [path, "$", why])
          : diag("DMAC5021", undefined, [path, why]),
    };
  }
  const first = validateDocument(schema, json)[0];
  if (first)
    return {
      problem:
        schema === "manifest"
          ? diag("DMAC6011", undefined, [path, first.path, first.message])
          : diag("DMAC5021", undefined, [path, `${first.path}: ${first.message}`]),
    };
  return { value: json };
}

export function runPostmortem(
  dir: string,
  snapshotPath: string,
  opts: DiagnosticOutput,
  ctx: CliContext,
): number {
  const manifestPath = dir.endsWith(".json") ? dir : join(dir, "manifest.json");
  const base = dirname(manifestPath);
  const m = readJson(manifestPath, "manifest");
  const s = readJson(snapshotPath, "snapshot");
  const problems = [m.problem, s.problem].filter((d): d is Diagnostic => d !== undefined);
  if (problems.length > 0) return reportDiagnostics(ctx, problems, opts);
  const manifest = m.value as Manifest;
  const snap = s.value as Snapshot;
  const names = new Set(manifest.queues.map((q) => q.name));
  const stray = snap.queues.find((q) => !names.has(q.queue));
  if (stray)
    return reportDiagnostics(
      ctx,
      [
        diag("DMAC5021", undefined, [
          snapshotPath,
          `queue '${stray.queue}' is not in ${manifestPath}`,
        ]),
      ],
      opts,
    );
  const streams = new Map<string, Uint32Array>();
  for (const q of manifest.queues) {
    try {
      const bytes = readInputFile(join(base, q.file), {
        maxBytes: MAX_BYTES,
        what: "a packet stream",
      });
      streams.set(q.name, bytesToDwords(bytes));
    } catch (e) {
      return reportDiagnostics(
        ctx,
        [diag("DMAC5001", undefined, [join(base, q.file), readErrorReason(e)])],
        opts,
      );
    }
  }
  const report = postmortem(manifest, streams, snap);
  if (opts.format === "json") return reportJson(ctx, { ...report }, []);
  ctx.streams.out(formatPostmortem(report, sourceLines(join(base, manifest.sourceMap.file))));
  return EXIT_OK;
}

/** Line n of the source (for the report), or undefined when it cannot be read. */
function sourceLines(path: string): (line: number) => string | undefined {
  let lines: string[] | undefined;
  return (n) => {
    if (lines === undefined) {
      try {
        lines = readInputText(path, { maxBytes: MAX_BYTES, what: "a source file" }).split("\n");
      } catch {
        lines = [];
      }
    }
    return lines[n - 1];
  };
}

export function registerPostmortem(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("postmortem")
    .description(
      "where each queue of a hung run stopped: last completed step (source line) and the word it waits on",
    )
    .argument(
      "<dir>",
      "compile output directory (or its manifest.json); compile with --breadcrumbs for steps",
    )
    .argument(
      "<snapshot>",
      "hang snapshot (dmac sim --snapshot, or a loader's; schemas/snapshot.schema.json)",
    );
  addDiagnosticOptions(cmd).action((dir: string, snapshot: string, opts: DiagnosticOutput) => {
    ctx.exit(runPostmortem(dir, snapshot, opts, ctx));
  });
}
