// Red-team class 7a (issue 11): crashes and hangs on what dmac reads and writes. Special files
// given as a source, a target, a manifest, a queue file, a manifest's `sourceMap.file`, a trace's
// `source`, a disasm input or a golden (/dev/zero, /dev/urandom, FIFOs, directories, symbolic
// links to them) ran to 13-16 GiB or blocked forever; now only regular files are read, their size
// checked with fstat first (src/util/read-input.ts), and anything else is DMAC5001 (or, for the
// source of a manifest, DMAC6020), exit 1, at once. Also: more than ~100k diagnostics overflowed
// the stack (`push(...array)`), stdout on a full device printed a Node stack trace, and bad
// target files were internal errors.
// Every case runs the installed command in a child process with a time limit: a read that
// blocks cannot be interrupted inside the test runner.

import { spawnSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  existsSync,
  ftruncateSync,
  openSync,
  truncateSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dmac as inProcess } from "../helpers/cli.js";

const BIN = resolve("bin/dmac.js");
const EXAMPLE = resolve("examples/broadcast.dmac");
const root = mkdtempSync(join(tmpdir(), "dmac-adv-special-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs dmac in a child process (10 s limit: a hang fails the case instead of the run). */
function dmac(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync("node", [BIN, ...args, "--color", "never", "--format", "concise"], {
    cwd: root,
    encoding: "utf8",
    timeout: 10_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const fifo = (path: string): void => {
  const r = spawnSync("mkfifo", [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed`);
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Special files, each also reachable through a name ending in .dmac/.json/.bin (symlinks). */
const SPECIAL: Record<string, string> = {};
beforeAll(() => {
  fifo(join(root, "fifo"));
  mkdirSync(join(root, "dir"));
  SPECIAL["/dev/zero"] = "/dev/zero";
  SPECIAL["/dev/urandom"] = "/dev/urandom";
  SPECIAL["a FIFO"] = join(root, "fifo");
  SPECIAL["a directory"] = join(root, "dir");
  symlinkSync("/dev/zero", join(root, "zero-link"));
  SPECIAL["a symlink to /dev/zero"] = join(root, "zero-link");
  symlinkSync(join(root, "fifo"), join(root, "fifo-link"));
  SPECIAL["a symlink to a FIFO"] = join(root, "fifo-link");
  const r = dmac("compile", EXAMPLE, "-o", join(root, "out"), "--emit", "sdma,trace");
  expect(r.code, r.err).toBe(0);
});

/** `target` with a name ending in `ext` (a symlink), so that commands take it for that kind. */
let links = 0;
function named(target: string, ext: string): string {
  const link = join(root, `link${links++}${ext}`);
  symlinkSync(target, link);
  return link;
}

/**
 * Runs every case through main() in ONE child process (spawning one per case took 20 s), with a
 * time limit: a read that blocks stops the whole batch, and the case that hung is the last one
 * the child reported starting.
 */
function batch(cases: readonly (readonly string[])[]): { code: number; err: string }[] {
  const driver = `
    const { main } = await import(${JSON.stringify(resolve("dist/cli/main.js"))});
    const cases = JSON.parse(process.argv[1]);
    const results = [];
    for (const args of cases) {
      process.stderr.write("starting " + JSON.stringify(args) + "\\n");
      let err = "";
      const code = await main(["node", "dmac", ...args, "--format", "concise"], {
        out: () => {}, err: (s) => void (err += s), isTTY: false,
      });
      results.push({ code, err });
    }
    process.stdout.write(JSON.stringify(results));
  `;
  const r = spawnSync("node", ["--input-type=module", "-e", driver, JSON.stringify(cases)], {
    cwd: root,
    encoding: "utf8",
    timeout: 20_000,
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0)
    throw new Error(`the batch did not finish: ${r.stderr.split("\n").slice(-3).join(" ")}`);
  return JSON.parse(r.stdout) as { code: number; err: string }[];
}

function expectRefused(r: ReturnType<typeof dmac>, code = /DMAC5001/): void {
  expect(r.code, `timed out or crashed: ${r.err}`).toBe(1);
  expect(r.err).toMatch(code);
  expect(r.err).toMatch(/not a regular file|is a directory/);
  expect(r.err).not.toMatch(/internal error|at .*\.js:\d+/);
}

const KINDS = [
  "/dev/zero",
  "/dev/urandom",
  "a FIFO",
  "a directory",
  "a symlink to /dev/zero",
  "a symlink to a FIFO",
] as const;

describe("special files are never read", () => {
  it("as a source, a target, a manifest, a trace, a queue file, a disasm input, a manifest's sourceMap.file and a trace's source", () => {
    const cases: { what: string; args: string[]; code: RegExp }[] = [];
    for (const kind of KINDS) {
      const p = SPECIAL[kind]!;
      const tag = kind.replace(/\W/g, "");
      const add = (what: string, args: string[], code = /DMAC5001/): void =>
        void cases.push({ what: `${kind} as ${what}`, args, code });
      add("a source (check)", ["check", p]);
      add("a source (ir)", ["ir", p]);
      add("a source (compile)", ["compile", p, "-o", join(root, `o-${tag}`)]);
      add("a target (--target)", ["check", EXAMPLE, "--target", p]);
      const src = join(root, `t-${tag}.dmac`);
      writeFileSync(src, readFileSync(EXAMPLE, "utf8").replace("target mi300x", `target "${p}"`));
      add("a target (the source's target item)", ["check", src], /DMAC5006/);
      const q = join(root, `q-${tag}`);
      cpSync(join(root, "out"), q, { recursive: true });
      rmSync(join(q, "gpu0.sdma2.bin"));
      symlinkSync(p, join(q, "gpu0.sdma2.bin"));
      add("a queue file", ["sim", q]);
      const s = join(root, `s-${tag}`);
      cpSync(join(root, "out"), s, { recursive: true });
      const m = JSON.parse(readFileSync(join(s, "manifest.json"), "utf8")) as Json;
      m["sourceMap"]["file"] = p;
      writeFileSync(join(s, "manifest.json"), JSON.stringify(m));
      const t = JSON.parse(readFileSync(join(s, "trace.json"), "utf8")) as Json;
      t["source"] = p;
      writeFileSync(join(s, "trace.json"), JSON.stringify(t));
      add("a manifest's sourceMap.file", ["sim", s], /DMAC6020/);
      add("a trace's source", ["sim", join(s, "trace.json")], /DMAC6020/);
      if (kind === "a directory") continue;
      add("a source (sim FILE.dmac)", ["sim", named(p, ".dmac")]);
      const md = join(root, `m-${tag}`);
      mkdirSync(md);
      symlinkSync(p, join(md, "manifest.json"));
      add("a manifest", ["sim", md]);
      add("a trace", ["sim", named(p, ".json")]);
      add("a disasm input", ["disasm", p]);
    }
    const results = batch(cases.map((c) => c.args));
    cases.forEach((c, i) => {
      const r = results[i]!;
      expect(r.code, `${c.what}: ${r.err}`).toBe(1);
      expect(r.err, c.what).toMatch(c.code);
      expect(r.err, c.what).toMatch(/not a regular file|is a directory/);
      expect(r.err, c.what).not.toMatch(/internal error/);
    });
  });

  it("a golden that is a FIFO or a directory", () => {
    const dir = join(root, "goldens");
    mkdirSync(dir);
    cpSync(EXAMPLE, join(dir, "b.dmac"));
    cpSync(EXAMPLE, join(dir, "c.dmac"));
    fifo(join(dir, "b.dump.golden"));
    mkdirSync(join(dir, "c.dump.golden"));
    const r = dmac("golden", dir);
    // The report (with each test's diagnostics) is on standard output.
    expectRefused({ ...r, err: r.out + r.err });
    expect(r.out).toMatch(/b\.dump\.golden: is a FIFO/);
    expect(r.out).toMatch(/c\.dump\.golden: is a directory/);
  });

  it("a regular file over its limit is refused before it is read (target: 1 MiB)", () => {
    const big = join(root, "big.json");
    writeFileSync(big, " ".repeat((1 << 20) + 1));
    const r = dmac("check", EXAMPLE, "--target", big);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5001 .*is 1048577 bytes, more than the limit of 1 MiB for a target/);
  });

  it("a manifest past 500 MiB is refused unread (sparse: no disk used); one below is read", () => {
    const big = join(root, "big-manifest.json");
    const fd = openSync(big, "w");
    ftruncateSync(fd, (500 << 20) + 1);
    closeSync(fd);
    const r = dmac("sim", big);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5001 .*is 524288001 bytes, more than the limit of 500 MiB/);
    // 320 MB, what compile's default --max-packets can make: not refused for its size.
    truncateSync(big, 320e6);
    const under = dmac("sim", big);
    expect(under.code).toBe(1);
    expect(under.err).not.toMatch(/more than the limit/);
    rmSync(big);
  });
});

describe("output errors end with one message, never a stack trace", () => {
  const full = (cmd: string): { code: number | null; err: string } => {
    const r = spawnSync("bash", ["-c", `node '${BIN}' ${cmd} > /dev/full`], {
      encoding: "utf8",
      timeout: 10_000,
    });
    return { code: r.status, err: r.stderr };
  };
  it.runIf(existsSync("/dev/full"))("stdout on a full device (ENOSPC)", () => {
    for (const cmd of [
      `ir '${EXAMPLE}'`,
      `sim '${EXAMPLE}' --json`,
      `disasm '${join(root, "out", "gpu0.sdma2.bin")}'`,
      `check '${EXAMPLE}' --format json`,
    ]) {
      const r = full(cmd);
      expect(r.code, cmd).toBe(1);
      expect(r.err, cmd).toBe("dmac: cannot write to standard output: no space left on device\n");
    }
  });

  it("a closed pipe is still quiet, exit 0", () => {
    const r = spawnSync("bash", ["-c", `node '${BIN}' ir '${EXAMPLE}' | head -c 10 > /dev/null`], {
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
  });
});

describe("many diagnostics", () => {
  it("150,000 errors are reported, not a stack overflow (push(...array))", async () => {
    const lines = ["schedule s() {", "  buffer b: 1KiB"];
    for (let i = 0; i < 150_000; i++) lines.push("  fill zz@0 with 1");
    lines.push("  fill b@0 with 1", "}");
    const src = join(root, "many.dmac");
    writeFileSync(src, lines.join("\n") + "\n");
    const r = await inProcess("check", src, "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/internal error/);
    expect(r.err.split("\n").filter((l) => l.includes("DMAC2001")).length).toBe(150_000);
  });
});

describe("bad target files are DMAC5006 or a packet limit, never an internal error", () => {
  const MI300X = JSON.parse(readFileSync("targets/mi300x.json", "utf8")) as Json;
  const variants: [string, (t: Json) => void][] = [
    ["limits.maxCopyBytes: 1", (t) => void (t["limits"]["maxCopyBytes"] = 1)],
    ["limits.maxFillBytes: 1", (t) => void (t["limits"]["maxFillBytes"] = 1)],
    ["limits.maxCopyBytes: 1e300", (t) => void (t["limits"]["maxCopyBytes"] = 1e300)],
    ["gpus: 64 with an 8x8 map", (t) => void (t["gpus"] = 64)],
    ["engines.count: 1e9", (t) => void (t["engines"]["count"] = 1e9)],
    ["no localCopy", (t) => void delete t["engines"]["localCopy"]],
    ["timing: null", (t) => void (t["timing"] = null)],
  ];
  for (const [name, mutate] of variants)
    it(name, async () => {
      const t = structuredClone(MI300X);
      mutate(t);
      const file = join(root, `${name.replace(/\W+/g, "_")}.json`);
      writeFileSync(file, JSON.stringify(t));
      const big = ["-D", "size=256MiB"];
      for (const args of [
        ["sim", EXAMPLE, ...big],
        ["compile", EXAMPLE, "-o", join(root, `tgt-${name.replace(/\W+/g, "_")}`), ...big],
      ]) {
        const r = await inProcess(...args, "--target", file, "--format", "concise");
        expect(r.code, `${args[0]}: ${r.err}`).not.toBe(2);
        expect(r.err).not.toMatch(/internal error/);
      }
    });
});
