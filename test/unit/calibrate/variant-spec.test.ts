// The variant-spec parser shared by `dmac sweep` (FILE@SPEC) and `dmac calibrate` (the spec
// column): items, brackets, labels, parameters, problems with their offsets, and how a variant's
// options replace the command line's.

import { describe, expect, it } from "vitest";
import {
  formatOptions,
  optionsAsArguments,
  parseSpec,
  parseVariantSpec,
  splitVariantArg,
  variantCompileOptions,
} from "../../../src/options/variant-spec.js";

/** The problems as [the text they point at, message]. */
function problems(text: string): [string, string][] {
  return parseSpec(text).problems.map((p) => [text.slice(p.start, p.end), p.message]);
}

describe("parseSpec", () => {
  it("reads levels, flags, options and parameters joined by , or +", () => {
    const s = parseSpec(
      "O1,prelaunch,engines=single:8,completion=per-queue+completion=fence,disable-pass=sync-elision,schedule=ag,chunk=1MiB",
    );
    expect(s.problems).toEqual([]);
    expect(s.levels).toEqual([1]);
    expect(s.prelaunch).toBe(true);
    expect(s.options).toEqual({
      engines: "single:8",
      completion: "per-queue,fence",
      disablePass: ["sync-elision"],
      schedule: "ag",
      defines: { chunk: "1MiB" },
    });
    expect(s.label).toBeUndefined();
    expect(parseSpec("-O2+pl").levels).toEqual([2]);
    expect(parseSpec("O0,O2").levels).toEqual([0, 2]);
  });

  it("brackets values that hold separators; -D names a parameter that shadows an option", () => {
    const s = parseSpec(
      "engines=[single:8,10],completion=[fence,per-op],n=[1KiB+64B],-Dschedule=3",
    );
    expect(s.problems).toEqual([]);
    expect(s.options).toEqual({
      engines: "single:8,10",
      completion: "fence,per-op",
      defines: { n: "1KiB+64B", schedule: "3" },
    });
    expect(formatOptions(s.options)).toBe(
      "engines=[single:8,10],completion=[fence,per-op],n=[1KiB+64B],-Dschedule=3",
    );
    expect(parseSpec(formatOptions(s.options)).options).toEqual(s.options);
    expect(optionsAsArguments(s.options)).toBe(
      "--engines single:8,10 --completion fence,per-op -D n=1KiB+64B -D schedule=3",
    );
  });

  it("takes the rest of the text as the label: label=TEXT, or =TEXT after the last item", () => {
    expect(parseSpec("O1,label=b2b, pl").label).toBe("b2b, pl");
    expect(parseSpec("O1+prelaunch=b2b plain")).toMatchObject({
      levels: [1],
      prelaunch: true,
      label: "b2b plain",
    });
    const s = parseSpec("O0,engine=8=b2b_pl");
    expect(s.options.defines).toEqual({ engine: "8" });
    expect(s.label).toBe("b2b_pl");
    expect(parseSpec("n=[a=b]=x")).toMatchObject({
      options: { defines: { n: "a=b" } },
      label: "x",
    });
  });

  it("locates its problems", () => {
    expect(problems("")).toEqual([["", "empty spec"]]);
    expect(problems("O1,prelunch")).toEqual([["prelunch", "unknown item 'prelunch'"]]);
    expect(parseSpec("O1,prelunch").problems[0]!.hint).toBe("did you mean 'prelaunch'?");
    expect(problems("O3")).toEqual([["O3", "unknown item 'O3'"]]);
    expect(problems("per-queue")[0]![1]).toBe("unknown item 'per-queue'");
    expect(parseSpec("per-queue").problems[0]!.hint).toBe("write completion=per-queue");
    expect(problems("O1,engines")).toEqual([
      ["engines", "engines needs a value, as in engines=single:8"],
    ]);
    expect(problems("completion=per-row")).toEqual([
      ["per-row", "'per-row' is not a completion choice"],
    ]);
    expect(problems("completion=[atomic,fence]")).toEqual([
      ["completion=[atomic,fence]", "conflicting completion choices (atomic, fence)"],
    ]);
    expect(problems("disable-pass=[sync-elision,bcst-fusion]")).toEqual([
      ["bcst-fusion", "no pass 'bcst-fusion'"],
    ]);
    expect(problems("engines=single,engines=spread:2")).toEqual([
      ["engines=spread:2", "engines is given twice"],
    ]);
    expect(problems("n=1,n=2")).toEqual([["n=2", "parameter n is given twice"]]);
    expect(problems("O1,,pl")).toEqual([[",", "empty item"]]);
    expect(problems("O1,")).toEqual([[",", "nothing after ','"]]);
    expect(problems("n=[1KiB")).toEqual([["[1KiB", "unclosed [ (a bracketed value ends with ])"]]);
    expect(problems("n=[1]x")).toEqual([["x", "expected , or + after the bracketed value"]]);
    expect(problems("2x=3")).toEqual([["2x", "'2x' is not an option or a parameter name"]]);
    expect(problems("=3")).toEqual([["=3", "= without a name"]]);
    expect(problems("O1=")).toEqual([["=", "empty label after ="]]);
    expect(problems("schedule=a-b")).toEqual([["a-b", "'a-b' is not a schedule name"]]);
  });
});

