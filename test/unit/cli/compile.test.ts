import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dmac as run, example } from "../../helpers/cli.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { disassemble } from "../../../src/backend/sdma/disasm.js";
import { MI300X } from "../queues/helpers.js";
import { BUILTIN_TARGETS } from "../../../src/target/target.js";

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "dmac-compile-"));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const words = (path: string): Uint32Array => {
  const b = readFileSync(path);
  const w = new Uint32Array(b.length / 4);
  for (let i = 0; i < w.length; i++) w[i] = b.readUInt32LE(i * 4);
  return w;
};

describe("dmac compile", () => {
  it("writes manifest, one .bin per queue, dump.txt and trace.json for the pcpy all-gather", async () => {
    const out = join(tmp, "out");
    const r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      out,
      "--emit",
      "sdma,dump,trace",
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const files = readdirSync(out).sort();
    expect(files.filter((f) => f.endsWith(".bin"))).toHaveLength(56);
    expect(files).toContain("manifest.json");
    expect(files).toContain("dump.txt");
    expect(files).toContain("trace.json");
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      version: 1,
      kind: "dmac-manifest",
      target: "mi300x",
      ranks: 8,
    });
    expect(manifest.queues).toHaveLength(56);
    for (const q of manifest.queues) {
      const w = words(join(out, q.file));
      expect(w.length).toBe(q.dwords);
      const { packets, problems } = decodeStream(w);
      expect(problems).toEqual([]);
      const kinds = packets.map((p) => p.packet.kind);
      expect(kinds).toEqual(["copy_linear", "atomic"]);
      const copy = packets[0]!.packet;
      const atomic = packets[1]!.packet;
      if (copy.kind !== "copy_linear" || atomic.kind !== "atomic") throw new Error("kinds");
      // header dwords and count as bytes - 1
      expect(w[0]).toBe(0x00000001);
      expect(w[1]).toBe(8192 - 1);
      expect(w[7]).toBe(0x5e00000a);
      expect(atomic.src).toBe(0xffff_ffff_ffff_ffffn);
      // the copy goes from this queue's GPU to the peer whose engine this is
      const src = manifest.memory.buffers.find((b: { gpu: number }) => b.gpu === q.gpu);
      const dstBuf = manifest.memory.buffers.find(
        (b: { address: number; size: number }) =>
          copy.dst >= b.address && copy.dst < b.address + b.size,
      );
      expect(copy.src).toBe(src.address + q.gpu * 8192);
      expect(q.engine).toBe(MI300X.recommendedEngine.map[q.gpu]![dstBuf.gpu]);
      // the relocation table names both address pairs of the copy and the atomic's address
      const rel = manifest.relocations.find((x: { queue: string }) => x.queue === q.name).entries;
      expect(rel.filter((_: number, i: number) => i % 3 === 0)).toEqual([3, 5, 8]);
    }
    const dump = readFileSync(join(out, "dump.txt"), "utf8");
    expect(dump).toMatch(/^# queue gpu0\.sdma2: gpu 0, engine 2, 15 dwords/m);
    expect(dump).toContain("COPY_LINEAR");
    const trace = JSON.parse(readFileSync(join(out, "trace.json"), "utf8"));
    expect(trace.kind).toBe("dmac-trace");
    expect(trace.queues[0].cmds.map((c: { op: string }) => c.op)).toEqual(["copy", "atomic"]);
  });

  it("writes dump.txt only on request (--dump or --emit dump), streamed with the same bytes", async () => {
    const plain = join(tmp, "plain");
    expect((await run("compile", example("pipelined_all_gather.dmac"), "-o", plain)).code).toBe(0);
    expect(readdirSync(plain)).not.toContain("dump.txt");
    expect(readdirSync(plain)).toContain("manifest.json");
    const withDump = join(tmp, "dump");
    const r = await run(
      "compile",
      example("pipelined_all_gather.dmac"),
      "-o",
      withDump,
      "--dump",
      "--raw",
    );
    expect(r.code, r.err).toBe(0);
    const dump = readFileSync(join(withDump, "dump.txt"), "utf8");
    // --raw: the plain disassembly of each stream, in the manifest's queue order (the annotated
    // default is test/unit/backend/sdma/listing-cli.test.ts's).
    const manifest = JSON.parse(readFileSync(join(withDump, "manifest.json"), "utf8"));
    let expected = "";
    for (const q of manifest.queues) {
      const w = words(join(withDump, q.file));
      expected += `# queue ${q.name}: gpu ${q.gpu}, engine ${q.engine}, ${w.length} dwords (${q.file})\n`;
      expected += disassemble(w) + "\n";
    }
    expect(dump).toBe(expected);
    // --emit dump alone: only the listing.
    const only = join(tmp, "only");
    expect(
      (
        await run(
          "compile",
          example("pipelined_all_gather.dmac"),
          "-o",
          only,
          "--emit",
          "dump",
          "--raw",
        )
      ).code,
    ).toBe(0);
    expect(readdirSync(only).sort()).toEqual([".dmac-output", "dump.txt"]);
    expect(readFileSync(join(only, "dump.txt"), "utf8")).toBe(dump);
  });

  it("is deterministic: compiling twice gives identical bytes", async () => {
    const a = join(tmp, "a");
    const b = join(tmp, "b");
    for (const d of [a, b]) {
      const r = await run(
        "compile",
        example("pipelined_all_gather.dmac"),
        "-o",
        d,
        "--emit",
        "sdma,trace",
      );
      expect(r.code, r.err).toBe(0);
    }
    const files = readdirSync(a).sort();
    expect(readdirSync(b).sort()).toEqual(files);
    for (const f of files)
      expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
  });

  it("a failing compile leaves the previous output directory unchanged and no temp dir", async () => {
    const out = join(tmp, "out");
    expect((await run("compile", example("all_gather_pcpy.dmac"), "-o", out)).code).toBe(0);
    const before = readdirSync(out).map((f) => [f, readFileSync(join(out, f))] as const);
    const bad = join(tmp, "bad.dmac");
    writeFileSync(
      bad,
      "target mi300x\nschedule s() { buffer b: 4KiB\n copy b@0[0 +: 8KiB] -> b@1[0 +: 8KiB] }\n",
    );
    const r = await run("compile", bad, "-o", out, "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC3001");
    expect(readdirSync(out).length).toBe(before.length);
    for (const [f, data] of before) expect(readFileSync(join(out, f)).equals(data)).toBe(true);
    expect(readdirSync(tmp).filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("replaces an existing output directory completely on success", async () => {
    const out = join(tmp, "out");
    // An earlier output with queues the next one does not have (the root's 7 queues vs 56).
    expect((await run("compile", example("all_gather_pcpy.dmac"), "-o", out)).code).toBe(0);
    expect(existsSync(join(out, "gpu7.sdma2.bin"))).toBe(true);
    expect((await run("compile", example("broadcast.dmac"), "-o", out)).code).toBe(0);
    expect(existsSync(join(out, "gpu7.sdma2.bin"))).toBe(false);
    expect(readdirSync(tmp)).toEqual(["out"]);
  });

  it("reports DMAC5002 when the output cannot be written", async () => {
    const file = join(tmp, "file");
    writeFileSync(file, "not a dir");
    const r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      join(file, "out"),
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5002");
  });

  it("rejects bad option values with DMAC5004", async () => {
    const out = join(tmp, "out");
    let r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      out,
      "--emit",
      "sdma,pdf",
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5004");
    r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      out,
      "--max-copy-bytes",
      "4096",
      "--conservative-count",
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5004");
    expect(existsSync(out)).toBe(false);
  });

  it("--completion fence signals completion with FENCE 0; --conservative-count splits at 0x3FFFE0", async () => {
    const out = join(tmp, "out");
    const r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      out,
      "-D",
      "chunk=8MiB",
      "--completion",
      "fence",
      "--conservative-count",
    );
    expect(r.code, r.err).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.completion.protocol).toBe("fence");
    const { packets } = decodeStream(words(join(out, manifest.queues[0].file)));
    const kinds = packets.map((p) => p.packet.kind);
    expect(kinds).toEqual(["copy_linear", "copy_linear", "copy_linear", "fence"]);
    const copies = packets
      .slice(0, 3)
      .map((p) => p.packet as { bytes: number; src: number; dst: number });
    const max = 0x3fffe0;
    expect(copies.map((c) => c.bytes)).toEqual([max, max, 8 * 1024 * 1024 - 2 * max]);
    expect(copies[1]!.src - copies[0]!.src).toBe(max);
    expect(copies[2]!.dst - copies[1]!.dst).toBe(max);
    const fence = packets[3]!.packet;
    const slots = manifest.memory.completionSignals;
    const slot = manifest.queues[0].completionSlots[0];
    expect(fence).toMatchObject({ kind: "fence", data: 0, addr: slots.base + slot * slots.stride });
  });
});

