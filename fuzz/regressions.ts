// Saved failing inputs (test/fuzz-regressions/): how a FuzzInput is written to and read back
// from a file. One file per input, named by target and a content hash, so saving the same
// failure twice is harmless:
//   frontend-<hash>.dmac       the source, replayed through the functions
//   frontend-cli-<hash>.dmac   the source, replayed through the CLI's main()
//   decoder-<hash>.bin         little-endian dwords
//   executor-<hash>.json       { "seed": example file name, "streams": { file: base64 },
//                              "manifest"?: the rebuilt manifest of a packet-level edit }
//   sim-input-<hash>.json      { "seed": example file name, "manifest" | "trace": document }
//   parts-<part>-<sync>-O<level>-<hash>.dmac   the source, replayed with that configuration

import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "../src/backend/sdma/manifest.js";
import type { FuzzInput } from "./engine.js";
import { PARTS, SYNC_MODES } from "./parts.js";

function fnv1a(data: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of data) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

const bytesOf = (w: Uint32Array): Uint8Array => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

export function encodeInput(input: FuzzInput): { name: string; data: Uint8Array } {
  switch (input.target) {
    case "frontend": {
      const data = Buffer.from(input.source, "utf8");
      return { name: `frontend-${input.viaCli ? "cli-" : ""}${fnv1a(data)}.dmac`, data };
    }
    case "decoder": {
      const data = Buffer.from(bytesOf(input.words));
      return { name: `decoder-${fnv1a(data)}.bin`, data };
    }
    case "executor": {
      const streams: Record<string, string> = {};
      for (const [k, v] of [...input.streams].sort(([a], [b]) => (a < b ? -1 : 1)))
        streams[k] = Buffer.from(bytesOf(v)).toString("base64");
      const doc = {
        seed: input.seedName,
        streams,
        ...(input.manifest && { manifest: input.manifest }),
      };
      const data = Buffer.from(`${JSON.stringify(doc, null, 2)}\n`);
      return { name: `executor-${fnv1a(data)}.json`, data };
    }
    case "sim-input": {
      const data = Buffer.from(
        `${JSON.stringify({ seed: input.seedName, ...input.doc }, null, 2)}\n`,
      );
      return { name: `sim-input-${fnv1a(data)}.json`, data };
    }
    case "parts": {
      const data = Buffer.from(input.source, "utf8");
      const name = `parts-${input.part}-${input.sync}-O${input.level}-${fnv1a(data)}.dmac`;
      return { name, data };
    }
  }
}

const wordsOf = (b: Uint8Array): Uint32Array => {
  const copy = new Uint8Array(b.byteLength & ~3);
  copy.set(b.subarray(0, copy.length));
  return new Uint32Array(copy.buffer);
};

export function decodeInput(name: string, data: Uint8Array): FuzzInput | undefined {
  if (name.startsWith("frontend-") && name.endsWith(".dmac"))
    return {
      target: "frontend",
      source: Buffer.from(data).toString("utf8"),
      viaCli: name.startsWith("frontend-cli-"),
    };
  const parts = /^parts-(\w+)-(\w+)-O([012])-[0-9a-f]+\.dmac$/.exec(name);
  if (parts) {
    const part = PARTS.find((p) => p === parts[1]);
    const sync = SYNC_MODES.find((m) => m === parts[2]);
    if (!part || !sync) return undefined;
    const source = Buffer.from(data).toString("utf8");
    return { target: "parts", source, part, sync, level: Number(parts[3]) as 0 | 1 | 2 };
  }
  if (name.startsWith("decoder-") && name.endsWith(".bin"))
    return { target: "decoder", words: wordsOf(data) };
  if (name.startsWith("sim-input-") && name.endsWith(".json")) {
    const j = JSON.parse(Buffer.from(data).toString("utf8")) as Record<string, unknown>;
    const doc = "manifest" in j ? { manifest: j["manifest"] } : { trace: j["trace"] };
    return { target: "sim-input", seedName: String(j["seed"]), doc };
  }
  if (name.startsWith("executor-") && name.endsWith(".json")) {
    const j = JSON.parse(Buffer.from(data).toString("utf8")) as {
      seed: string;
      streams: Record<string, string>;
      manifest?: Manifest;
    };
    const streams = new Map<string, Uint32Array>();
    for (const [k, v] of Object.entries(j.streams))
      streams.set(k, wordsOf(Buffer.from(v, "base64")));
    return { target: "executor", seedName: j.seed, streams, manifest: j.manifest };
  }
  return undefined;
}

const SAVED_NAME = /^((frontend|parts)-.*\.dmac|decoder-.*\.bin|(executor|sim-input)-.*\.json)$/;

export function saveInput(dir: string, input: FuzzInput): string {
  const { name, data } = encodeInput(input);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (!existsSync(path)) writeFileSync(path, data);
  return path;
}

/** Every saved input directly in `dir` (subdirectories, e.g. pending/, are not replayed). */
export function loadInputs(dir: string): { name: string; input: FuzzInput }[] {
  if (!existsSync(dir)) return [];
  const out: { name: string; input: FuzzInput }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const name = entry.name;
    if (!SAVED_NAME.test(name)) continue; // README.md and the like
    const input = decodeInput(name, readFileSync(join(dir, name)));
    if (input) out.push({ name, input });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
