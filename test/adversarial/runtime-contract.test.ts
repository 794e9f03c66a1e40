// Issue 29 (trust): `dmac sim` said "verified" for outputs that a runtime would run differently
// from what sim checked, because sim trusted something the runtime does not read (the sidecar)
// or did not check something the runtime relies on (relocation coverage, the part's packet
// limits, breadcrumbs, engine kinds). Each case compiles an example, edits it the way
// test/adversarial/executor-semantics.test.ts does (fuzz/stream-edit.ts, the manifest rebuilt
// around the edit) and runs `dmac sim DIR`: a located diagnostic and exit 1.

import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assemble, cloneQueues, explode, type EditQueues } from "../../fuzz/stream-edit.js";
import { decodeStream } from "../../src/backend/sdma/decode.js";
import type { Manifest } from "../../src/backend/sdma/manifest.js";
import {
  readSidecar,
  SIDECAR_FILE,
  writeSidecar,
  type SidecarArray,
} from "../../src/backend/sdma/manifest-sidecar.js";
import { sidecarMatches } from "../../src/backend/sdma/sidecar-match.js";
import { builtinPath } from "../../src/target/target.js";
import { dmac, example } from "../helpers/cli.js";

const api = { decodeStream };
const root = mkdtempSync(join(tmpdir(), "dmac-adv-contract-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Compiled outputs, made once: name -> [example, extra compile options]. */
const SEEDS = {
  b2b: ["all_to_all_b2b.dmac", []],
  b2bO0: ["all_to_all_b2b.dmac", ["-O0"]],
  ringConservative: ["ring_all_gather.dmac", ["--sync", "conservative"]],
  mi355x: ["", []], // (BIG_COPY below)
  ringAggressive: ["ring_all_gather.dmac", ["--sync", "aggressive"]],
  mi308x: ["", []], // (FUSED below)
  upload: ["host_upload_pieces.dmac", []],
  crumbs: ["pipelined_all_gather.dmac", ["--breadcrumbs"]],
} as const satisfies Record<string, readonly [string, readonly string[]]>;
type Seed = keyof typeof SEEDS;
/** A 300 MiB copy within GPU 0 of an MI355X (split at 128 MiB by compile). */
const BIG_COPY = `target mi355x

schedule big(size: bytes = 300MiB) {
  buffer a: size
  buffer b: size
  copy a@0 -> b@0
  ensure b@0 == a@0
}
`;
/** A copy on engine 4 of an MI308X (engines 1, 3, 5, 7 are fused off). */
const FUSED = `target mi308x

schedule s() {
  buffer a: 4KiB
  buffer b: 4KiB
  copy a@0[0 +: 4KiB] -> b@0[0 +: 4KiB] on sdma(4)
}
`;
beforeAll(async () => {
  writeFileSync(join(root, "mi355x.dmac"), BIG_COPY);
  writeFileSync(join(root, "mi308x.dmac"), FUSED);
  for (const [name, [file, extra]] of Object.entries(SEEDS)) {
    const source = file === "" ? join(root, `${name}.dmac`) : example(file);
    const r = await dmac("compile", source, "-o", join(root, name), ...extra);
    expect(r.code, r.err).toBe(0);
  }
});

let n = 0;
/** A fresh copy of a seed's output directory. */
function copyOf(seed: Seed): string {
  const dir = join(root, `case${n++}`);
  cpSync(join(root, seed), dir, { recursive: true });
  return dir;
}

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;

function readStreams(dir: string, m: Manifest): Map<string, Uint32Array> {
  return new Map(
    m.queues.map((q) => {
      const b = readFileSync(join(dir, q.file));
      return [q.file, new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))];
    }),
  );
}

/** The directory's queues as packets, edited by `edit`, then reassembled (stream-edit.ts). */
function editPackets(dir: string, edit: (qs: EditQueues) => void) {
  const m = readManifest(dir);
  const qs = cloneQueues(explode(api, m, readStreams(dir, m)));
  edit(qs);
  return assemble(api, m, qs);
}

function writeStreams(dir: string, streams: ReadonlyMap<string, Uint32Array>): void {
  for (const [file, words] of streams) writeFileSync(join(dir, file), words);
}

const BIN = fileURLToPath(new URL("../../bin/dmac.js", import.meta.url));

/**
 * `dmac sim DIR` refuses the output with `code` at `located`: in process, and through the built
 * CLI with the helper thread forced on (the sidecar's other reader, sim/session/read-json.ts).
 */
/** Writes manifest.json as edited (and drops the sidecar, which was not written for it). */
function writeManifest(dir: string, m: Manifest): void {
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m, null, 2));
  rmSync(join(dir, SIDECAR_FILE), { force: true });
}

