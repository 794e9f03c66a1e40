// Issue 29 (trust): one path for every target. Engine choice on parts whose recommended-engine
// map is unknown (C1), the library's compile taking the CLI's path for every target (W7), host
// buffers on targets without a host link (W8), the library's options checked as the CLI's (C9),
// CUDA results naming the program they ran (W6), and the CLI's option edges (polish).

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check, compile, doublings, simulate, sweep } from "../../src/index.js";
import { dmac, example } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-adv-targets-"));

/** A copy from pinned host memory to GPU 1 (pinned to a PCIe engine by the front end). */
const HOST_COPY = `schedule up(total: bytes = 8KiB) {
  buffer staging: total on host
  buffer dst: total on 1
  copy staging@host[0 +: total] -> dst@1[0 +: total]
  ensure dst@1[0 +: total] == staging@host[0 +: total]
}
`;

/** Local copies and a fill only: no GPU-to-GPU traffic, so no engine map is needed. */
const LOCAL_ONLY = `schedule local(total: bytes = 8KiB) {
  buffer a: total on 1
  buffer b: total on 1
  copy a@1[0 +: total] -> b@1[0 +: total]
  fill b@1[0 +: 64B] with 7
}
`;

describe("C1: engine choice when the target's engine map is unknown", () => {
  for (const target of ["mi355x", "mi308x"]) {
    for (const opt of [1, 2] as const) {
      it(`${target} -O${opt}: local copies and fills compile`, () => {
        const r = compile(LOCAL_ONLY, { target, opt });
        expect(r.diagnostics.map((d) => d.message)).toEqual([]);
        expect(r.ok).toBe(true);
      });
      it(`${target} -O${opt}: a host copy is no internal error`, () => {
        expect(() => compile(HOST_COPY, { target, opt })).not.toThrow();
      });
    }
    it(`${target}: dmac sim of a source with local copies runs at -O2`, async () => {
      const path = join(dir, `local-${target}.dmac`);
      writeFileSync(path, LOCAL_ONLY);
      const r = await dmac("sim", path, "--target", target, "-O2", "--format", "concise");
      expect(r.err).not.toMatch(/internal error/i);
      expect(r.code).toBe(0);
    });
  }
  it("mi308x -O2 puts local copies on engines with hardware only", () => {
    const r = compile(LOCAL_ONLY, { target: "mi308x", opt: 2, engines: "spread:4" });
    expect(r.ok).toBe(true);
    for (const q of r.queues!.queues) expect([0, 2, 4, 6]).toContain(q.engine);
  });
});

describe("W8: host buffers on every AMD part: what compile emits, sim runs", () => {
  for (const target of ["mi325x", "mi355x", "mi308x"]) {
    it(`${target}: a compiled host copy runs in dmac sim, MI300X's host link stated as a fallback`, async () => {
      const src = join(dir, `host-${target}.dmac`);
      writeFileSync(src, HOST_COPY);
      const out = join(dir, `host-${target}`);
      expect((await dmac("compile", src, "--target", target, "-o", out)).code).toBe(0);
      const r = await dmac("sim", out, "--format", "concise");
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^verified/);
      expect(r.out).toMatch(/pcie\.usableGBps = 54/);
    });
  }
});

const UPLOAD = readFileSync(example("host_upload_pieces.dmac"), "utf8");

describe("W7: the library's compile takes the CLI's path for every target", () => {
  it("compile(src, { target: 'h100' }) returns the command program the CLI writes", async () => {
    const r = compile(UPLOAD, { target: "h100" });
    expect(r.ok).toBe(true);
    expect(r.manifest).toBeUndefined();
    expect(r.streams).toBeUndefined();
    expect(r.cudaProgram).toBeDefined();
    const out = join(dir, "w7-h100");
    const cli = await dmac(
      "compile",
      example("host_upload_pieces.dmac"),
      "--target",
      "h100",
      "-o",
      out,
    );
    expect(cli.code).toBe(0);
    const written = readdirSync(out).filter((f) => !f.startsWith("."));
    expect(r.files!.map((f) => f.name).sort()).toEqual(written.sort());
    const text = r.files!.find((f) => f.name === "program.txt")!;
    expect(text.data).toBe(readFileSync(join(out, "program.txt"), "utf8"));
  });
  it("SDMA-only outputs on a CUDA target are refused, as by the CLI", () => {
    const r = compile(UPLOAD, { target: "h100", emit: ["sdma", "trace"] });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.code).toBe("DMAC5004");
    expect(r.diagnostics[0]!.message).toMatch(/CUDA back end/);
  });
  it("simulate() of a CUDA compile says the executor runs SDMA streams", () => {
    const r = simulate(compile(UPLOAD, { target: "h100" }));
    expect(r.verified).toBe(false);
    expect(r.diagnostics[0]!.code).toBe("DMAC5006");
    expect(r.diagnostics[0]!.message).toMatch(/CUDA copy-engine target/);
  });
});

describe("C9: the library's options are checked with the CLI's rules", () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["maxCopyBytes -5", { maxCopyBytes: -5 }, /--max-copy-bytes: '-5'/],
    ["maxCopyBytes 1.5", { maxCopyBytes: 1.5 }, /--max-copy-bytes: '1.5'/],
    ["maxPackets NaN", { maxPackets: NaN }, /--max-packets/],
    ["maxOps Infinity", { maxOps: Infinity }, /--max-ops/],
    ["maxNesting 1000", { maxNesting: 1000 }, /--max-nesting: '1000' is more than the most, 256/],
    ["completion bogus", { completion: "bogus" }, /--completion/],
    ["sync sideways", { sync: "sideways" }, /--sync/],
    ["opt 3", { opt: 3 }, /-O: '3'/],
  ];
  for (const [name, options, message] of bad) {
    it(`compile ${name}: DMAC5004, no exception`, () => {
      const r = compile(UPLOAD, options);
      expect(r.ok).toBe(false);
      expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC5004"]);
      expect(r.diagnostics[0]!.message).toMatch(message);
    });
  }
  it("check refuses maxOps -1 as --max-ops does", () => {
    const r = check(UPLOAD, { maxOps: -1 });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]!.message).toMatch(/--max-ops: '-1'/);
  });
  it("simulate refuses maxEvents 0 and a negative signal period", () => {
    const r = simulate(compile(UPLOAD), { maxEvents: 0, signalPeriodUs: -1 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC5004", "DMAC5004"]);
  });
  it("doublings(1, Infinity) ends, with at most MAX_SWEEP_SIZES sizes", () => {
    const sizes = doublings(1, Infinity);
    expect(sizes.length).toBeLessThanOrEqual(64);
    expect(sizes.every((s) => Number.isSafeInteger(s))).toBe(true);
    expect(doublings(NaN, 10)).toEqual([]);
  });
  it("a sweep of 10^6 sizes is refused before any runs", () => {
    const sizes = Array.from({ length: 1_000_000 }, (_, i) => 1024 + i);
    const r = sweep(UPLOAD, { param: "total", sizes });
    expect(r.ok).toBe(false);
    expect(r.points).toEqual([]);
    expect(r.diagnostics[0]!.message).toMatch(/at most 64/);
  });
  it("a sweep size that is not a whole byte count is refused", () => {
    const r = sweep(UPLOAD, { param: "total", sizes: [1024, 0.5] });
    expect(r.diagnostics[0]!.code).toBe("DMAC5004");
  });
});
