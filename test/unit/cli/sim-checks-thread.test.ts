// `dmac sim DIR` with the run's checks on the helper thread (src/sim/check-thread.ts; forced on
// small outputs with DMAC_SIM_HELPER=1) against the same run with every check on the event loop's
// thread (DMAC_SIM_HELPER=0). The outputs are edited so that the checks find something: races,
// schedule-meaning errors, a final state that differs, more races than are shown, and findings of
// both threads mixed (an out-of-bounds copy the event loop refuses, among races the checks find).
// Each must give the same stdout, stderr and exit code both ways: the findings made on the thread
// are merged back in event order. Needs `npm run build`.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { assemble, cloneQueues, explode, type EditQueues } from "../../../fuzz/stream-edit.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { HEADER_INTS } from "../../../src/sim/check-log.js";
import { LOG_READ } from "../../../src/util/shared-layouts.js";
import { HELPER_NICE } from "../../../src/sim/session/helper-thread.js";
import { example } from "../../helpers/cli.js";
import { compileFile, type Compiled } from "../sim/compile-helper.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "dmac-sim-checks-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const api = { decodeStream };

/** The edited output written as a compile would (manifest.json and its streams; no sidecar). */
function written(c: Compiled, qs: EditQueues): string {
  const dir = mkdtempSync(join(scratch, "out-"));
  const { manifest, streams } = assemble(api, c.manifest, qs);
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  for (const [file, words] of streams) writeFileSync(join(dir, file), words);
  return dir;
}

function sim(helper: "0" | "1", args: readonly string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, "bin/dmac.js"), "sim", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, DMAC_SIM_HELPER: helper, NO_COLOR: "1" },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The run both ways: the same; returns it (for what the case expects to be found). */
function same(dir: string, ...args: string[]): { status: number | null; stderr: string } {
  const inline = sim("0", [dir, ...args]);
  expect(sim("1", [dir, ...args])).toEqual(inline);
  return inline;
}

/**
 * `dmac sim` with the thread forced, on an output with races, where `action` runs on the thread
 * at its first store of its position in the log (a --require hook: the reader's first Atomics.store).
 */
function simWithWorkerHook(name: string, action: string) {
  const hook = join(scratch, `${name}.cjs`);
  writeFileSync(
    hook,
    `const wt = require("node:worker_threads");
if (!wt.isMainThread) {
  const store = Atomics.store;
  Atomics.store = (a, i, v) => {
    // (The log's header, not the thread's flag, which may have as many words.)
    if (a.length === ${HEADER_INTS} && i === ${LOG_READ} && a !== wt.workerData?.flag) ${action};
    return store(a, i, v);
  };
}
`,
  );
  return spawnSync(
    process.execPath,
    [join(ROOT, "bin/dmac.js"), "sim", written(RING, dropAll(edit(RING), "poll_mem"))],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, DMAC_SIM_HELPER: "1", NODE_OPTIONS: `--require ${hook}` },
      timeout: 60_000,
    },
  );
}

const PAG = compileFile(example("pipelined_all_gather.dmac"));
const RING = compileFile(example("ring_all_gather.dmac"));
const edit = (c: Compiled): EditQueues => cloneQueues(explode(api, c.manifest, c.streams));

/** Every queue's packets of `kind` removed. */
function dropAll(qs: EditQueues, kind: string): EditQueues {
  for (const [name, pks] of qs)
    qs.set(
      name,
      pks.filter((p) => p.kind !== kind),
    );
  return qs;
}

describe("the checks on the helper thread: the same findings, in the same order", () => {
  it("an unedited output: verified both ways", () => {
    const r = same(written(PAG, edit(PAG)));
    expect(r.status).toBe(0);
  });

  it("a `when` poll removed: a race and a schedule-meaning error", () => {
    const qs = edit(PAG);
    const q = qs.get("gpu7.sdma14")!;
    q.splice(
      q.findIndex((p) => p.kind === "poll_mem"),
      1,
    );
    const r = same(written(PAG, qs));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC6013/);
  });

  it("a copy dropped: the final state differs (DMAC6001), coverage fails (DMAC6013)", () => {
    const qs = edit(RING);
    const [name, pks] = [...qs].find(([, p]) => p.some((k) => k.kind === "copy_linear"))!;
    pks.splice(
      pks.findIndex((p) => p.kind === "copy_linear"),
      1,
    );
    qs.set(name, pks);
    const r = same(written(RING, qs));
    expect(r.stderr).toMatch(/DMAC6001/);
    expect(r.stderr).toMatch(/DMAC6013/);
  });

  it("every poll removed: more races than are shown", () => {
    const r = same(written(RING, dropAll(edit(RING), "poll_mem")), "--format", "json");
    expect(r.status).toBe(1);
  });

  it("an out-of-bounds copy (the event loop's DMAC6002) among the checks' races", () => {
    const qs = dropAll(edit(RING), "poll_mem");
    const pks = [...qs.values()].find((p) => p.some((k) => k.kind === "copy_linear"))!;
    const i = pks.findIndex((p) => p.kind === "copy_linear");
    const words = [...pks[i]!.words];
    words[6] = (words[6]! + 0x1000) >>> 0; // the destination's high dword: unmapped
    pks[i] = { ...pks[i]!, words };
    const r = same(written(RING, qs));
    expect(r.stderr).toMatch(/DMAC6002/);
    expect(r.stderr).toMatch(/DMAC6003/);
  });
});

