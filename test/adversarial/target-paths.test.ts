// Issue 29 (trust): one path for every target. Engine choice on parts whose recommended-engine
// map is unknown (C1), the library's compile taking the CLI's path for every target (W7), host
// buffers on targets without a host link (W8), the library's options checked as the CLI's (C9),
// CUDA results naming the program they ran (W6), and the CLI's option edges (polish).

import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
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
  it("simulate() of a CUDA compile points at dmac sim FILE.dmac", () => {
    const r = simulate(compile(UPLOAD, { target: "h100" }));
    expect(r.verified).toBe(false);
    expect(r.diagnostics[0]!.code).toBe("DMAC5004");
    expect(r.diagnostics[0]!.message).toMatch(/CUDA copy-engine target.*dmac sim FILE\.dmac/);
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

describe("W6: a CUDA result names the program it ran, and measure checks it", () => {
  const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
  const HW = JSON.parse(readFileSync("bench/hardware/h100-2026-host-copies.json", "utf8")) as {
    runs: Record<string, unknown>[];
  } & Record<string, unknown>;
  /** The committed results, one run: host_upload_pieces/pcpy at 4 KiB, as prepare.sh compiles it. */
  const pcpy = HW.runs.find((r) => r["label"] === "host_upload_pieces/pcpy/4096")!;
  async function compiled(): Promise<{ json: Record<string, unknown>; text: string }> {
    const out = join(dir, "w6-pcpy");
    const r = await dmac(
      "compile",
      example("host_upload_pieces.dmac"),
      "--target",
      "h100",
      "-D",
      "queues=7",
      "-O0",
      "-D",
      "total=4096B",
      "-o",
      out,
    );
    expect(r.code).toBe(0);
    return {
      json: JSON.parse(readFileSync(join(out, "program.json"), "utf8")) as Record<string, unknown>,
      text: readFileSync(join(out, "program.txt"), "utf8"),
    };
  }
  const results = (runs: Record<string, unknown>[]): string => {
    const path = join(dir, `results-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ ...HW, runs }));
    return path;
  };

  it("program.json names program.txt by its SHA-256", async () => {
    const { json, text } = await compiled();
    expect(json["programSha256"]).toBe(sha(text));
  });
  it("measure accepts a run of the program the example compiles to", async () => {
    const { text } = await compiled();
    const r = await dmac("measure", results([{ ...pcpy, programSha256: sha(text) }]));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });
  it("measure refuses a run of a hand-edited program.txt (DMAC5050)", async () => {
    const { text } = await compiled();
    const edited = text.replace(
      /^copy (.*) (\d+)$/m,
      (_, a: string, n: string) => `copy ${a} ${Number(n) / 2}`,
    );
    expect(edited).not.toBe(text);
    const r = await dmac("measure", results([{ ...pcpy, programSha256: sha(edited) }]));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5050.*host_upload_pieces\/pcpy\/4096/);
    expect(r.out).not.toMatch(/median error/);
  });
  it("results of older runners, without the hash, get a warning (DMAC5051)", async () => {
    const r = await dmac("measure", results([pcpy]), "--format", "concise");
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning\[DMAC5051\]|DMAC5051/);
  });
  it("measure --fit leaves out runs that failed or hung, saying so (DMAC5052)", async () => {
    const runs = HW.runs.map((run, i) =>
      i === 0
        ? { ...run, verified: false, wrongBytes: 7 }
        : i === 1
          ? { ...run, verified: false, hung: true }
          : run,
    );
    const out = join(dir, "fitted.json");
    const r = await dmac("measure", results(runs), "--fit", "--format", "json", "-o", out);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as {
      runs: { example: string }[];
      diagnostics: { code: string; message: string }[];
    };
    expect(doc.runs).toHaveLength(HW.runs.length - 2);
    const left = doc.diagnostics.find((d) => d.code === "DMAC5052")!;
    expect(left.message).toMatch(/^2 runs did not verify or hung/);
    expect(left.message).toContain(String(HW.runs[0]!["label"]));
    expect(existsSync(out)).toBe(true);
  });
  it("measure --fit --fit-on all fits on every run and holds none out", async () => {
    // Two sizes of one example: a fit of a few runs, so that the test stays quick.
    const few = HW.runs.filter(
      (run) =>
        run["example"] === "host_upload_pieces" &&
        [1024, 1048576].includes(Number(run["totalBytes"])),
    );
    expect(few.length).toBeGreaterThan(2);
    const r = await dmac("measure", results(few), "--fit", "--fit-on", "all", "--format", "json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as {
      runs: { heldOut: boolean }[];
      after: { fitted: { runs: number }; heldOut: { runs: number; medianError: null } };
      fitOn: string;
    };
    expect(doc.runs.every((run) => !run.heldOut)).toBe(true);
    expect(doc.after.fitted.runs).toBe(few.length);
    expect(doc.after.heldOut).toMatchObject({ runs: 0, medianError: null });
    expect(doc.fitOn).toBe("all");
    const out = join(dir, "fitted-all.json");
    const text = await dmac("measure", results(few), "--fit", "--fit-on", "all", "-o", out);
    expect(text.out).toMatch(/after the fit, held-out sizes: none\n/);
    const sources = JSON.stringify(JSON.parse(readFileSync(out, "utf8")));
    expect(sources).toMatch(/fitted on [^"]*, on every run/);
    expect(sources).not.toMatch(/fitted on [^"]*, on every other size/);
  });
  it("-o and --fit-on without --fit are refused (DMAC5004), nothing written", async () => {
    const out = join(dir, "never.json");
    for (const args of [
      ["-o", out],
      ["--fit-on", "all"],
      ["--fit-on", "alternate"],
    ]) {
      const r = await dmac("measure", results(HW.runs), ...args, "--format", "concise");
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/DMAC5004.*nothing is fitted/);
    }
    expect(existsSync(out)).toBe(false);
  });
  it("--fit-on takes only alternate or all", async () => {
    const r = await dmac("measure", results(HW.runs), "--fit", "--fit-on", "half");
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/Allowed choices are alternate, all/);
  });
});

describe("polish: the command line's edges", () => {
  it("dmac help help prints the help command's help, exit 0", async () => {
    const r = await dmac("help", "help");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: dmac help/);
  });
  it("dmac help NOSUCH is still an error", async () => {
    expect((await dmac("help", "nosuchcommand")).code).toBe(1);
  });
  it("--format json with an unknown option prints the diagnostics document", async () => {
    const r = await dmac("compile", "x.dmac", "-o", join(dir, "x"), "--bogus", "--format", "json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { diagnostics: { code: string; message: string }[] };
    expect(doc.diagnostics[0]!.code).toBe("DMAC5004");
    expect(doc.diagnostics[0]!.message).toMatch(/unknown option '--bogus'/);
  });
  it("--engines single: (nothing after the colon) is refused", async () => {
    const r = await dmac("sim", example("all_gather_pcpy.dmac"), "-O1", "--engines", "single:");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5004.*--engines/);
  });
  it("--completion atomic,fence (two protocols) is refused, by the library too", async () => {
    const r = await dmac("sim", example("all_gather_pcpy.dmac"), "--completion", "atomic,fence");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5004.*at most one of each/);
    const c = compile(UPLOAD, { completion: "fence", completionPolicy: "per-op" });
    expect(c.ok).toBe(true);
  });
  it("sweep --out '' is refused and writes nothing", async () => {
    const cwd = readdirSync(".");
    const r = await dmac(
      "sweep",
      example("all_gather_pcpy.dmac"),
      "--param",
      "chunk",
      "--sizes",
      "1KiB",
      "--out",
      "",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5002.*empty output path/);
    expect(readdirSync(".")).toEqual(cwd);
  });
});
