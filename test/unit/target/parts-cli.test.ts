// The part targets through the CLI: every example compiles for every part or fails with
// diagnostics that name the part's limit (DMAC4201-4204, DMAC3004); mi355x splits a 512 MiB copy
// at its 128 MiB descriptor cap and the executor verifies the result; `dmac target import`
// reproduces mi300x's engine map from the fixture tree and refuses hostile trees (DMAC5101).

import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { bytesToDwords } from "../../../src/cli/commands/disasm.js";
import { BUILTIN_TARGETS, builtinPath } from "../../../src/target/target.js";
import { dmac, example } from "../../helpers/cli.js";

const tmp = mkdtempSync(join(tmpdir(), "dmac-parts-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = fileURLToPath(new URL("../../fixtures/kfd-mi300x", import.meta.url));
const write = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const json = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(builtinPath(name), "utf8")) as Record<string, unknown>;
const examples = readdirSync(fileURLToPath(new URL("../../../examples", import.meta.url))).filter(
  (f) => f.endsWith(".dmac"),
);
const PART_LIMIT = /DMAC(4201|4202|4203|4204|3004) .*(target (mi\d+x)|the target has engines)/;

describe("examples on every part target", () => {
  it.each(BUILTIN_TARGETS)("%s: compiles, or names the part's limit", async (target) => {
    for (const f of examples) {
      const out = join(tmp, `${target}-${f}`);
      const r = await dmac(
        "compile",
        example(f),
        "--target",
        target,
        "-o",
        out,
        "--format",
        "concise",
      );
      if (r.code === 0) continue;
      expect(r.code, `${f}: ${r.err}`).toBe(1);
      for (const line of r.err.trim().split("\n"))
        if (/^DMAC\d+/.test(line)) expect(line, f).toMatch(PART_LIMIT);
    }
  });

  it("mi300x and mi325x compile every example; mi355x refuses GPU-to-GPU copies (DMAC4201)", async () => {
    for (const t of ["mi300x", "mi325x"])
      for (const f of examples)
        expect((await dmac("compile", example(f), "--target", t, "-o", join(tmp, "x"))).code).toBe(
          0,
        );
    const r = await dmac(
      "compile",
      example("all_gather_pcpy.dmac"),
      "--target",
      "mi355x",
      "-o",
      join(tmp, "y"),
      "--format",
      "concise",
    );
    expect(r.err).toMatch(/DMAC4201 target mi355x: which engine serves GPU 0's peers is unknown/);
  });
});

/** The byte counts of the COPY_LINEAR packets of one stream. */
const copies = (path: string): number[] =>
  decodeStream(bytesToDwords(readFileSync(path)))
    .packets.map((e) => e.packet)
    .filter((p) => p.kind === "copy_linear")
    .map((p) => (p as { bytes: number }).bytes);

describe("mi355x descriptor cap", () => {
  const src = (target: string, to: number) =>
    write(
      `big-${to}.dmac`,
      `target ${target}\n\nschedule big(size: bytes = 512MiB) {\n  buffer a: size\n  buffer b: size\n  copy a@0[0 +: size] -> b@${to}[0 +: size]\n}\n`,
    );

  it("splits a 512 MiB copy at 128 MiB and the executor verifies it", async () => {
    const out = join(tmp, "mi355x-local");
    expect((await dmac("compile", src("mi355x", 0), "-o", out)).code).toBe(0);
    expect(copies(join(out, "gpu0.sdma0.bin"))).toEqual(new Array(4).fill(128 * 2 ** 20));
    const sim = await dmac("sim", out);
    expect(sim.code).toBe(0);
    expect(sim.out).toMatch(/^verified: every buffer ends as the schedule.s copies say/);
    expect(sim.out).toMatch(
      /fallbacks +target mi355x marks 18 figures unknown; .*links\.usableGBps = 57\.6/,
    );
  });

  it("splits GPU-to-GPU copies the same way with an imported map", async () => {
    // An MI355X node whose topology is known: mi355x's part facts, mi300x's engines and map
    // (what `dmac target import --base mi355x` gives on a node with that topology).
    const t = json("mi355x");
    const m = json("mi300x");
    const file = write(
      "mi355x-node.json",
      JSON.stringify({ ...t, engines: m["engines"], recommendedEngine: m["recommendedEngine"] }),
    );
    const out = join(tmp, "mi355x-peer");
    expect((await dmac("compile", src("mi355x", 1), "--target", file, "-o", out)).code).toBe(0);
    expect(copies(join(out, "gpu0.sdma14.bin"))).toEqual(new Array(4).fill(128 * 2 ** 20));
    expect((await dmac("sim", out)).out).toMatch(/^verified/);
    // The same copy on mi300x is one 512 MiB packet.
    const o300 = join(tmp, "mi300x-peer");
    expect((await dmac("compile", src("mi300x", 1), "-o", o300)).code).toBe(0);
    expect(copies(join(o300, "gpu0.sdma14.bin"))).toEqual([512 * 2 ** 20]);
  });

  it("refuses --max-copy-bytes above the part's limit (DMAC4204)", async () => {
    const r = await dmac(
      "compile",
      src("mi355x", 0),
      "--max-copy-bytes",
      String(256 * 2 ** 20),
      "-o",
      join(tmp, "z"),
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      "DMAC4204 target mi355x: copies split at 268435456 bytes exceed the part's descriptor limit of 134217728 bytes (limits.maxCopyBytes)\n",
    );
  });
});

describe("engines and poll functions the part lacks", () => {
  it("refuses a queue on a fused-off engine (DMAC4202)", async () => {
    const f = write(
      "fused.dmac",
      "target mi308x\n\nschedule s() {\n  buffer a: 4KiB\n  buffer b: 4KiB\n  copy a@0[0 +: 4KiB] -> b@0[0 +: 4KiB] on sdma(3)\n}\n",
    );
    const r = await dmac("compile", f, "-o", join(tmp, "f"), "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /fused\.dmac:6:3: DMAC4202 target mi308x: queue gpu0\.sdma3 is on engine 3, which has no hardware \(engines\.physical lists 0, 2, 4, 6\)/,
    );
    const ok = write("fused-ok.dmac", readFileSync(f, "utf8").replace("sdma(3)", "sdma(4)"));
    expect((await dmac("compile", ok, "-o", join(tmp, "g"))).code).toBe(0);
  });

  it("refuses a poll function the target does not list (DMAC4203)", async () => {
    const only = write(
      "eq-only.json",
      JSON.stringify({ ...json("mi300x"), name: "eq-only", pollFunctions: ["eq"] }),
    );
    const r = await dmac(
      "compile",
      example("ring_all_gather.dmac"),
      "--target",
      only,
      "--sync",
      "aggressive", // the conservative forms poll only with ==
      "-o",
      join(tmp, "p"),
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /DMAC4203 target eq-only does not run POLL_REGMEM 'ge' \(its pollFunctions: eq\)/,
    );
  });
});

describe("dmac target import", () => {
  it("reproduces mi300x's engines and engine map from the fixture tree", async () => {
    const out = join(tmp, "imported.json");
    const r = await dmac("target", "import", fixture, "-o", out);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const got = JSON.parse(readFileSync(out, "utf8")) as Record<string, { source?: string }>;
    const want = json("mi300x") as Record<string, { source?: string }>;
    const noSource = (o: { source?: string } | undefined) => ({ ...o, source: undefined });
    expect(noSource(got["engines"])).toEqual(noSource(want["engines"]));
    expect(noSource(got["recommendedEngine"])).toEqual(noSource(want["recommendedEngine"]));
    expect(got["gpus"]).toBe(8);
    expect(got["engines"]!.source).toMatch(/num_sdma_engines 2, num_sdma_xgmi_engines 14/);
    // The import is a target: compile for it, and simulate.
    const o = join(tmp, "imp-out");
    expect(
      (await dmac("compile", example("all_gather_pcpy.dmac"), "--target", out, "-o", o)).code,
    ).toBe(0);
    expect((await dmac("sim", o)).out).toMatch(/^verified/);
  });

  it("refuses a base of another ISA", async () => {
    const r = await dmac("target", "import", fixture, "--base", "mi355x", "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /DMAC5101 \.: its GPUs are gfx942 but the base target mi355x describes gfx950/,
    );
  });

  const hostile = (name: string, change: (root: string) => void): string => {
    const root = join(tmp, name);
    cpSync(fixture, root, { recursive: true });
    change(root);
    return root;
  };
  it.each([
    ["missing file", (r: string) => rmSync(join(r, "3/properties")), /3\/properties: no such file/],
    [
      "non-numeric value",
      (r: string) => writeFileSync(join(r, "4/properties"), "simd_count many\n"),
      /4\/properties: line 1 is not 'name value'/,
    ],
    [
      "huge file",
      (r: string) => writeFileSync(join(r, "2/properties"), "x 1\n".repeat(20000)),
      /2\/properties: is 80000 bytes, more than the limit of 64 KiB/,
    ],
    [
      "symlink loop",
      (r: string) => {
        rmSync(join(r, "5/io_links/2/properties"));
        symlinkSync("properties", join(r, "5/io_links/2/properties"));
      },
      /5\/io_links\/2\/properties: too many levels of symbolic links/,
    ],
    [
      "missing xGMI link",
      (r: string) => rmSync(join(r, "6/io_links/3"), { recursive: true }),
      /6\/io_links: has no xGMI link to node/,
    ],
    [
      "no mask",
      (r: string) =>
        writeFileSync(join(r, "7/io_links/1/properties"), "type 11\nnode_from 7\nnode_to 2\n"),
      /has no recommended_sdma_engine_id_mask/,
    ],
    [
      "empty tree",
      (r: string) => {
        for (const n of readdirSync(r)) rmSync(join(r, n), { recursive: true });
      },
      /DMAC5101 \.: no GPU node/,
    ],
  ] as const)("refuses a tree with a %s (DMAC5101)", async (name, change, message) => {
    const r = await dmac(
      "target",
      "import",
      hostile(name.replace(/ /g, "-"), change),
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/^DMAC5101 /);
  });
});

describe("manifest packetStarts", () => {
  it("gives every packet's dword offset, and dmac sim refuses wrong ones", async () => {
    const out = join(tmp, "starts");
    expect((await dmac("compile", example("all_to_all_pcpy.dmac"), "-O2", "-o", out)).code).toBe(0);
    const path = join(out, "manifest.json");
    const manifest = JSON.parse(readFileSync(path, "utf8")) as {
      queues: { file: string; packetStarts: number[] }[];
    };
    for (const q of manifest.queues) {
      const decoded = decodeStream(bytesToDwords(readFileSync(join(out, q.file))));
      expect(q.packetStarts).toEqual(decoded.packets.map((e) => e.offset / 4));
    }
    const q0 = manifest.queues[0]!;
    q0.packetStarts[1] = q0.packetStarts[1]! + 1;
    writeFileSync(path, JSON.stringify(manifest));
    const r = await dmac("sim", out, "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /\$\.queues\[0\]\.packetStarts.*entry 1 is \d+, but packet 1 of .* starts at dword \d+: /,
    );
  });
});
