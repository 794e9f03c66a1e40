// Issue 30 item 4: `dmac check` passing means `compile` passes. check runs the legality checks
// compile runs for the selected target (backend/target-legality.ts: part limits, the sync forms'
// DMAC4020, the CUDA back end's DMAC4040, ...), through the same functions, and the language
// server shows them.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check } from "../../../src/api/check.js";
import { compile } from "../../../src/api/compile.js";
import { analyzeDocument } from "../../../src/lsp/analysis.js";
import { dmac, example } from "../../helpers/cli.js";

/** The codes of a concise diagnostic listing, in order. */
const codesOf = (err: string): string[] =>
  err
    .split("\n")
    .filter((l) => /\bDMAC\d{4}\b/.test(l))
    .map((l) => /\bDMAC\d{4}\b/.exec(l)![0]);

const errorCodes = (ds: readonly { code: string; severity: string }[]): string[] =>
  ds.filter((d) => d.severity === "error").map((d) => d.code);

/** check's and compile's error codes for one source and options. */
function both(
  text: string,
  opts: { target?: string; defines?: Record<string, string>; sync?: "aggressive" } = {},
) {
  return {
    check: errorCodes(check(text, { path: "f.dmac", ...opts }).diagnostics),
    compile: errorCodes(compile(text, { path: "f.dmac", ...opts }).diagnostics),
  };
}

const SWAP_NOTIFY = `target mi300x
schedule s() {
  buffer a: 4KiB
  signal done on 1
  swap a@0[0 +: 64B] <-> a@1[0 +: 64B]
  notify done@1
}
`;

describe("check reports what compile reports", () => {
  it("-D pieces=64 on pipelined_all_gather: the 32-value limit, at check as at compile", () => {
    const text = readFileSync(example("pipelined_all_gather.dmac"), "utf8");
    const r = both(text, { defines: { pieces: "64" } });
    expect(r.check).toEqual(["DMAC2043"]);
    expect(r.compile).toEqual(r.check);
    const d = check(text, { defines: { pieces: "64" } }).diagnostics[0]!;
    expect(d.message).toMatch(/1\.\.32/);
  });

  it("a count flag's `>=` under conservative sync: DMAC4020 at check, gone with --sync aggressive", () => {
    const text = readFileSync(example("pipelined_all_gather.dmac"), "utf8").replace(
      "signal ready thermometer",
      "signal ready",
    );
    expect(both(text)).toEqual({ check: ["DMAC4020"], compile: ["DMAC4020"] });
    expect(both(text, { sync: "aggressive" })).toEqual({ check: [], compile: [] });
  });

  it("--target h100 with swap and notify: DMAC4040 at check, at each statement", () => {
    const r = both(SWAP_NOTIFY, { target: "h100" });
    expect(r.check).toEqual(["DMAC4040", "DMAC4040"]);
    // The library's compile takes the CLI's path for every target (it builds the CUDA program).
    expect(r.compile).toEqual(r.check);
    // On mi300x both are fine.
    expect(both(SWAP_NOTIFY)).toEqual({ check: [], compile: [] });
  });

  it("the CLI: check exits 1 with the codes compile exits 1 with", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-legal-"));
    const src = join(dir, "s.dmac");
    writeFileSync(src, SWAP_NOTIFY);
    const c = await dmac("check", src, "--target", "h100", "--format", "concise");
    const k = await dmac(
      "compile",
      src,
      "--target",
      "h100",
      "-o",
      join(dir, "out"),
      "--format",
      "concise",
    );
    expect([c.code, k.code]).toEqual([1, 1]);
    expect(codesOf(c.err)).toEqual(codesOf(k.err));
    expect(codesOf(c.err)).toEqual(["DMAC4040", "DMAC4040"]);
    const sync = await dmac(
      "check",
      example("pipelined_all_gather.dmac"),
      "--sync",
      "sideways",
      "--format",
      "concise",
    );
    expect(sync.code).toBe(1);
    expect(sync.err).toMatch(/^DMAC5004 .*--sync/);
    const help = await dmac("check", "--help");
    expect(help.out).toMatch(/every legality check compile runs/);
    expect(help.out).toMatch(/--sync <mode>/);
  });

  it.each(readdirSync(example(".")).filter((f) => f.endsWith(".dmac")))(
    "%s: check accepts it exactly when compile does, on mi300x and h100",
    async (name) => {
      const text = readFileSync(example(name), "utf8");
      const r = both(text);
      expect(r.check, `${name} mi300x`).toEqual(r.compile);
      // The CUDA back end runs in the CLI's compile (program.json), so compare with that.
      const out = join(mkdtempSync(join(tmpdir(), "dmac-legal-")), "out");
      const k = await dmac(
        "compile",
        example(name),
        "--target",
        "h100",
        "-o",
        out,
        "--format",
        "concise",
      );
      const h100 = errorCodes(check(text, { target: "h100" }).diagnostics);
      expect(h100, `${name} h100`).toEqual(codesOf(k.err));
    },
  );
});

describe("the language server shows them", () => {
  it("DMAC4040 for a swap on h100 and DMAC4020 for a count's >=, located", () => {
    const h100 = SWAP_NOTIFY.replace("target mi300x", "target h100");
    const doc = analyzeDocument("file:///s.dmac", 1, h100);
    const found = doc.diagnostics.map((d) => [d.code, h100.slice(d.span!.start, d.span!.end)]);
    expect(found).toEqual([
      ["DMAC4040", "swap a@0[0 +: 64B] <-> a@1[0 +: 64B]"],
      ["DMAC4040", "notify done@1"],
    ]);
    const count = `target mi300x
schedule s() {
  buffer a: 4KiB
  signal go on 0
  when go@0 >= 1 { copy a@0 -> a@1 }
}
`;
    const d = analyzeDocument("file:///c.dmac", 1, count).diagnostics;
    expect(d.map((x) => x.code)).toEqual(["DMAC4020"]);
    expect(count.slice(d[0]!.span!.start, d[0]!.span!.end)).toMatch(/^when go@0 >= 1/);
  });
});
