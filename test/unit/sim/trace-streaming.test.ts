// Issue 30, item 2: `dmac sim -o` streams the Chrome trace to disk. The text comes in chunks of
// about a MiB, never as one string (a 4096-piece ring: 3.8M events, 855 MB, longer than a string),
// and equals the one-document form byte for byte; the events are put in time order from typed
// arrays (trace/event-order.ts), not sorted as objects. The summary (the verdict) is printed
// before the trace is written, so a trace that fails, even with an internal error, never loses
// it. The file goes through output.ts's atomic writer with its rules (writeOutputFile takes
// streamed data). Which write released each wait is found in O(log n) (release-search.ts). The
// big ring's figures, and bench/trace-check-stream.js that validates its trace: docs/traces.md.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
} from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { OutputError, writeOutputFile } from "../../../src/backend/output.js";
import { StreamedData } from "../../../src/util/streamed-data.js";
import { validateDocument } from "../../../src/schemas.js";
import { simulate } from "../../../src/sim/run.js";
import { EventOrder } from "../../../src/sim/trace/event-order.js";
import { WriteSuffix } from "../../../src/sim/trace/release-search.js";
import { perfettoPage, perfettoPageData } from "../../../src/sim/trace/perfetto-page.js";
import { example, runCli } from "../../helpers/cli.js";
import { compileText } from "./compile-helper.js";

// The trace's producer, made to fail on demand (as the 852k-packet trace did, past V8's longest
// string), to show the verdict is out first.
const fault = vi.hoisted(() => ({ on: false }));
vi.mock("../../../src/sim/chrome-trace.js", async (importActual) => {
  const actual = await importActual<typeof import("../../../src/sim/chrome-trace.js")>();
  const fail = (): never => {
    throw new RangeError("Invalid string length");
  };
  return {
    ...actual,
    chromeTrace: (...a: Parameters<typeof actual.chromeTrace>) =>
      fault.on ? fail() : actual.chromeTrace(...a),
    chromeTraceJson: (...a: Parameters<typeof actual.chromeTraceJson>) =>
      fault.on ? new StreamedData(fail) : actual.chromeTraceJson(...a),
  };
});
const { chromeTrace, chromeTraceJson } = await import("../../../src/sim/chrome-trace.js");

const dir = mkdtempSync(join(tmpdir(), "dmac-trace-streaming-"));

/** A medium run: 16 pieces of a pipelined ring (~4k packets, 3 MB of trace), external signals over time. */
function mediumRun(): {
  program: NonNullable<ReturnType<typeof simulate>["program"]>;
  r: ReturnType<typeof simulate>;
  module: ReturnType<typeof compileText>["module"];
} {
  const path = example("pipelined_all_gather.dmac");
  const c = compileText(path, readFileSync(path, "utf8"), { pieces: "16" }, "aggressive");
  const r = simulate(
    { manifest: c.manifest, streams: c.streams, module: c.module },
    { target: c.target, record: true, signalPeriodUs: 0.5 },
  );
  expect(r.verified, r.diagnostics.map((d) => d.message).join("\n")).toBe(true);
  return { program: r.program!, r, module: c.module };
}

describe("the streamed trace", () => {
  it("is the document's JSON byte for byte, in chunks of about a MiB, and valid", () => {
    const { program, r, module } = mediumRun();
    const opts = { module, endUs: r.stats.totalUs };
    const chunks: number[] = [];
    const parts: Buffer[] = [];
    chromeTraceJson(program, r, opts).writeTo((c) => {
      chunks.push(c.length);
      parts.push(Buffer.from(c)); // (each chunk is valid only during the call)
    });
    const text = Buffer.concat(parts).toString();
    expect(chunks.length).toBeGreaterThan(2);
    expect(Math.max(...chunks)).toBeLessThan(2 << 20);
    const doc = chromeTrace(program, r, opts);
    expect(text).toBe(JSON.stringify(doc) + "\n");
    expect(validateDocument("chrome-trace", JSON.parse(text))).toEqual([]);
    expect(doc.traceEvents.length).toBeGreaterThan(10_000);
  });

  it("events at one time keep slices before flow starts before flow ends, then push order", () => {
    const o = new EventOrder(3000);
    const kinds = [0, 5, 6, 0, 6, 5];
    const ts = [3, 1, 1, 1, 0.5, 3];
    for (let k = 0; k < 3000; k++) o.push(kinds[k % 6]!, k, ts[k % 6]! + (k % 7 === 0 ? 1e-9 : 0));
    const rank = (kind: number): number => (kind === 5 ? 1 : kind === 6 ? 2 : 0);
    const seen: [number, number, number][] = [];
    o.forEach(rank, (kind, index, t) => void seen.push([t, rank(kind), index]));
    const expected = [...seen].sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    expect(seen).toEqual(expected);
    expect(seen.length).toBe(3000);
  });

  it("the page around it is the page of the whole text", () => {
    const text = '{"traceEvents":[{"name":"a </script> <!-- b"}]}\n';
    const chunked = new StreamedData((write) => {
      for (const piece of [text.slice(0, 20), text.slice(20, 21), text.slice(21)])
        write(Buffer.from(piece));
    });
    const page = Buffer.from(perfettoPageData(chunked, "t < u", "t.json").bytes()).toString();
    expect(page).toBe(perfettoPage(text, "t < u", "t.json"));
    expect(page).not.toContain("</script> <!--");
  });
});

