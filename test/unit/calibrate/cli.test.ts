// `dmac calibrate` through the CLI: malformed measurements files get DMAC5007 at
// file:line:column and exit 1 (never a stack trace); rows that do not compile or verify are
// located too; -o never writes over an input, through a symbolic link or onto a directory;
// --no-fit, --constants and --help.

import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const MI300X = fileURLToPath(new URL("../../../targets/mi300x.json", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "dmac-calibrate-cli-"));

beforeAll(() => {
  for (const f of ["one_copy.dmac", "fan_out.dmac"]) copyFileSync(join(FIXTURES, f), join(dir, f));
});

/** Writes NAME.csv in the test directory and runs `dmac calibrate` on it (concise diagnostics). */
async function calibrate(name: string, text: string, ...args: string[]) {
  const path = join(dir, `${name}.csv`);
  writeFileSync(path, text);
  const r = await runCli(["calibrate", path, "--format", "concise", ...args]);
  // Diagnostics as `line:column message` (the path is the temporary file's).
  const located = r.err
    .trimEnd()
    .split("\n")
    .filter((l) => l.startsWith(path))
    .map((l) => l.slice(path.length + 1));
  return { ...r, located };
}

const HEADER = "id,file,spec,time_us,speedup,baseline\n";

describe("dmac calibrate: malformed measurements files", () => {
  it("locates unknown and repeated columns, and a header without id or measurements", async () => {
    const r = await calibrate("columns", "# comment\nid,file,spec,time,time\n");
    expect(r.code).toBe(1);
    expect(r.located).toEqual([
      "2:1: DMAC5007 the header has neither a 'time_us' nor a 'speedup' column: nothing is measured",
      "2:14: DMAC5007 unknown column 'time'",
      "2:19: DMAC5007 unknown column 'time'",
    ]);
    const noId = await calibrate("noid", "file,time_us\none_copy.dmac,3\n");
    expect(noId.located).toEqual(["1:1: DMAC5007 the header has no 'id' column"]);
    const empty = await calibrate("empty", "# only comments\n\n");
    expect(empty.code).toBe(1);
    expect(empty.located[0]).toMatch(/^1:1: DMAC5007 no header row/);
    const full = await runCli(["calibrate", join(dir, "columns.csv"), "--color", "never"]);
    expect(full.err).toContain("hint: the columns are id, file, spec, time_us, speedup,");
    expect(full.err).toMatch(/--> .*columns\.csv:2:14/);
  });

  it("locates bad rows: field counts, ids, numbers, specs and measurements", async () => {
    const r = await calibrate(
      "rows",
      HEADER +
        "a,one_copy.dmac,chunk=1KiB,7.5,,\n" +
        "a,one_copy.dmac,chunk=2KiB,8,,\n" +
        "b,one_copy.dmac,O1+prelunch,8,,\n" +
        "c,one_copy.dmac,,-3,,\n" +
        "d,one_copy.dmac,,12us,,\n" +
        "e,one_copy.dmac,,,2,\n" +
        "f,one_copy.dmac,,,,a  # a baseline without a speedup\n" +
        "g,one_copy.dmac,,5,2,a\n" +
        'h,one_copy.dmac,"O0,O1",,,\n' +
        "i,one_copy.dmac,,5,\n" +
        ",one_copy.dmac,,5,,\n" +
        'j,one_copy.dmac,"O1,label=x",5,,\n' +
        "k,,,5,,\n",
    );
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/internal error|at .*\.ts:\d+/);
    expect(r.located).toEqual([
      "3:1: DMAC5007 id 'a' is given twice",
      "4:20: DMAC5007 bad spec: unknown item 'prelunch'",
      "5:18: DMAC5007 time_us '-3' is not a positive number of microseconds",
      "6:18: DMAC5007 time_us '12us' is not a positive number of microseconds",
      "7:19: DMAC5007 a speedup needs a baseline: the id of the row it is measured against",
      "8:20: DMAC5007 a baseline without a speedup",
      "9:20: DMAC5007 give a time or a speedup, not both",
      "10:18: DMAC5007 a row is one run: give one level, not O0 and O1",
      "11:1: DMAC5007 expected 6 fields (the header's columns), found 5",
      "12:1: DMAC5007 empty id: every row needs one (other rows name it as their baseline)",
      "13:18: DMAC5007 a row's name is its id: remove the label from the spec",
      "14:3: DMAC5007 empty file: name the schedule (.dmac), relative to this file",
    ]);
  });

  it("locates unknown baselines and cycles of baselines", async () => {
    const r = await calibrate(
      "baselines",
      HEADER +
        "base,one_copy.dmac,,7.5,,\n" +
        "x,one_copy.dmac,chunk=2KiB,,1.1,bsae\n" +
        "y,one_copy.dmac,chunk=4KiB,,1.2,z\n" +
        "z,one_copy.dmac,chunk=8KiB,,1.3,y\n" +
        "self,one_copy.dmac,chunk=16KiB,,1,self\n",
    );
    expect(r.code).toBe(1);
    expect(r.located).toEqual([
      "3:33: DMAC5007 baseline 'bsae' is not the id of any row",
      "4:33: DMAC5007 baselines form a cycle: y -> z -> y",
      "6:35: DMAC5007 baselines form a cycle: self -> self",
    ]);
    const full = await runCli(["calibrate", join(dir, "baselines.csv"), "--color", "never"]);
    expect(full.err).toContain("hint: did you mean 'base'?");
  });

  it("locates a missing schedule, a bad option value, and a row that does not compile", async () => {
    const r = await calibrate(
      "runs",
      HEADER +
        "a,missing.dmac,,7.5,,\n" +
        "b,one_copy.dmac,engines=spread:0,7.5,,\n" +
        "c,one_copy.dmac,size=3,7.5,,\n",
    );
    expect(r.code).toBe(1);
    expect(r.located).toEqual([
      expect.stringMatching(
        /^2:3: DMAC5007 cannot read .*missing\.dmac: no such file or directory$/,
      ),
      expect.stringMatching(
        /^3:17: DMAC5007 bad spec: bad --engines: 'spread:0': spread needs an engine count from 1 to/,
      ),
    ]);
    const compile = await calibrate("compile", HEADER + "c,one_copy.dmac,size=3,7.5,,\n");
    expect(compile.code).toBe(1);
    expect(compile.located).toEqual([
      expect.stringMatching(/^2:1: DMAC5007 row 'c': .*one_copy\.dmac does not compile$/),
      "2:17: DMAC2009 schedule 'one_copy' has no parameter 'size'",
    ]);
    const unreadable = await runCli(["calibrate", join(dir, "no-such.csv")]);
    expect(unreadable.code).toBe(1);
    expect(unreadable.err).toMatch(/DMAC5001/);
  });
});