describe("a CUDA target (h100)", () => {
  it("rejects the options that only SDMA output has (they were silently ignored)", async () => {
    const out = join(tmp, "out");
    const compile = (...args: string[]) =>
      run(
        "compile",
        example("host_upload_pieces.dmac"),
        "--target",
        "h100",
        "-o",
        out,
        "--format",
        "concise",
        ...args,
      );
    for (const args of [
      ["--breadcrumbs"],
      ["--dump"],
      ["--emit", "sdma,trace"],
      ["--raw"],
      ["--max-stream-bytes", "4096"],
    ]) {
      const r = await compile(...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.err, args.join(" ")).toMatch(
        new RegExp(`DMAC5004 bad ${args[0] === "--dump" ? "--dump" : args[0]}: target h100 .*CUDA`),
      );
      expect(existsSync(out)).toBe(false);
    }
    const ok = await compile();
    expect(ok.code, ok.err).toBe(0);
    expect(
      readdirSync(out)
        .filter((f) => !f.startsWith("."))
        .sort(),
    ).toEqual(["program.json", "program.txt"]);
  });
});

describe("--target's help", () => {
  it.each(["check", "ir", "compile"])("%s lists every built-in target", async (command) => {
    const r = await run(command, "--help");
    const help = r.out.replace(/\s+/g, " ");
    for (const name of BUILTIN_TARGETS) expect(help).toContain(name);
  });
});

// dmac golden: test/e2e/golden-workflow.test.ts and test/unit/golden/.
