// End-to-end tests of `dmac check` and `dmac explain` through main(), with captured streams.

import { describe, expect, it, beforeAll } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dmac as run } from "../../helpers/cli.js";

let dir = "";
const path = (name: string) => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "dmac-check-"));
  writeFileSync(
    path("ok.dmac"),
    `schedule s(chunk: bytes = 1KiB) {\n  buffer buf: chunk * ranks\n  copy buf@0[0 +: chunk] -> buf@1[0 +: chunk]\n}\n`,
  );
  writeFileSync(
    path("warn.dmac"),
    `schedule s(unused: int = 1) {\n  buffer buf: 1KiB\n  copy buf@0 -> buf@1\n}\n`,
  );
  writeFileSync(
    path("bad.dmac"),
    `schedule s(chunk: bytes = 1KiB) {\n  buffer buf: chunk * ranks\n  copy buf@0[1 + chunk +: chunk] -> buf@1\n}\n`,
  );
  writeFileSync(
    path("two.dmac"),
    `schedule a(x: int) { let _y = x }\nschedule b() { buffer q: 1KiB\n fill q@0 with 1 }\n`,
  );
  writeFileSync(path("node.json"), `{"version": 1}`);
});

describe("dmac check", () => {
  it("exits 0 and prints nothing for a clean file", async () => {
    expect(await run("check", path("ok.dmac"))).toEqual({ code: 0, out: "", err: "" });
  });

  it("exits 0 with warnings", async () => {
    const r = await run("check", path("warn.dmac"), "--color", "never");
    expect(r.code).toBe(0);
    expect(r.err).toContain("warning[DMAC2008]: parameter 'unused' is never used");
  });

  it("exits 1 with errors, rendered in full by default", async () => {
    const r = await run("check", path("bad.dmac"), "--color=never");
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `error[DMAC2004]: operator '+' cannot be applied to int and bytes\n --> ${path("bad.dmac")}:3:14\n`,
    );
    expect(r.err).toContain(
      "3 |   copy buf@0[1 + chunk +: chunk] -> buf@1\n  |              ^^^^^^^^^\n",
    );
    expect(r.err).not.toContain("\x1b[");
  });

  it("colours only with --color always", async () => {
    expect((await run("check", path("bad.dmac"), "--color", "always")).err).toContain("\x1b[");
    expect((await run("check", path("bad.dmac"))).err).not.toContain("\x1b["); // auto, not a TTY
  });

  it("prints concise lines", async () => {
    const r = await run("check", path("bad.dmac"), path("warn.dmac"), "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `${path("bad.dmac")}:3:14: DMAC2004 operator '+' cannot be applied to int and bytes\n` +
        `${path("warn.dmac")}:1:12: DMAC2008 parameter 'unused' is never used\n`,
    );
  });

  it("prints one JSON document on stdout", async () => {
    const r = await run("check", path("bad.dmac"), "--format", "json");
    expect(r.code).toBe(1);
    expect(r.err).toBe("");
    const doc = JSON.parse(r.out);
    expect(doc.version).toBe(1);
    expect(doc.diagnostics.map((d: { code: string }) => d.code)).toEqual(["DMAC2004"]);
    expect(doc.diagnostics[0].span).toMatchObject({
      line: 3,
      column: 14,
      endLine: 3,
      endColumn: 23,
    });
    const clean = await run("check", path("ok.dmac"), "--format", "json");
    expect(JSON.parse(clean.out)).toEqual({
      version: 1,
      files: [{ file: path("ok.dmac"), ok: true, schedules: ["s"], signals: [] }],
      diagnostics: [],
    });
  });

  it("reports an unreadable file as DMAC5001, not a stack trace", async () => {
    const r = await run("check", path("missing.dmac"), "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).toBe(`DMAC5001 cannot read ${path("missing.dmac")}: no such file or directory\n`);
    const d = await run("check", dir, "--format", "concise");
    expect(d.err).toContain("DMAC5001");
  });

  it("applies -D, --schedule and reports bad option values", async () => {
    expect((await run("check", path("two.dmac"), "--format", "concise")).err).toContain("DMAC2016");
    expect((await run("check", path("two.dmac"), "-D", "x=3")).code).toBe(0);
    expect((await run("check", path("two.dmac"), "--define", "x=3", "-D", "x=4")).code).toBe(0);
    expect((await run("check", path("two.dmac"), "--schedule", "b")).code).toBe(0);
    const bad = await run("check", path("two.dmac"), "-D", "x", "--format", "concise");
    expect(bad.code).toBe(1);
    expect(bad.err).toBe("DMAC5004 bad -D x: expected name=value\n");
    const ops = await run("check", path("ok.dmac"), "--max-ops", "lots", "--format", "concise");
    expect(ops.err).toBe("DMAC5004 bad --max-ops: 'lots' is not a positive integer\n");
    expect((await run("check", path("ok.dmac"), "--max-ops", "1_000")).code).toBe(0);
  });

  it("loads --target files and reports bad ones", async () => {
    const r = await run(
      "check",
      path("ok.dmac"),
      "--target",
      path("node.json"),
      "--format",
      "concise",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^DMAC5006 bad target description .*node\.json: 'name' must be a string\n$/,
    );
    const missing = await run(
      "check",
      path("ok.dmac"),
      "--target",
      path("none.json"),
      "--format",
      "concise",
    );
    expect(missing.err).toContain("DMAC5001");
  });

  it("rejects a bad --format value with a usage error", async () => {
    const r = await run("check", path("ok.dmac"), "--format", "xml");
    expect(r.code).toBe(1);
    expect(r.err).toContain("xml");
  });

  it("describes every option in --help", async () => {
    const r = await run("check", "--help");
    expect(r.code).toBe(0);
    for (const opt of ["--define", "--schedule", "--target", "--max-ops", "--format", "--color"]) {
      expect(r.out).toContain(opt);
    }
  });
});

describe("dmac explain", () => {
  it("prints the documentation of a code in any spelling", async () => {
    for (const spelling of ["DMAC2004", "dmac2004", "2004"]) {
      const r = await run("explain", spelling);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^DMAC2004: invalid operand types\nseverity: error, phase: check\n\n/);
    }
  });

  it("reports unknown codes with DMAC5003", async () => {
    const r = await run("explain", "DMAC9999");
    expect(r.code).toBe(1);
    expect(r.err).toContain("error[DMAC5003]: no diagnostic code 'DMAC9999'");
  });
});

describe("dmac check on the issue's error list", () => {
  // Each file gets a diagnostic with the right code at the right place, and exit code 1.
  const CASES = [
    ["DMAC1001-stray-character", "DMAC1001", 3, 26, 27],
    ["DMAC1002-unterminated-comment", "DMAC1002", 3, 3, undefined],
    ["DMAC1003-unknown-unit-4KB", "DMAC1003", 1, 27, 30],
    ["DMAC2004-int-plus-bytes", "DMAC2004", 4, 16, 25],
    ["DMAC2001-undefined-name", "DMAC2001", 3, 19, 25],
    ["DMAC2002-duplicate-buffer", "DMAC2002", 3, 10, 13],
  ] as const;
  for (const [name, code, line, column, endColumn] of CASES) {
    it(name, async () => {
      const file = fileURLToPath(
        new URL(`../../golden/cases/diagnostics/${name}.dmac`, import.meta.url),
      );
      const r = await run("check", file, "--format", "json");
      expect(r.code).toBe(1);
      const first = JSON.parse(r.out).diagnostics[0];
      expect(first.code).toBe(code);
      expect(first.span).toMatchObject({ line, column, ...(endColumn ? { endColumn } : {}) });
    });
  }
});