describe("runs that end early or fail: the same both ways, and no wait that never ends", () => {
  it("a target the executor cannot run (CUDA): its error, with no wait on the released thread", () => {
    // (As compiled, with its sidecar: the thread has started when the run gives up.)
    const dir = mkdtempSync(join(scratch, "cuda-"));
    const c = spawnSync(
      process.execPath,
      [join(ROOT, "bin/dmac.js"), "compile", example("ring_all_gather.dmac"), "-o", dir],
      { encoding: "utf8" },
    );
    expect(c.status, c.stderr).toBe(0);
    const r = same(dir, "--target", "h100");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC5006/);
  });

  it("the watchdog (--max-events, --max-sim-time): DMAC6008, the log still ends", () => {
    const dir = written(RING, edit(RING));
    expect(same(dir, "--max-events", "50").stderr).toMatch(/DMAC6008/);
    expect(same(dir, "--max-sim-time", "3", "--format", "json").status).toBe(1);
  });

  it("a deadlock (every ATOMIC and FENCE dropped): DMAC6004 and what the checks say at the end", () => {
    const r = same(written(PAG, dropAll(dropAll(edit(PAG), "atomic"), "fence")));
    expect(r.stderr).toMatch(/DMAC6004/);
  });

  it("a trace (-o: the checks stay here) and --no-verify (no module): the same", () => {
    const dir = written(PAG, edit(PAG));
    expect(same(dir, "-o", join(scratch, "trace.json")).status).toBe(0);
    expect(same(dir, "--no-verify").status).toBe(0);
  });

  it.runIf(process.platform === "linux")("the thread runs at nice HELPER_NICE (Linux)", () => {
    // The thread's nice value as it starts the checks (field 19 of its /proc stat), in a file.
    const out = join(scratch, "nice.txt");
    const stat = 'require("node:fs").readFileSync("/proc/thread-self/stat", "utf8")';
    const nice = `${stat}.slice(${stat}.lastIndexOf(")") + 2).split(" ")[16]`;
    const r = simWithWorkerHook(
      "nice",
      `require("node:fs").writeFileSync(${JSON.stringify(out)}, ${nice})`,
    );
    expect(r.status, r.stderr).not.toBe(2);
    expect(Number(readFileSync(out, "utf8"))).toBe(HELPER_NICE);
  });

  it("the checks fail on the thread: an internal error (exit 2), not a wait", () => {
    // The thread's first store of its position in the log (check-log.ts LogReader) throws.
    const r = simWithWorkerHook("checks-fail", 'throw new Error("the checks failed here")');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/internal error: Error: the checks failed here/);
  });
});

describe("the run started before the IR came (no user signals: run.ts runBeforeModule)", () => {
  it("a source that now declares one more buffer: the IR's mismatch alone, as before a run", () => {
    const dir = mkdtempSync(join(scratch, "changed-"));
    const src = join(scratch, "ring-changed.dmac");
    writeFileSync(src, readFileSync(example("ring_all_gather.dmac"), "utf8"));
    const c = spawnSync(process.execPath, [join(ROOT, "bin/dmac.js"), "compile", src, "-o", dir], {
      encoding: "utf8",
    });
    expect(c.status, c.stderr).toBe(0);
    // The same schedule with a spare buffer: it compiles, but not to this manifest. The checks'
    // thread must not run the checks over it (they assumed the manifest's buffers and threw).
    writeFileSync(
      src,
      readFileSync(src, "utf8").replace(
        "buffer buf: chunk * ranks",
        "buffer buf: chunk * ranks\n  buffer spare: chunk",
      ),
    );
    const r = same(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC6011.*no entry for buffer spare/s);
    expect(r.stderr).not.toMatch(/internal error|verified/);
  });
});

describe("a thread that ends without a word (out of memory, process.exit)", () => {
  it.skipIf(process.platform !== "linux")(
    "seen gone from /proc: an internal error (exit 2), not a wait",
    () => {
      // The thread exits at its first store of its position in the log: no reply, no error.
      const r = simWithWorkerHook("checks-exit", "process.exit(0)");
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/the thread ended without a reply/);
    },
  );
});

describe("a log longer than its ring (wraps around, the writer waits for room)", () => {
  it("a 480k-packet forward program, a poll removed mid-run: the same findings", async () => {
    const { forwardProgram } = (await import("../../../bench/gen.js")) as {
      forwardProgram: (ops: number) => string;
    };
    const src = join(scratch, "fwd.dmac");
    writeFileSync(src, forwardProgram(160_000));
    const dir = mkdtempSync(join(scratch, "fwd-"));
    const c = spawnSync(process.execPath, [join(ROOT, "bin/dmac.js"), "compile", src, "-o", dir], {
      encoding: "utf8",
    });
    expect(c.status, c.stderr).toBe(0);
    expect(same(dir, "--format", "json").status).toBe(0);
    // The same output with one poll of a busy queue dropped: a race deep into the log.
    const edited = compileFile(src);
    const qs = edit(edited);
    const pks = [...qs.values()].find((p) => p.filter((k) => k.kind === "poll_mem").length > 100)!;
    const polls = pks.flatMap((p, i) => (p.kind === "poll_mem" ? [i] : []));
    pks.splice(polls[Math.floor(polls.length * 0.8)]!, 1);
    const r = same(written(edited, qs));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC6003/);
  }, 120_000);
});