/** manifest.json edited in place by `edit`. */
function editManifest(dir: string, edit: (m: Manifest) => void): void {
  const m = readManifest(dir);
  edit(m);
  writeManifest(dir, m);
}

async function expectRefused(dir: string, code: string, ...located: RegExp[]): Promise<void> {
  const inProcess = await dmac("sim", dir, "--format", "concise");
  const r = spawnSync(process.execPath, [BIN, "sim", dir, "--format", "concise"], {
    encoding: "utf8",
    env: { ...process.env, DMAC_SIM_HELPER: "1" },
    timeout: 60_000,
  });
  for (const run of [inProcess, { code: r.status, out: r.stdout, err: r.stderr }]) {
    expect(run.out).not.toMatch(/^verified/m);
    expect(run.err).toMatch(new RegExp(code));
    for (const l of located) expect(run.err).toMatch(l);
    expect(run.code, run.err).toBe(1);
  }
}

/** Swaps packets i and j of a queue. */
function swap(qs: EditQueues, queue: string, i: number, j: number): void {
  const pks = qs.get(queue)!;
  [pks[i], pks[j]] = [pks[j]!, pks[i]!];
}

const copies = (qs: EditQueues, queue: string): number[] =>
  qs.get(queue)!.flatMap((p, i) => (p.kind === "copy_linear" ? [i] : []));

describe("the unedited outputs verify", () => {
  for (const seed of Object.keys(SEEDS))
    it(seed, async () => {
      const r = await dmac("sim", join(root, seed));
      expect(r.code, r.err).toBe(0);
    });
});

describe("1. manifest.json is the only source of truth (the sidecar only reads it faster)", () => {
  /** The sidecar's arrays with `values` from `m` (manifest.json's bytes kept). */
  function forgeSidecar(dir: string, m: Manifest): void {
    const json = readFileSync(join(dir, "manifest.json"));
    const read = readSidecar(json, readFileSync(join(dir, SIDECAR_FILE)));
    if (!("arrays" in read)) throw new Error("the seed's sidecar is not bound");
    const valuesOf = (a: SidecarArray): ArrayLike<number> => {
      if (a.field === 1) return m.relocations[a.index]!.entries;
      if (a.field === 2) return m.queues[a.index]!.packetStarts!;
      if (a.field === 3) return m.queues[a.index]!.completionSlots;
      return a.values; // (the reorder below changes no row count or sync word)
    };
    const sources = read.arrays.map((a) => ({
      field: a.field,
      index: a.index,
      start: a.start,
      end: a.end,
      value: a.field === 4 ? rowsOf(m, a.index) : valuesOf(a),
    }));
    writeFileSync(join(dir, SIDECAR_FILE), writeSidecar(sources));
  }

  it("a fresh sidecar is manifest.json's (and is used); one number changed is not", async () => {
    const dir = join(root, "ringConservative");
    const json = readFileSync(join(dir, "manifest.json"));
    const read = readSidecar(json, readFileSync(join(dir, SIDECAR_FILE)));
    if (!("arrays" in read)) throw new Error("the seed's sidecar is not bound");
    expect(new Set(read.arrays.map((a) => a.field))).toEqual(new Set([1, 2, 3, 4, 5]));
    const names = (JSON.parse(read.skeleton) as Manifest).queues.map((q) => q.name);
    const bytes = (from: number, to: number) => json.subarray(from, to);
    expect(sidecarMatches(read.arrays, names, bytes)).toBe(true);
    for (const field of [1, 2, 3, 4, 5]) {
      const arrays = read.arrays.map((a) => {
        if (a.field !== field) return a;
        const values = Float64Array.from(a.values);
        values[values.length - 1]! += 4;
        return { ...a, values };
      });
      expect(sidecarMatches(arrays, names, bytes), `field ${field}`).toBe(false);
    }
  });

  it("a stream reordered and only the sidecar rebuilt: manifest.json's relocations are checked", async () => {
    const dir = copyOf("b2b");
    const { manifest, streams } = editPackets(dir, (qs) => {
      const q = [...qs.keys()][0]!;
      // Two copy groups (a copy and the ATOMIC announcing it) trade places.
      const c = copies(qs, q);
      swap(qs, q, c[0]!, c[1]!);
      swap(qs, q, c[0]! + 1, c[1]! + 1);
    });
    writeStreams(dir, streams);
    forgeSidecar(dir, manifest);
    await expectRefused(dir, "DMAC6011", /\$\.relocations\[0\]\.entries/);
  });

  it("completion slots reversed in manifest.json, the sidecar left as written", async () => {
    const dir = copyOf("b2bO0");
    const path = join(dir, "manifest.json");
    const text = readFileSync(path, "utf8");
    const m = readManifest(dir);
    const slots = m.queues[0]!.completionSlots;
    const listed = `"completionSlots": [${slots.join(", ")}]`;
    expect(text).toContain(listed);
    const edited = text.replace(listed, `"completionSlots": [${[...slots].reverse().join(", ")}]`);
    writeFileSync(path, edited);
    // (The sidecar's slots are no longer manifest.json's: it is ignored, the JSON read whole.)
    await expectRefused(dir, "DMAC6011", /\$\.queues\[0\]\.completionSlots/);
  });
});

