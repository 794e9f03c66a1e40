// Annotated listings through the CLI: `dmac disasm` of a compiled stream beside its manifest, for
// three examples, pinned in golden files beside this test (__listings__/), and the same listing
// in the dump.txt of `dmac compile` (whose goldens are test/golden/expected/examples/*.dump.golden); `--raw`; a manifest that cannot be used (DMAC4106); a missing or changed
// source (said once in the header).
//
//   Re-bless after an intended change:  npx vitest run test/unit/backend/sdma/listing-cli.test.ts -u

import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example, runCli } from "../../../helpers/cli.js";

const root = mkdtempSync(join(tmpdir(), "dmac-listing-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Example, -O level, the queue whose disasm is pinned (one with the example's packet kinds). */
const CASES = [
  ["broadcast", "0", "gpu0.sdma2"],
  ["all_to_all_swap", "0", "gpu0.sdma2"],
  ["pipelined_all_gather", "1", "gpu7.sdma4"],
] as const;

const out = (name: string): string => join(root, name);

beforeAll(async () => {
  for (const [name, level] of CASES) {
    // The source given relative to the working directory, as a user would (the tests run from
    // the repository root): the listings name it so, on every machine.
    const src = relative(process.cwd(), example(`${name}.dmac`));
    const r = await runCli(["compile", src, "-o", out(name), `-O${level}`, "--dump"]);
    expect(r.code, r.err).toBe(0);
  }
});

describe("annotated listings of three examples", () => {
  for (const [name, , queue] of CASES) {
    it(`${name}: disasm ${queue}.bin`, async () => {
      const r = await runCli(["disasm", join(out(name), `${queue}.bin`)]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^# source: examples\//);
      expect(r.out).toMatch(/^; \d+ \[\w+=\d+[^\]]*\]: /m);
      expect(r.out).toMatch(/ (src|a|addr)=(buf|ready|sync|completion|trigger)/);
      await expect(r.out).toMatchFileSnapshot(`__listings__/${name}.${queue}.disasm.txt`);
    });
    // dump.txt of every example is pinned by test/golden/expected/examples/*.dump.golden.
    it(`${name}: dump.txt is annotated the same way`, async () => {
      const dump = readFileSync(join(out(name), "dump.txt"), "utf8");
      const disasm = await runCli(["disasm", join(out(name), `${queue}.bin`)]);
      const body = disasm.out.slice(disasm.out.indexOf(`# queue ${queue}:`));
      const lines = body.split("\n").slice(1).join("\n");
      expect(dump).toMatch(/^# source: examples\//);
      expect(dump).toContain(lines.trimEnd());
      expect(dump).not.toContain("warning:");
    });
  }

  it("disasm --json carries the same annotations as fields", async () => {
    const r = await runCli(["disasm", join(out("broadcast"), "gpu0.sdma2.bin"), "--json"]);
    const doc = JSON.parse(r.out) as {
      annotations: unknown;
      packets: { name: string; symbols: unknown; source: unknown }[];
    };
    expect(doc.annotations).toEqual({ queue: "gpu0.sdma2", source: "examples/broadcast.dmac" });
    expect(doc.packets[0]).toMatchObject({
      name: "COPY_LINEAR",
      symbols: { src: "buf@0", dst: "buf@3" },
      source: { stmt: 0, line: 7, col: 5, ops: [2], text: "copy buf@root -> buf@p" },
    });
    expect(doc.packets[1]).toMatchObject({ name: "ATOMIC", symbols: { addr: "completion[2]" } });
  });
});

describe("self-checks", () => {
  it("a count patched past the end of its buffers is a warning on the packet's line", async () => {
    const dir = out("patched");
    cpSync(out("broadcast"), dir, { recursive: true });
    const bin = join(dir, "gpu0.sdma2.bin");
    const bytes = readFileSync(bin);
    bytes.writeUInt32LE(0x0010ffff, 4); // COPY_LINEAR count: 1 MiB + 64 KiB - 1
    writeFileSync(bin, bytes);
    const r = await runCli(["disasm", bin]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "COPY_LINEAR  bytes=1088 KiB src=buf@0 dst=buf@3  ; warning: src runs 64 KiB past the end of buf@0 (1 MiB); warning: dst runs 64 KiB past the end of buf@3 (1 MiB)\n",
    );
  });
});

describe("plain listings", () => {
  it("disasm --raw and compile --raw print addresses in hex, nothing else", async () => {
    const bin = join(out("broadcast"), "gpu0.sdma2.bin");
    const raw = await runCli(["disasm", bin, "--raw"]);
    expect(raw.out).toBe(
      "00000000  00000001 000fffff 00000000 00000000 00007000 00000000 000070c0  COPY_LINEAR  bytes=1048576 src=0x700000000000 dst=0x70c000000000\n" +
        "0000001c  5e00000a 00000080 00006f00 ffffffff ffffffff 00000000 00000000 00000000  ATOMIC  op=add64 addr=0x6f0000000080 src=0xffffffffffffffff\n",
    );
    const dir = out("broadcast-raw");
    const r = await runCli(["compile", example("broadcast.dmac"), "-o", dir, "--dump", "--raw"]);
    expect(r.code, r.err).toBe(0);
    const dump = readFileSync(join(dir, "dump.txt"), "utf8");
    expect(
      dump.startsWith(
        "# queue gpu0.sdma2: gpu 0, engine 2, 15 dwords (gpu0.sdma2.bin)\n" + raw.out,
      ),
    ).toBe(true);
    expect(dump).not.toMatch(/buf@|^; /m);
  });

  it("a stream without a manifest beside it: the plain listing, silently", async () => {
    const lone = out("lone");
    cpSync(join(out("broadcast"), "gpu0.sdma2.bin"), join(lone, "gpu0.sdma2.bin"), {
      recursive: true,
    });
    const r = await runCli(["disasm", join(lone, "gpu0.sdma2.bin")]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    expect(r.out).not.toContain("buf@");
  });

  it("a manifest that is not the stream's: DMAC4106, the plain listing, exit 0", async () => {
    const r = await runCli([
      "disasm",
      join(out("broadcast"), "gpu0.sdma2.bin"),
      "--manifest",
      join(out("all_to_all_swap"), "manifest.json"),
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("warning[DMAC4106]");
    expect(r.err).toContain("do not hold the address its relocations give");
    expect(r.out).not.toContain("buf@");
  });
});

describe("the source the manifest records", () => {
  /** A copy of the broadcast output whose manifest records `source` (as given). */
  function withSource(name: string, source: string | undefined): string {
    const dir = out(name);
    cpSync(out("broadcast"), dir, { recursive: true });
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as {
      sourceMap: { file: string };
      targetFile?: unknown;
    };
    delete m.targetFile; // sourceMap.file as given to the compiler
    if (source !== undefined) m.sourceMap.file = source;
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
    return dir;
  }

  it("missing: said once in the header, line numbers without text", async () => {
    const dir = withSource("no-source", join(root, "gone.dmac"));
    const r = await runCli(["disasm", join(dir, "gpu0.sdma2.bin")]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("gone.dmac (no such file or directory: no source lines)\n");
    // (The loop instance is the manifest's: it needs no source.)
    expect(r.out).toMatch(/^; 7 \[p=\d+\]\n00000000 /m);
  });

  it("changed since the compile: no source lines", async () => {
    const changed = join(root, "changed.dmac");
    writeFileSync(changed, "target mi300x\n");
    const dir = withSource("changed-source", changed);
    const r = await runCli(["disasm", join(dir, "gpu0.sdma2.bin")]);
    expect(r.out).toContain("changed since the compile");
    expect(r.out).not.toContain("; 7: ");
  });

  it("modified after the manifest: no source lines", async () => {
    const copy = join(root, "newer.dmac");
    cpSync(example("broadcast.dmac"), copy);
    const dir = withSource("newer-source", copy);
    const later = new Date(Date.now() + 60_000);
    utimesSync(copy, later, later);
    const r = await runCli(["disasm", join(dir, "gpu0.sdma2.bin")]);
    expect(r.out).toContain("modified after the manifest was written");
    expect(r.out).not.toContain("; 7: ");
  });
});
