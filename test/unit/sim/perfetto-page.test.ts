// The page `dmac sim --html` / `--open` writes (trace/perfetto-page.ts). No browser: the page's
// script runs in a sandbox with a stand-in window, whose Perfetto UI answers PING with PONG, and
// the test checks the trace it is handed, byte for byte.

import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { openerFor } from "../../../src/cli/open-in-browser.js";
import { PERFETTO_ORIGIN, perfettoPage } from "../../../src/sim/trace/perfetto-page.js";
import { example, runCli } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-page-"));

/** The embedded trace text and the page's own script. */
function parts(page: string): { trace: string; script: string } {
  const m =
    /<script type="application\/json" id="trace">([^]*?)<\/script>\s*<script>([^]*?)<\/script>/.exec(
      page,
    );
  expect(m).not.toBeNull();
  return { trace: m![1]!, script: m![2]! };
}

interface Sent {
  readonly data: unknown;
  readonly origin: string;
}

/** Runs the page's script with a window whose Perfetto UI answers after `pings` PINGs. */
function runPage(page: string, pings: number): { sent: Sent[]; opened: string[]; status: string } {
  const { trace, script } = parts(page);
  const sent: Sent[] = [];
  const opened: string[] = [];
  const listeners: ((e: { origin: string; data: unknown }) => void)[] = [];
  const timers: (() => void)[] = [];
  const elements: Record<string, { textContent: string; href?: string; addEventListener(): void }> =
    {
      trace: { textContent: trace, addEventListener() {} },
      status: { textContent: "", addEventListener() {} },
      save: { textContent: "", addEventListener() {} },
      open: { textContent: "", addEventListener() {} },
    };
  const ui = {
    postMessage(data: unknown, origin: string) {
      sent.push({ data, origin });
      if (data === "PING" && sent.length === pings)
        for (const l of [...listeners]) l({ origin: PERFETTO_ORIGIN, data: "PONG" });
    },
  };
  const window = {
    open: (url: string) => (opened.push(url), ui),
    addEventListener: (_: string, l: (typeof listeners)[number]) => listeners.push(l),
    removeEventListener: (_: string, l: (typeof listeners)[number]) =>
      listeners.splice(listeners.indexOf(l), 1),
  };
  runInNewContext(script, {
    window,
    document: { getElementById: (id: string) => elements[id] },
    URL: { createObjectURL: () => "blob:trace" },
    Blob: class {},
    TextEncoder,
    Date,
    setInterval: (f: () => void) => timers.push(f),
    clearInterval: () => void timers.splice(0),
  });
  // Fire the ping timer until the page stops it (the UI answered).
  for (let i = 0; i < 100 && timers.length > 0; i++) timers[0]!();
  return { sent, opened, status: elements["status"]!.textContent };
}

describe("the Perfetto UI page", () => {
  it("dmac sim --html: PING until PONG, then the trace's bytes and a title", async () => {
    const trace = join(dir, "b.json");
    const html = join(dir, "b.html");
    const r = await runCli(["sim", example("broadcast.dmac"), "--trace", trace, "--html", html]);
    expect(r.code, r.err).toBe(0);
    const page = readFileSync(html, "utf8");
    // Self-contained: nothing to fetch.
    expect(page).not.toMatch(/<(script|link|img|iframe)[^>]*\s(src|href)=/i);
    const { sent, opened, status } = runPage(page, 3);
    expect(opened).toEqual([PERFETTO_ORIGIN]);
    expect(sent.slice(0, 3).map((s) => s.data)).toEqual(["PING", "PING", "PING"]);
    expect(sent.every((s) => s.origin === PERFETTO_ORIGIN)).toBe(true);
    expect(sent).toHaveLength(4);
    const last = sent[3]!.data as { perfetto: { buffer: ArrayBuffer; title: string } };
    expect(last.perfetto.title).toBe("dmac sim broadcast.dmac");
    const bytes = new Uint8Array(last.perfetto.buffer);
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(
      JSON.parse(readFileSync(trace, "utf8")),
    );
    expect(status).toBe("Sent to Perfetto UI.");
  });

  it("text that could end the script element early stays inside it", () => {
    const doc = { traceEvents: [{ name: "</script><script>alert(1)</script><!--" }] };
    const page = perfettoPage(JSON.stringify(doc), "a </title> & b", "t.json");
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    expect(page).toContain("<title>a &#60;/title&#62; &#38; b</title>");
    expect(JSON.parse(parts(page).trace)).toEqual(doc);
  });

  it("--open writes the page next to the trace; no browser unless on a terminal", async () => {
    const trace = join(dir, "o.json");
    const r = await runCli(["sim", example("broadcast.dmac"), "--trace", trace, "--open"]);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(dir, "o.html"))).toBe(true);
    expect(r.err).toMatch(/wrote .*o\.html; open it in a browser \(not started: not a terminal\)/);
    const bad = await runCli(["sim", example("broadcast.dmac"), "--open"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/DMAC5004.*--open/);
    expect(openerFor("linux", "/t.html")).toEqual(["xdg-open", ["/t.html"]]);
    expect(openerFor("darwin", "/t.html")).toEqual(["open", ["/t.html"]]);
  });
});
