// `dmac disasm` through its command function (argv parsing is commander's): listing, problems as
// diagnostics, exit codes.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodePackets } from "../../../../src/backend/sdma/encode.js";
import { runDisasm, type DisasmCommandOptions } from "../../../../src/cli/commands/disasm.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-disasm-"));

function binFile(name: string, words: readonly number[], extraBytes: number[] = []): string {
  const buf = Buffer.alloc(words.length * 4 + extraBytes.length);
  words.forEach((w, i) => buf.writeUInt32LE(w >>> 0, i * 4));
  extraBytes.forEach((b, i) => (buf[words.length * 4 + i] = b));
  const path = join(dir, name);
  writeFileSync(path, buf);
  return path;
}

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  let code = -1;
  const [command, file, ...rest] = args;
  expect(command).toBe("disasm");
  const opts: Record<string, unknown> = { format: "full", color: "never" };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--json") opts["json"] = true;
    else if (a === "--format") opts["format"] = rest[++i];
    else if (a === "--base-offset") opts["baseOffset"] = rest[++i];
    else if (a === "--max-problems") opts["maxProblems"] = rest[++i];
  }
  const ctx = {
    streams: {
      out: (t: string) => void (out += t),
      err: (t: string) => void (err += t),
      isTTY: false,
    },
    exit: (c: number) => void (code = c),
  };
  code = runDisasm(file!, opts as unknown as DisasmCommandOptions, ctx);
  return { code, out, err };
}

const COPY = [
  ...encodePackets([{ kind: "copy_linear", bytes: 512, src: 0x1_0000_1000, dst: 0x1_0000_2000 }]),
];

describe("dmac disasm", () => {
  it("prints the listing of a clean stream and exits 0", async () => {
    const r = await run("disasm", binFile("clean.bin", COPY));
    expect(r).toEqual({
      code: 0,
      out: "00000000  00000001 000001ff 00000000 00001000 00000001 00002000 00000001  COPY_LINEAR  bytes=512 src=0x100001000 dst=0x100002000\n",
      err: "",
    });
  });

  it("reports unknown and truncated packets as warnings with byte offsets (exit 0)", async () => {
    const r = await run(
      "disasm",
      binFile("bad.bin", [0x3, ...COPY.slice(0, 2)]),
      "--format",
      "concise",
      "--base-offset",
      "0x100",
    );
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("00000100  00000003  .dword 0x00000003  ; unknown opcode 3");
    expect(r.err).toContain("DMAC4101");
    expect(r.err).toContain("at byte 0x00000100: unknown opcode 3");
    expect(r.err).toContain("DMAC4102");
    expect(r.err).toContain("at byte 0x00000104: truncated COPY_LINEAR: needs 7 dwords, 2 left");
  });

  it("warns about a size that is not a multiple of 4 and prints the tail bytes", async () => {
    const r = await run("disasm", binFile("odd.bin", [0], [0xab, 0xcd]), "--format", "concise");
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      "00000000  00000000  NOP  dwords=1\n00000004  .byte 0xab 0xcd  ; not a whole dword\n",
    );
    expect(r.err).toContain(
      "at byte 0x00000004: the file is 6 bytes, not a whole number of dwords",
    );
  });

  it("reports reserved bits and huge addresses", async () => {
    const r = await run(
      "disasm",
      binFile("res.bin", [0x6, 0xf0000000, 0x5, 0, 0xffffffff, 0]),
      "--format",
      "concise",
    );
    expect(r.code).toBe(0);
    expect(r.err).toContain("DMAC4103");
    expect(r.err).toContain("DMAC4104");
  });

  it("prints one JSON document with --json", async () => {
    const r = await run("disasm", binFile("j.bin", [...COPY, 0x3]), "--json", "--format", "json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as {
      packets: { offset: number; raw: string[]; packet: unknown }[];
      problems: unknown[];
    };
    expect(doc.packets[0]).toEqual({
      offset: 0,
      raw: ["00000001", "000001ff", "00000000", "00001000", "00000001", "00002000", "00000001"],
      name: "COPY_LINEAR",
      packet: { kind: "copy_linear", bytes: 512, src: 0x1_0000_1000, dst: 0x1_0000_2000 },
    });
    expect(doc.problems).toEqual([{ offset: 28, code: "DMAC4101", detail: "unknown opcode 3" }]);
  });

  it("writes 64-bit values as hex strings in JSON", async () => {
    const words = [...encodePackets([{ kind: "timestamp_set", value: 0x1_0000_0002n }])];
    const r = await run("disasm", binFile("ts.bin", words), "--json");
    expect(JSON.parse(r.out).packets[0].packet).toEqual({
      kind: "timestamp_set",
      value: "0x100000002",
    });
  });

  it("exits 1 with DMAC5001 when the file cannot be read", async () => {
    const r = await run("disasm", join(dir, "missing.bin"), "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("DMAC5001");
    expect(r.err).toContain("no such file or directory");
  });

  it("text is not a packet stream: DMAC4105, no listing, exit 1", async () => {
    const path = join(dir, "manifest.json");
    writeFileSync(path, '{ "version": 1, "kind": "dmac-manifest" }\n'.repeat(50));
    const r = await run("disasm", path, "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      `DMAC4105 ${path} is not an SDMA packet stream: it is text, and every packet stream holds zero bytes\n`,
    );
  });

  it("stops after --max-problems problems (default 20) with a summary, exit 1", async () => {
    // 100 unknown headers after one good packet.
    const words = [...COPY, ...Array.from({ length: 100 }, (_, i) => 0x40 + i)];
    const r = await run("disasm", binFile("junk.bin", words), "--format", "concise");
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines.filter((l) => l.includes("DMAC4101"))).toHaveLength(20);
    expect(lines.at(-1)).toBe(
      `DMAC4105 ${join(dir, "junk.bin")} is not an SDMA packet stream: 20 problems in its first 108 bytes (of 428); decoding stopped there`,
    );
    // The listing stops where decoding stopped: the packet and the 20 dwords reported.
    expect(r.out.trim().split("\n")).toHaveLength(21);
    const five = await run("disasm", binFile("junk.bin", words), "--max-problems", "5");
    expect(five.err.match(/warning\[DMAC4101\]/g)).toHaveLength(5);
    const all = await run("disasm", binFile("junk.bin", words), "--max-problems", "0");
    expect(all.code).toBe(0);
    expect(all.err.match(/warning\[DMAC4101\]/g)).toHaveLength(100);
    expect(all.err).not.toContain("DMAC4105");
  });

  it("--json reports where it stopped in the document", async () => {
    const words = Array.from({ length: 30 }, (_, i) => 0x40 + i);
    const r = await run("disasm", binFile("junk2.bin", words), "--json", "--format", "json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { packets: unknown[]; stopped: { offset: number } };
    expect(doc.packets).toHaveLength(20);
    expect(doc.stopped.offset).toBe(80);
  });

  it("exits 1 with DMAC5004 on a bad --base-offset", async () => {
    const r = await run(
      "disasm",
      binFile("x.bin", [0]),
      "--base-offset",
      "-4",
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5004");
  });
});