describe("FILE@SPEC arguments", () => {
  it("splits at the @ after an existing file or .dmac, keeping old forms", () => {
    const none = (): boolean => false;
    expect(splitVariantArg("x/a.dmac@O1=b", none)).toEqual({
      path: "x/a.dmac",
      spec: "O1=b",
      label: undefined,
    });
    expect(splitVariantArg("me@host/a.dmac@O1,label=x@y", none).path).toBe("me@host/a.dmac");
    expect(splitVariantArg("a.dmac=lbl", none)).toEqual({
      path: "a.dmac",
      spec: undefined,
      label: "lbl",
    });
    const exists = (p: string): boolean => p === "we@ird.dmac";
    expect(splitVariantArg("we@ird.dmac", exists).spec).toBeUndefined();
    expect(splitVariantArg("we@ird.dmac@O2", exists)).toMatchObject({
      path: "we@ird.dmac",
      spec: "O2",
    });
  });

  it("gives one variant per level and carries the options", () => {
    const v = parseVariantSpec("x/none.dmac@pl,engines=single:8,chunk=4KiB", [0, 1], false);
    expect(v.diagnostics).toEqual([]);
    expect(v.variants).toEqual(
      [0, 1].map((level) => ({
        path: "x/none.dmac",
        level,
        prelaunch: true,
        options: { engines: "single:8", defines: { chunk: "4KiB" } },
      })),
    );
    const swept = parseVariantSpec("x/none.dmac@chunk=4KiB", [0], false, ["chunk"]);
    expect(swept.diagnostics.map((d) => d.message)).toEqual([
      "bad variant: 'x/none.dmac@chunk=4KiB': chunk is the swept parameter (--param); the sweep sets it",
    ]);
    const bad = parseVariantSpec("x/none.dmac@O1,prelunch", [0], false);
    expect(bad.diagnostics.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        "DMAC5004",
        "bad variant: 'x/none.dmac@O1,prelunch': unknown item 'prelunch'",
        "did you mean 'prelaunch'?",
      ],
    ]);
  });

  it("replaces the command line's options with the spec's", () => {
    const atomic = variantCompileOptions(
      { completion: "fence,per-queue", defines: {} },
      { level: 0, prelaunch: false, options: { completion: "atomic" } },
      undefined,
    );
    expect([atomic.protocol, atomic.passes?.completion]).toEqual(["atomic", "per-queue"]);
    const base = { engines: "spread:2", completion: "fence", defines: { chunk: "1KiB", n: "2" } };
    const c = variantCompileOptions(
      base,
      { level: 1, prelaunch: true, options: { completion: "per-op", defines: { n: "3" } } },
      undefined,
    );
    expect(c.diagnostics).toEqual([]);
    // per-op replaces the policy half of --completion only.
    expect(c.protocol).toBe("fence");
    expect(c.passes).toMatchObject({
      level: 1,
      prelaunch: true,
      completion: "per-op",
      engines: { kind: "spread", k: 2 },
    });
    expect(c.defines).toEqual({ chunk: "1KiB", n: "3" });
    const plain = variantCompileOptions(base, { level: 0, prelaunch: false }, undefined);
    expect(plain.protocol).toBe("fence");
    expect(plain.defines).toEqual(base.defines);
  });
});
