// `dmac target import SYSFS_DIR [--base TARGET] [--name NAME] [-o FILE]`: builds a target
// description from a copy of a node's KFD topology (/sys/devices/virtual/kfd/kfd/topology/nodes)
// and prints it, or writes it through the safe writer. The reading is here (bounded: at most
// MAX_NODES nodes and MAX_LINKS links per node, properties files up to 64 KiB, only regular
// files, a link loop is an error); what the files mean is src/target/kfd-topology.ts. Any problem
// with the tree is DMAC5101 naming the file, exit 1. `--format json`: the target (and the file
// written, with -o) as one document (schemas/target-import.schema.json).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { formatJson } from "../../calibrate/fit.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import {
  importedTarget,
  MAX_PROPERTIES_BYTES,
  parseProperties,
  readTopology,
  TopologyError,
  type KfdNode,
} from "../../target/kfd-topology.js";
import {
  BUILTIN_TARGETS,
  builtinPath,
  isBuiltinTargetName,
  parseTarget,
  TargetError,
} from "../../target/target.js";
import { fsReason, readInputText } from "../../util/read-input.js";
import type { CliContext } from "../main.js";
import { reportJson } from "../json-output.js";
import {
  addDiagnosticOptions,
  addOutOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";

export interface TargetImportOptions extends DiagnosticOutput {
  readonly base?: string | undefined;
  readonly name?: string | undefined;
  readonly output?: string | undefined;
}

/** Far above a real node (2 CPU sockets + 8 GPUs, or 64 GPU partitions in CPX mode). */
export const MAX_NODES = 1024;
export const MAX_LINKS = 1024;

/** The numbered entries of a directory, in numeric order; throws TopologyError. */
function numberedEntries(root: string, rel: string, max: number): number[] {
  let names: string[];
  try {
    names = readdirSync(join(root, rel));
  } catch (e) {
    throw new TopologyError(rel, fsReason(e));
  }
  const ids = names
    .filter((n) => /^(0|[1-9][0-9]{0,8})$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
  if (ids.length > max)
    throw new TopologyError(rel, `has ${ids.length} entries, more than the ${max} dmac reads`);
  return ids;
}

function readProperties(root: string, rel: string): ReturnType<typeof parseProperties> {
  let text: string;
  try {
    text = readInputText(join(root, rel), {
      maxBytes: MAX_PROPERTIES_BYTES,
      what: "a KFD properties file",
    });
  } catch (e) {
    throw new TopologyError(rel, (e as { reason?: string }).reason ?? fsReason(e));
  }
  return parseProperties(text, rel);
}

/** The nodes of the tree at `root` with their properties and io_links. */
export function readKfdTree(root: string): KfdNode[] {
  return numberedEntries(root, ".", MAX_NODES).map((id) => {
    const props = readProperties(root, `${id}/properties`);
    // A CPU node's io_links do not matter; a GPU without the directory has no links.
    const hasLinks = (() => {
      try {
        return readdirSync(join(root, String(id))).includes("io_links");
      } catch (e) {
        throw new TopologyError(String(id), fsReason(e));
      }
    })();
    const links = hasLinks
      ? numberedEntries(root, `${id}/io_links`, MAX_LINKS).map((l) => ({
          id: l,
          properties: readProperties(root, `${id}/io_links/${l}/properties`),
        }))
      : [];
    return { id, properties: props, links };
  });
}

/** The base target's JSON as written: a built-in name, or a file. */
function readBase(
  base: string | undefined,
  gfx: string,
): { json: Record<string, unknown>; name: string } {
  const name =
    base ??
    BUILTIN_TARGETS.find((t) => {
      const j = JSON.parse(readFileSync(builtinPath(t), "utf8")) as { part?: { gfx?: string } };
      return j.part?.gfx === gfx;
    });
  if (name === undefined)
    throw new TopologyError(
      ".",
      `no built-in target describes ${gfx}: give --base a target file for this part`,
    );
  const path = isBuiltinTargetName(name) ? builtinPath(name) : name;
  let json: unknown;
  try {
    json = JSON.parse(readInputText(path, { maxBytes: 1 << 20, what: "a target description" }));
  } catch (e) {
    throw new TargetError(
      `--base ${name}: ${(e as { reason?: string }).reason ?? (e as Error).message}`,
    );
  }
  parseTarget(json, `--base ${name}`);
  return { json: json as Record<string, unknown>, name };
}

export function runTargetImport(dir: string, opts: TargetImportOptions, ctx: CliContext): number {
  const diagnostics: Diagnostic[] = [];
  const json = opts.format === "json";
  let imported: Record<string, unknown> | undefined;
  try {
    const topo = readTopology(readKfdTree(dir));
    const base = readBase(opts.base, topo.gfx);
    const target = importedTarget(topo, base.json, {
      name: opts.name ?? "imported",
      dir,
      baseName: base.name,
    });
    parseTarget(target, "the imported target"); // the checks every target passes
    imported = target;
    const text = formatJson(target);
    if (opts.output === undefined) {
      if (!json) ctx.streams.out(text);
    } else writeOutputFile(opts.output, text, { inputs: [dir] });
  } catch (e) {
    if (e instanceof TopologyError)
      diagnostics.push(diag("DMAC5101", undefined, [e.file, e.detail]));
    else if (e instanceof TargetError)
      diagnostics.push(diag("DMAC5101", undefined, [dir, e.message]));
    else if (e instanceof OutputError)
      diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
    else throw e;
  }
  // The target is in the document even when -o could not write it (DMAC5002 says so).
  if (json && imported !== undefined) {
    const wrote = opts.output !== undefined && diagnostics.length === 0;
    return reportJson(
      ctx,
      { target: imported, ...(wrote ? { out: opts.output } : {}) },
      diagnostics,
    );
  }
  return reportDiagnostics(ctx, diagnostics, opts);
}

export function registerTarget(program: Command, ctx: CliContext): void {
  const target = program
    .command("target")
    .description("target descriptions: import a node's KFD topology as a target");
  const imp = target
    .command("import")
    .description(
      "build a target from a copy of /sys/devices/virtual/kfd/kfd/topology/nodes: GPUs, SDMA engines and the recommended engine of each pair; the other facts come from --base",
    )
    .argument("<sysfs-dir>", "a copy of the KFD topology's nodes directory")
    .option(
      "--base <name|file>",
      "the target whose packet limits, poll functions, link figures and timing the import keeps (default: the built-in target of the GPUs' ISA)",
    )
    .option("--name <name>", "the imported target's name", "imported");
  addOutOption(imp, {
    value: "file",
    help: "write the target here (default: print it)",
    attr: "output",
    aliases: ["--output"],
  });
  addDiagnosticOptions(imp).action((dir: string, opts: TargetImportOptions) => {
    ctx.exit(runTargetImport(dir, opts, ctx));
  });
}