describe("writeOutputFile with streamed data", () => {
  const stream = (...pieces: string[]): StreamedData =>
    new StreamedData((write) => pieces.forEach((p) => write(Buffer.from(p))));

  it("writes the chunks into a temporary renamed into place", () => {
    const file = join(dir, "out.json");
    writeOutputFile(file, stream("[1,", "2]\n"));
    expect(readFileSync(file, "utf8")).toBe("[1,2]\n");
    expect(readdirSync(dir).filter((n) => n.includes("dmac-tmp"))).toEqual([]);
  });

  it("a producer that fails leaves the previous file and no temporary; its error is its own", () => {
    const file = join(dir, "kept.json");
    writeFileSync(file, "previous\n");
    const broken = new StreamedData((write) => {
      write(Buffer.from("partial"));
      throw new RangeError("Invalid string length");
    });
    expect(() => writeOutputFile(file, broken)).toThrow(RangeError);
    expect(readFileSync(file, "utf8")).toBe("previous\n");
    expect(readdirSync(dir).filter((n) => n.includes("dmac-tmp"))).toEqual([]);
  });

  it("keeps the rules: no symbolic links, not over an input", () => {
    const link = join(dir, "link.json");
    symlinkSync(join(dir, "elsewhere.json"), link);
    expect(() => writeOutputFile(link, stream("x"))).toThrow(OutputError);
    expect(existsSync(join(dir, "elsewhere.json"))).toBe(false);
    const input = join(dir, "input.dmac");
    writeFileSync(input, "schedule");
    expect(() => writeOutputFile(input, stream("x"), { inputs: [input] })).toThrow(
      /would overwrite an input/,
    );
    expect(readFileSync(input, "utf8")).toBe("schedule");
  });
});

describe("dmac sim -o: the verdict first", () => {
  const args = (out: string): string[] => [
    "sim",
    example("pipelined_all_gather.dmac"),
    "-q",
    "-o",
    out,
  ];

  it("a trace that cannot be written: the summary, then DMAC5002 on stderr, exit 1", async () => {
    const taken = join(dir, "a-directory");
    mkdirSync(taken);
    const text = await runCli(args(taken));
    expect(text.code).toBe(1);
    expect(text.out).toContain("verified: the postcondition holds");
    expect(text.err).toContain("DMAC5002");
    // --format json: stdout is still the one summary document, the error is on stderr.
    const json = await runCli([...args(taken), "--format", "json"]);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.out) as { verified: boolean }).verified).toBe(true);
    expect(json.err).toContain("DMAC5002");
  });

  it("a trace whose production fails (internal error): the verdict was printed already", async () => {
    fault.on = true;
    try {
      const r = await runCli(args(join(dir, "never.json")));
      expect(r.code).toBe(2);
      expect(r.out).toContain("verified: the postcondition holds");
      expect(existsSync(join(dir, "never.json"))).toBe(false);
    } finally {
      fault.on = false;
    }
  });
});

describe("which write released a wait, without walking back (release-search.ts)", () => {
  /** The definition: walk back from the last value while the condition holds. */
  function walked(values: readonly number[], ok: (v: number) => boolean): number {
    let k = values.length - 1;
    while (k >= 0 && ok(values[k]!)) k--;
    return k + 1;
  }

  it("agrees with the walk for every condition, after every write", () => {
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const funcs = ["always", "<", "<=", "==", "!=", ">=", ">"] as const;
    const ops: Record<(typeof funcs)[number], (v: number, r: number) => boolean> = {
      always: () => true,
      "<": (v, r) => v < r,
      "<=": (v, r) => v <= r,
      "==": (v, r) => v === r,
      "!=": (v, r) => v !== r,
      ">=": (v, r) => v >= r,
      ">": (v, r) => v > r,
    };
    for (let trial = 0; trial < 6; trial++) {
      const s = new WriteSuffix((v) => v % 8);
      const values: number[] = [];
      for (let k = 0; k < 60; k++) {
        const v = random(3) === 0 ? random(100) : (values[values.length - 1] ?? 0) + random(3);
        s.add(v);
        values.push(v % 8);
        for (const f of funcs)
          for (let ref = -1; ref <= 8; ref++)
            expect(s.earliest(f, ref), `${f} ${ref} on ${values.join(",")}`).toBe(
              walked(values, (x) => ops[f](x, ref)),
            );
      }
    }
  });

  it("a signal raised 20,000 times before its 20,000 waits: each wait costs O(log n)", () => {
    const s = new WriteSuffix((v) => v);
    for (let k = 1; k <= 20_000; k++) s.add(k);
    const t = performance.now();
    for (let k = 1; k <= 20_000; k++) expect(s.earliest(">=", k)).toBe(k - 1);
    expect(performance.now() - t).toBeLessThan(2000); // (the walk: 2 * 10^8 steps)
  });
});