describe("2. every address in a region has exactly one relocation", () => {
  type Entries = number[];
  const entriesOf = (m: Manifest, i: number): Entries => m.relocations[i]!.entries as Entries;

  it("one address relocation removed", async () => {
    const dir = copyOf("b2b");
    editManifest(dir, (m) => entriesOf(m, 0).splice(0, 3));
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.relocations\[0\]\.entries: dword 3 of gpu0\.sdma8\.bin .*COPY_LINEAR at 0x0\) holds 0x700000002000, an address in region gpu0, but no relocation/,
    );
  });

  it('`"relocations": []`', async () => {
    const dir = copyOf("b2b");
    editManifest(dir, (m) => ((m as unknown as { relocations: unknown[] }).relocations = []));
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.relocations: dword 3 of .* no relocation of gpu0\.sdma8/,
    );
  });

  it("an address relocated twice", async () => {
    const dir = copyOf("b2b");
    editManifest(dir, (m) => entriesOf(m, 0).push(...entriesOf(m, 0).slice(0, 3)));
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.relocations\[0\]\.entries\[\d+\]: dword 3 of gpu0\.sdma8\.bin is relocated a second time/,
    );
  });
});

describe("3. the part's limits hold for every packet sim reads", () => {
  // mi355x: a COPY_LINEAR of 256 MiB or more stalls the engine; compile splits 300 MiB at 128 MiB.
  const MIB = 1 << 20;
  const big = () => {
    const dir = copyOf("mi355x");
    const q = readManifest(dir).queues[0]!.name;
    return { dir, q };
  };
  /** Sets a COPY_LINEAR's byte count (DW1 holds count - 1) and moves its addresses by `shift`. */
  const resize = (words: number[], bytes: number, shift = 0): void => {
    words[1] = bytes - 1;
    words[3] = words[3]! + shift;
    words[5] = words[5]! + shift;
  };

  it("the 128/128/44 MiB copies merged into one 300 MiB COPY_LINEAR", async () => {
    const { dir, q } = big();
    const { manifest, streams } = editPackets(dir, (qs) => {
      const c = copies(qs, q);
      expect(c).toHaveLength(3);
      resize(qs.get(q)![c[0]!]!.words, 300 * MIB);
      qs.get(q)!.splice(c[1]!, 2);
    });
    writeStreams(dir, streams);
    writeManifest(dir, manifest);
    await expectRefused(
      dir,
      "DMAC6030",
      /mi355x\.dmac:\d+:\d+: DMAC6030 gpu0\.sdma0 \+0x0 .*COPY of 314572800 bytes, but target mi355x takes at most 134217728/,
    );
  });

  it("two 150 MiB copies", async () => {
    const { dir, q } = big();
    const { manifest, streams } = editPackets(dir, (qs) => {
      const c = copies(qs, q);
      resize(qs.get(q)![c[0]!]!.words, 150 * MIB);
      resize(qs.get(q)![c[1]!]!.words, 150 * MIB, 22 * MIB);
      qs.get(q)!.splice(c[2]!, 1);
    });
    writeStreams(dir, streams);
    writeManifest(dir, manifest);
    await expectRefused(dir, "DMAC6030", /gpu0\.sdma0 \+0x0 .*COPY of 157286400 bytes/);
  });

  it("a poll with a compare function the part does not run (DMAC4203's rule)", async () => {
    // Compiled for mi300x (every function), run on a part that runs only ==.
    const only = join(root, "eq-only.json");
    const mi300x = JSON.parse(readFileSync(builtinPath("mi300x"), "utf8")) as object;
    writeFileSync(only, JSON.stringify({ ...mi300x, name: "eq-only", pollFunctions: ["eq"] }));
    const r = await dmac("sim", join(root, "ringAggressive"), "--target", only);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(
      /ring_all_gather\.dmac:\d+:\d+[^]*DMAC6030[^]*POLL_REGMEM compares with >=, which target eq-only does not run \(pollFunctions: eq\)/,
    );
  });

  it("a queue moved to an engine without hardware (DMAC4202's rule)", async () => {
    const dir = copyOf("mi308x");
    editManifest(dir, (m) => ((m.queues[0] as { engine: number }).engine = 3));
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.queues\[0\]\.engine: queue gpu0\.sdma4 is on engine 3, which has no hardware/,
    );
  });
});

