// Red-team class 8 (issue 11): what a new user met in the first hours. The "longer example" of
// docs/language.md failed `dmac check`; `dmac disasm` of a file that is not a packet stream
// printed a warning per dword and exited 0; -O2 predicted without --signal-period and -O1 was
// slower than -O0 with it; a 1 MB literal, path or -D value was echoed back in full (3 MB of
// stderr); `0x`, `0xG`, `0x10KiB` were "unknown size unit"; a UTF-8 byte order mark was an error
// and CR-only line endings put everything on line 1; `-D __proto__=1` was silently ignored.
// (`sim --trace` over its input and `golden --update` through a symbolic link are in
// output-safety.test.ts.) Every block of dmac source in the docs is checked by
// test/unit/docs/code-blocks.test.ts.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac, example } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-adv-cli-"));
const file = (name: string, text: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("docs/language.md's longer example", () => {
  const md = readFileSync("docs/language.md", "utf8");
  const section = md.slice(md.indexOf("## A longer example"));
  const text = /```dmac\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const path = file("longer.dmac", text);

  for (const defines of [[], ["-D", "n=0"], ["-D", "big=true", "-D", "n=8"]]) {
    it(`dmac check accepts it ${defines.join(" ") || "(defaults)"}, with no warning`, async () => {
      expect(text).toContain("schedule x(");
      const r = await dmac("check", path, ...defines, "--format", "concise");
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
    });
  }

  it("dmac sim runs it and verifies it", async () => {
    const r = await dmac("sim", path, "--format", "concise");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^verified/);
  });
});

describe("dmac disasm of something that is not an SDMA stream", () => {
  it("a text file: DMAC4105 once, no listing, exit 1 (was 229 warnings and exit 0)", async () => {
    const r = await dmac("disasm", "README.md", "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err.trim().split("\n")).toEqual([
      "DMAC4105 README.md is not an SDMA packet stream: it is text, and every packet stream holds zero bytes",
    ]);
  });

  it("a binary that is not packets: at most 20 problems, then a summary and exit 1", async () => {
    // A deterministic non-stream: 64 KiB of a simple generator's bytes.
    const bytes = Buffer.alloc(65536);
    let x = 12345;
    for (let i = 0; i < bytes.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      bytes[i] = x >>> 24;
    }
    const r = await dmac("disasm", file("noise.bin", bytes), "--format", "concise");
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines.length).toBe(21);
    expect(lines.slice(0, 20).every((l) => /^DMAC410[1-4] /.test(l))).toBe(true);
    expect(lines[20]).toMatch(/DMAC4105 .*noise\.bin is not an SDMA packet stream: 20 problems/);
    expect(r.out.split("\n").length).toBeLessThan(100);
  });

  it("a stream dmac wrote is still listed in full with no problem (exit 0)", async () => {
    const out = join(dir, "out");
    expect((await dmac("compile", example("broadcast.dmac"), "-o", out)).code).toBe(0);
    const r = await dmac("disasm", join(out, "gpu0.sdma14.bin"));
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    expect(r.out).toContain("COPY_LINEAR");
  });
});

describe("the optimiser predicts with the run's --signal-period", () => {
  const PIPELINED = example("pipelined_all_gather.dmac");
  const time = async (...args: string[]): Promise<number> => {
    const r = await dmac("sim", PIPELINED, ...args, "--json");
    expect(r.code).toBe(0);
    return (JSON.parse(r.out) as { totalUs: number }).totalUs;
  };

  it("-O2's chosen plan predicts the time the run takes with --signal-period", async () => {
    for (const period of ["20", "50"]) {
      const r = await dmac("sim", PIPELINED, "-O2", "--signal-period", period, "--json");
      const j = JSON.parse(r.out) as { totalUs: number; plan: { predictedUs: number } };
      // It used to predict as if every signal were raised at time 0 (about 45 us, whatever the
      // period).
      expect(j.plan.predictedUs).toBeCloseTo(j.totalUs, 6);
    }
  });

  it("-O1 is never slower than -O0, at any --signal-period", async () => {
    const slower: string[] = [];
    for (const period of [1, 5, 13, 20, 29, 37, 50, 64, 71, 77, 85, 100, 128]) {
      const p = ["--signal-period", String(period)];
      const [o0, o1] = [await time("-O0", ...p), await time("-O1", ...p)];
      if (o1 > o0 + 1e-9) slower.push(`period ${period}: -O0 ${o0} us, -O1 ${o1} us`);
    }
    expect(slower).toEqual([]);
  });

  it("--stats says what the -O1 check found", async () => {
    const r = await dmac("sim", PIPELINED, "-O1", "--signal-period", "77", "--stats");
    expect(r.out).toMatch(/^-O1 check: (kept the -O0 program|not slower than -O0): -O0 predicted/m);
  });
});

describe("echoed user text is bounded", () => {
  const MB = 1 << 20;

  it("a 1 MB literal: a few hundred bytes of stderr, with its length (was 3 MB)", async () => {
    const path = file("big.dmac", `schedule s() {\n  buffer b: ${"9".repeat(MB)}B\n}\n`);
    for (const format of ["full", "concise", "json"]) {
      const r = await dmac("check", path, "--format", format);
      expect(r.code).toBe(1);
      const text = r.out + r.err;
      expect(text.length, format).toBeLessThan(2000);
      expect(text).toContain(`[${MB + 1} characters]`);
    }
  });

  it("a 1 MB -D value, and a -D name, are shortened the same way", async () => {
    const cases = [`size=${"1".repeat(MB)}`, `size=${"a".repeat(MB)}`, `${"x".repeat(MB)}=1`];
    for (const define of cases) {
      const r = await dmac("check", example("broadcast.dmac"), "-D", define);
      expect(r.code).toBe(1);
      expect(r.err.length).toBeLessThan(2000);
      expect(r.err).toMatch(/\[\d+ characters\]/);
    }
    // A long expression (blanks between short words) is cut as a whole.
    const r = await dmac(
      "check",
      example("broadcast.dmac"),
      "-D",
      `size=${"a + ".repeat(MB / 4)}1`,
    );
    expect(r.code).toBe(1);
    expect(r.err.length).toBeLessThan(4000);
  });

  it("a path too long to open is shortened in the message", async () => {
    const r = await dmac("check", "a/".repeat(5000) + "x.dmac", "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err.length).toBeLessThan(1000);
    expect(r.err).toContain("DMAC5001");
  });
});

describe("malformed hex literals", () => {
  for (const lit of ["0x", "0xG", "0x10KiB", "0x_1"]) {
    it(`${lit} is DMAC1005, not an unknown size unit`, async () => {
      const path = file(`hex-${lit}.dmac`, `schedule s() {\n  let v = ${lit}\n}\n`);
      const r = await dmac("check", path, "--format", "concise");
      expect(r.code).toBe(1);
      expect(r.err).toContain(`DMAC1005 malformed hex literal '${lit}'`);
      expect(r.err).not.toContain("DMAC1003");
    });
  }
});

describe("source text encodings", () => {
  const lines = [
    "target mi300x",
    "schedule s() {",
    "  buffer b: 1KiB",
    "  copy b@0 -> b@9",
    "}",
    "",
  ];

  it("a UTF-8 byte order mark is skipped (was DMAC1001 U+FEFF)", async () => {
    const path = file(
      "bom.dmac",
      "\ufeff" + lines.slice(0, 3).join("\n") + "\n  fill b@0 with 1\n}\n",
    );
    const r = await dmac("check", path);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });

  for (const [name, nl] of [
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ] as const) {
    it(`${name} line endings give the same line:column (CR-only used to be line 1)`, async () => {
      const path = file(`eol-${name}.dmac`, lines.join(nl));
      const concise = await dmac("check", path, "--format", "concise");
      expect(concise.err).toContain(`eol-${name}.dmac:4:17: DMAC3003`);
      const full = await dmac("check", path, "--color", "never");
      expect(full.err).toContain("4 |   copy b@0 -> b@9\n");
      expect(full.err).not.toContain("\r");
    });
  }
});

describe("-D names are own keys", () => {
  it("-D __proto__=1 is an unknown parameter (DMAC2009), not silently ignored", async () => {
    const r = await dmac("check", example("broadcast.dmac"), "-D", "__proto__=1");
    expect(r.code).toBe(1);
    expect(r.err).toContain("has no parameter '__proto__'");
  });

  it("a parameter named __proto__ can be set", async () => {
    const path = file(
      "proto.dmac",
      "schedule s(__proto__: int = 0) {\n  buffer b: 1KiB\n  fill b@__proto__ with 1\n}\n",
    );
    const r = await dmac("check", path, "-D", "__proto__=9", "--format", "concise");
    expect(r.err).toContain("DMAC3003 rank 9 is outside the target");
  });
});

describe("variant specs: __proto__ is a parameter name like any other", () => {
  it("sweep FILE@O0,__proto__=1 reports an unknown parameter", async () => {
    const r = await dmac(
      "sweep",
      "examples/all_gather_pcpy.dmac@O0,__proto__=1",
      "--param",
      "chunk",
      "--sizes",
      "1KiB..2KiB",
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC2009.*__proto__/);
  });
});