describe("dmac calibrate: options and outputs", () => {
  const good =
    "# two runs of one copy\n" +
    "id,file,spec,time_us,speedup,baseline,weight,note\n" +
    "small,one_copy.dmac,chunk=1KiB,7.5,,,1,\n" +
    '"big",one_copy.dmac,"O0,chunk=1MiB",,0.3,small,2,"a note, with a comma"\n';

  it("compares without fitting, and says when nothing is marked fittable", async () => {
    const r = await calibrate("good", good, "--no-fit");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^id\s+measured\s+predicted\s+error\n/);
    expect(r.out).toMatch(/^small\s+7\.50 µs\s+[\d.]+ µs\s+[+-][\d.]+%$/m);
    expect(r.out).toMatch(/^big\s+0\.300x\s+0\.\d{3}x\s+[+-][\d.]+%$/m);
    expect(r.out).toMatch(
      /^2 measured rows \(1 times, 1 speedups\), 0 baseline-only rows, 2 distinct runs; target mi300x$/m,
    );
    expect(r.out).not.toMatch(/after:/);
    // The shipped target marks constants fittable; a copy without the marks has nothing to fit.
    const t = JSON.parse(readFileSync(MI300X, "utf8")) as {
      timing: Record<string, { fit?: unknown }>;
    };
    for (const e of Object.values(t.timing)) delete e.fit;
    const unmarked = join(dir, "unmarked.json");
    writeFileSync(unmarked, JSON.stringify(t));
    const nothing = await calibrate("good", good, "--target", unmarked);
    expect(nothing.code).toBe(0);
    expect(nothing.err).toMatch(/no timing constant of .* is marked "fit"/);
    const out = await calibrate("good", good, "--target", unmarked, "-o", join(dir, "never.json"));
    expect(out.code).toBe(1);
    expect(out.err).toMatch(/DMAC5004 bad -o: nothing to fit/);
    const noFit = await calibrate("good", good, "--no-fit", "-o", join(dir, "never.json"));
    expect(noFit.code).toBe(1);
    expect(noFit.err).toMatch(/DMAC5004 bad -o: --no-fit fits nothing/);
    const constants = await calibrate("good", good, "--constants", "copyStartupUs");
    expect(constants.code).toBe(1);
    expect(constants.err).toMatch(/DMAC5004 bad --constants: copyStartupUs is not a fittable/);
    const evals = await calibrate("good", good, "--max-evals", "0");
    expect(evals.code).toBe(1);
    expect(evals.err).toMatch(/DMAC5004 bad --max-evals/);
  });

  it("writes the fitted target atomically, never over an input, a link or a directory", async () => {
    const t = JSON.parse(readFileSync(MI300X, "utf8")) as {
      timing: Record<string, { value: number; fit?: unknown }>;
    };
    for (const e of Object.values(t.timing)) delete e.fit;
    const v = t.timing["copyStartupUs"]!.value;
    t.timing["copyStartupUs"]!.fit = { min: v / 4, max: v * 4 };
    const target = join(dir, "fit-target.json");
    writeFileSync(target, JSON.stringify(t, null, 2));
    const csv = join(dir, "good.csv");
    writeFileSync(csv, good);
    const run = (out: string, ...more: string[]) =>
      runCli(["calibrate", csv, "--target", target, "--format", "concise", "-o", out, ...more]);
    for (const [out, why] of [
      [csv, /would overwrite an input/],
      [target, /would overwrite an input/],
      [join(dir, "one_copy.dmac"), /would overwrite an input/],
    ] as const) {
      const r = await run(out);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/DMAC5002/);
      expect(r.err).toMatch(why);
    }
    const sub = join(dir, "a-directory");
    mkdirSync(sub, { recursive: true });
    const d = await run(sub);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/DMAC5002 .*exists and is not a regular file/);
    const link = join(dir, "link.json");
    symlinkSync(join(dir, "elsewhere.json"), link);
    const l = await run(link);
    expect(l.code).toBe(1);
    expect(l.err).toMatch(/DMAC5002 .*symbolic link/);
    expect(readFileSync(csv, "utf8")).toBe(good);

    const ok = await run(join(dir, "fitted.json"), "--max-evals", "40");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(
      /^fitted 1 constant of mi300x .*; \d+ evaluations, (converged|stopped at --max-evals 40)\):$/m,
    );
    expect(ok.out).toMatch(/^wrote .*fitted\.json$/m);
    const fitted = JSON.parse(readFileSync(join(dir, "fitted.json"), "utf8")) as typeof t;
    expect(fitted.timing["copyStartupUs"]!.fit).toEqual(t.timing["copyStartupUs"]!.fit);
  });

  it("shows progress on a terminal only", async () => {
    const path = join(dir, "good.csv");
    writeFileSync(path, good);
    // Progress draws after 200 ms (cli/progress.ts, tested with a fake clock in
    // test/unit/cli/progress.test.ts): whatever this short run drew, it cleared.
    const tty = await runCli(["calibrate", path, "--no-fit"], true);
    expect(tty.err.replace(/\r\x1b\[K[^\r]*/g, "")).toBe("");
    if (tty.err !== "") expect(tty.err.endsWith("\r\x1b[K")).toBe(true);
    const piped = await runCli(["calibrate", path, "--no-fit"]);
    expect(piped.err).toBe("");
    expect(piped.out).toBe(tty.out);
    const quiet = await runCli(["calibrate", path, "--no-fit", "-q"], true);
    expect(quiet.err).toBe("");
  });

  it("documents its options in --help", async () => {
    const r = await runCli(["calibrate", "--help"]);
    expect(r.code).toBe(0);
    for (const o of [
      "--target <file>",
      "-o, --out <file>",
      "--no-fit",
      "--max-evals <n>",
      "--constants <names>",
    ])
      expect(r.out).toContain(o);
  });
});
