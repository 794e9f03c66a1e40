// -O2's output is a function of the input and the options alone (issue 30, item 1): the plan
// search counts work, never time, so a search that stops at its budget stops at the same candidate
// with the same report whether the machine is quiet or loaded. The case is the issue's own: a
// 16-piece pipelined ring at 4 MiB, whose full search (about 1M work) is cut in half here so that
// the early stop (DMAC4009) is what is compared.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { example, runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-plan-determinism-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compileRing(out: string) {
  const r = await runCli([
    "compile",
    example("pipelined_all_gather.dmac"),
    "-D",
    "pieces=16",
    "-D",
    "chunk=4MiB",
    "-O2",
    "--plan-budget",
    "500000",
    "--explain-plan",
    "-o",
    join(dir, out),
  ]);
  const files = Object.fromEntries(
    readdirSync(join(dir, out))
      .sort()
      .map((f) => [f, readFileSync(join(dir, out, f)).toString("base64")]),
  );
  return { code: r.code, out: r.out, err: r.err, files };
}

/** CPU hogs beside the compile: `yes` into /dev/null, one more than this machine has cores. */
function hogs(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn("yes", [], { stdio: "ignore" }));
}

describe("-O2 under load", () => {
  it("the same packets, the same search report and the same DMAC4009, quiet and with 3 CPU hogs", async () => {
    const quiet = await compileRing("quiet");
    const running = hogs(3);
    let loaded;
    try {
      loaded = await compileRing("loaded");
    } finally {
      for (const p of running) p.kill();
    }
    expect(quiet.code).toBe(0);
    expect(quiet.err).toMatch(/DMAC4009/);
    expect(quiet.out).toMatch(/skipped \(work budget\)|stopped \(work budget\)/);
    expect(loaded).toEqual(quiet);
  }, 120_000);
});
