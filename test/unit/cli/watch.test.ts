// The --watch loop (src/cli/watch.ts), in-process: a real file in a temporary directory, a real
// fs.watch, the real `dmac check` and `dmac sim` runs, and an AbortSignal for Ctrl-C.

import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCheck } from "../../../src/cli/commands/check.js";
import { runSim } from "../../../src/cli/commands/sim.js";
import type { CliContext } from "../../../src/cli/main.js";
import { watchCommand, watchedFiles } from "../../../src/cli/watch.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-watch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = `schedule s(chunk: bytes = 1KiB) {
  buffer buf: chunk * ranks
  for r in ranks where r != 0 {
    copy buf@0[0 +: chunk] -> buf@r[0 +: chunk]
  }
}
`;
const BAD = GOOD.replace("copy buf@0", "cpy buf@0");

/** A context whose output is one string (stdout and stderr in write order). */
function recorder(isTTY = false): { ctx: CliContext; text: () => string } {
  let text = "";
  const ctx: CliContext = {
    streams: { out: (s) => void (text += s), err: (s) => void (text += s), isTTY },
    exit: () => {},
  };
  return { ctx, text: () => text };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const count = (text: string, word: string) => text.split(word).length - 1;
const noon = () => new Date(2026, 0, 1, 12, 0, 0);
const opts = { format: "concise", color: "never" } as const;

describe("dmac check --watch", () => {
  it("re-runs on save, keeps the last good result above the errors, and stops cleanly", async () => {
    const file = join(dir, "a.dmac");
    writeFileSync(file, GOOD);
    const { ctx, text } = recorder();
    const stop = new AbortController();
    const loop = watchCommand(
      ctx,
      { inputs: [file], run: (c) => runCheck([file], opts, c) },
      { signal: stop.signal, debounceMs: 30, now: noon },
    );
    await until(() => text().includes("] ok;"), "the first run");

    writeFileSync(file, BAD); // saved in place
    await until(() => text().includes("DMAC1010"), "the run after the first save");
    const afterBad = text();
    expect(afterBad).toContain(
      "── last good result (12:00:00) ──\n(no output)\n── current version (12:00:00): errors ──\n",
    );
    expect(afterBad).toMatch(
      /DMAC1010 expected a statement or '}', found 'cpy'\n\[12:00:00\] errors;/,
    );

    // Saved as editors do: a new file renamed over the old one.
    writeFileSync(join(dir, ".a.dmac.swp"), GOOD);
    renameSync(join(dir, ".a.dmac.swp"), file);
    await until(() => count(text(), "] ok;") === 2, "the run after the rename");

    stop.abort();
    expect(await loop).toBe(0);
  });

  it("clears the screen only on a terminal", async () => {
    const file = join(dir, "tty.dmac");
    writeFileSync(file, GOOD);
    for (const isTTY of [true, false]) {
      const { ctx, text } = recorder(isTTY);
      const stop = new AbortController();
      stop.abort(); // one run, then stop
      const code = await watchCommand(
        ctx,
        { inputs: [file], run: (c) => runCheck([file], opts, c) },
        { signal: stop.signal },
      );
      expect(code).toBe(0);
      expect(text().includes("\x1b[2J")).toBe(isTTY);
    }
  });

  it("reports a bug in a run and goes on watching", async () => {
    const file = join(dir, "bug.dmac");
    writeFileSync(file, GOOD);
    const { ctx, text } = recorder();
    const stop = new AbortController();
    stop.abort();
    const run = (): number => {
      throw new Error("boom");
    };
    expect(await watchCommand(ctx, { inputs: [file], run }, { signal: stop.signal })).toBe(0);
    expect(text()).toMatch(/^internal error: Error: boom\nThis is a bug in dmac/);
  });

  it("ends with exit 1 when nothing can be watched", async () => {
    const { ctx, text } = recorder();
    const missing = join(dir, "no-such-dir", "x.dmac");
    const code = await watchCommand(ctx, { inputs: [missing], run: () => 1 }, {});
    expect(code).toBe(1);
    expect(text()).toContain("nothing to watch");
  });
});

describe("dmac sim --watch", () => {
  it("watches the target description the source names, and re-runs when it changes", async () => {
    const node = join(dir, "node.json");
    const builtin = readFileSync(new URL("../../../targets/mi300x.json", import.meta.url), "utf8");
    writeFileSync(node, builtin);
    const file = join(dir, "t.dmac");
    writeFileSync(file, `target "node.json"\n${GOOD}`);
    expect(watchedFiles([file]).sort()).toEqual([node, file].sort());

    const { ctx, text } = recorder();
    const stop = new AbortController();
    const loop = watchCommand(
      ctx,
      { inputs: [file], run: (c) => runSim([file], opts, c) },
      { signal: stop.signal, debounceMs: 30 },
    );
    await until(() => text().includes("] ok;"), "the first run");
    writeFileSync(node, "{ not json");
    await until(() => text().includes("DMAC5006"), "the run after the target changed");
    expect(text()).toContain("── last good result");
    stop.abort();
    expect(await loop).toBe(0);
  });
});