describe("5. engine kinds: the rule of DMAC3005 on input", () => {
  it("a GPU->GPU copy's queue put on engine 0 (a PCIe engine)", async () => {
    const dir = copyOf("b2b");
    editManifest(dir, (m) => ((m.queues[0] as { engine: number }).engine = 0));
    await expectRefused(
      dir,
      "DMAC6030",
      /all_to_all_b2b\.dmac:\d+:\d+: DMAC6030 gpu0\.sdma8 \+0x0 .*COPY moves bytes of GPU 1, but engine 0 is a host<->GPU \(PCIe\) engine of target mi300x/,
    );
  });

  it("a host copy's queue put on an xGMI engine", async () => {
    const dir = copyOf("upload");
    editManifest(dir, (m) => ((m.queues[0] as { engine: number }).engine = 2));
    await expectRefused(
      dir,
      "DMAC6030",
      /DMAC6030 gpu0\.sdma0 \+0x0 .*moves bytes of host memory, but engine 2 is not a host<->GPU \(PCIe\) engine of target mi300x \(0, 1\)/,
    );
  });
});

describe("4. breadcrumbs are checked against their steps", () => {
  const crumbs = () => {
    const dir = copyOf("crumbs");
    const m = readManifest(dir);
    return { dir, m, list: m.breadcrumbs! };
  };
  const addressOf = (w: readonly number[]): number => w[1]! + w[2]! * 2 ** 32;
  /** Indices of the packets of `queue` that FENCE into `address`. */
  const fencesTo = (qs: EditQueues, queue: string, address: number): number[] =>
    qs
      .get(queue)!
      .flatMap((p, i) => (p.kind === "fence" && addressOf(p.words) === address ? [i] : []));
  /** The output edited by `edit` (manifest rebuilt around it, breadcrumbs kept), written. */
  const rebuilt = (dir: string, edit: (qs: EditQueues) => void): void => {
    const { manifest, streams } = editPackets(dir, edit);
    writeStreams(dir, streams);
    writeManifest(dir, manifest);
  };

  it("a breadcrumb FENCE moved to the front of its queue", async () => {
    const { dir, list } = crumbs();
    const b = list[0]!;
    rebuilt(dir, (qs) => {
      const i = fencesTo(qs, b.queue, b.address)[0]!;
      const pks = qs.get(b.queue)!;
      pks.unshift(...pks.splice(i, 1));
    });
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.breadcrumbs\[0\]: .* is not in the command group of step 2/,
    );
  });

  it("step values +10", async () => {
    const { dir, list } = crumbs();
    rebuilt(dir, (qs) => {
      for (const b of list)
        for (const i of fencesTo(qs, b.queue, b.address)) qs.get(b.queue)![i]!.words[3]! += 10;
    });
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.breadcrumbs\[0\]: gpu\d\.sdma\d+ \+0x[0-9a-f]+ writes 11 into the breadcrumb word of .*, but step 1 is next/,
    );
  });

  it("breadcrumbs removed from the streams (the manifest's list kept)", async () => {
    const { dir, list } = crumbs();
    rebuilt(dir, (qs) => {
      for (const b of list)
        for (const i of fencesTo(qs, b.queue, b.address).reverse()) qs.get(b.queue)!.splice(i, 1);
    });
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.breadcrumbs\[0\]: .* comes after the last breadcrumb FENCE .*: no step covers it/,
    );
  });

  it("each queue writing the next queue's word", async () => {
    const { dir, list } = crumbs();
    rebuilt(dir, (qs) => {
      list.forEach((b, k) => {
        const next = list[(k + 1) % list.length]!.address;
        for (const i of fencesTo(qs, b.queue, b.address)) {
          const w = qs.get(b.queue)![i]!.words;
          w[1] = next % 2 ** 32;
          w[2] = Math.floor(next / 2 ** 32);
        }
      });
    });
    await expectRefused(
      dir,
      "DMAC6011",
      /\$\.breadcrumbs\[1\]: gpu\d\.sdma\d+ \+0x[0-9a-f]+ writes the breadcrumb word of /,
    );
  });

  it("the entry's steps name other statements", async () => {
    const dir = copyOf("crumbs");
    editManifest(dir, (m) => {
      const steps = m.breadcrumbs![0]!.steps as number[];
      steps.reverse();
    });
    await expectRefused(dir, "DMAC6011", /\$\.breadcrumbs\[0\]\.steps: step 1 /);
  });
});

import { PackedRows } from "../../src/backend/sdma/packed-rows.js";
/** Queue i's source-map rows as PackedRows (the sidecar's form). */
function rowsOf(m: Manifest, i: number): PackedRows {
  const rows = [...m.sourceMap.queues[i]!.entries] as number[][];
  const starts = new Uint32Array(rows.length + 1);
  rows.forEach((r, k) => (starts[k + 1] = starts[k]! + r.length));
  return new PackedRows(Float64Array.from(rows.flat()), starts);
}
