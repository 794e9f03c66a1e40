// Hang forensics (issue 17 item 4): a schedule whose producer never signals. compile
// --breadcrumbs, then `dmac sim --hold-signals --snapshot` (the executor finds the deadlock and
// writes what a host could read), then `dmac postmortem` names the stuck queues, the source line
// of the last completed step on each, and the word each waits on.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dmac } from "../../helpers/cli.js";
import { validateDocument } from "../../../src/schemas.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-postmortem-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SOURCE = `target mi300x

schedule hang(n: bytes = 4KiB) {
  buffer a: n
  buffer b: n
  signal go
  copy a@0 -> b@1
  when go@0 == 1 {
    copy a@0 -> b@2
  }
  copy b@1 -> a@3
  copy b@2 -> a@4
}
`;
const src = join(dir, "hang.dmac");
writeFileSync(src, SOURCE);
const out = join(dir, "out");
const snap = join(dir, "snap.json");

describe("sim --snapshot + postmortem", () => {
  it("compiles with breadcrumbs: one word per queue, each step mapped to a statement", async () => {
    const r = await dmac("compile", src, "-o", out, "--breadcrumbs");
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(m.breadcrumbs.length).toBe(m.queues.length);
    for (const b of m.breadcrumbs) expect(b.steps.length).toBeGreaterThan(0);
    expect(validateDocument("manifest", m)).toEqual([]);
  });

  it("writes a schema-valid snapshot when the run deadlocks", async () => {
    const r = await dmac("sim", out, "--hold-signals", "--snapshot", snap);
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC6004");
    const s = JSON.parse(readFileSync(snap, "utf8"));
    expect(validateDocument("snapshot", s)).toEqual([]);
    expect(s.reason).toBe("deadlock");
  });

  it("names the stuck queues, their last completed step and the word each waits on", async () => {
    const r = await dmac("postmortem", out, snap, "--format", "json");
    expect(r.code).toBe(0);
    const pm = JSON.parse(r.out);
    const stuck = pm.queues.filter((q: { state: string }) => q.state === "stuck");
    expect(stuck.map((q: { queue: string }) => q.queue).sort()).toEqual([
      "gpu0.sdma12",
      "gpu2.sdma14",
    ]);
    const guard = stuck.find((q: { queue: string }) => q.queue === "gpu0.sdma12");
    expect(guard.lastStep).toBe(0);
    expect(guard.nextLine).toBe(8); // the `when go@0 == 1`
    expect(guard.waiting.word).toBe("signal go@0");
    expect(guard.waiting.current).toBe(0);
    const consumer = stuck.find((q: { queue: string }) => q.queue === "gpu2.sdma14");
    expect(consumer.waiting.writer).toBe("gpu0.sdma12");
    expect(consumer.waiting.func).toBe("==");
    const done = pm.queues.find((q: { queue: string }) => q.queue === "gpu0.sdma14");
    expect(done).toMatchObject({ state: "done", lastStep: 1, line: 7 });
    const text = await dmac("postmortem", out, snap);
    expect(text.out).toContain("gpu0.sdma12: stuck, step 0 of 2 completed");
    expect(text.out).toContain("stopped in step 1 (line 8: when go@0 == 1 {)");
    expect(text.out).toContain("written by gpu0.sdma12");
  });

  it("finds the step from the breadcrumb words alone (no read pointers)", async () => {
    const s = JSON.parse(readFileSync(snap, "utf8"));
    const noRptr = join(dir, "no-rptr.json");
    writeFileSync(
      noRptr,
      JSON.stringify({ ...s, queues: s.queues.map((q: object) => ({ ...q, rptr: null })) }),
    );
    const r = await dmac("postmortem", out, noRptr, "--format", "json");
    const pm = JSON.parse(r.out);
    const q = pm.queues.find((x: { queue: string }) => x.queue === "gpu2.sdma14");
    expect(q.state).toBe("stuck");
    expect(q.waiting.writer).toBe("gpu0.sdma12");
  });

  it("DMAC5021: a snapshot that is not one", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ version: 1, kind: "dmac-snapshot" }));
    const r = await dmac("postmortem", out, bad);
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5021");
    writeFileSync(bad, "{ not json");
    expect((await dmac("postmortem", out, bad)).err).toContain("DMAC5021");
  });
});
