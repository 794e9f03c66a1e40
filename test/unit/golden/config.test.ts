// The `/// golden:` lines of a test file: words, commander parsing, labels, combination with the
// command line (-D only for declared parameters), and DMAC5008 located at a wrong line.

import { describe, expect, it } from "vitest";
import { makeSourceFile } from "../../../src/source/source-file.js";
import {
  checkConfigOptions,
  DEFAULT_TOLERANCE,
  parseTolerance,
  readConfigs,
  splitWords,
} from "../../../src/golden/config.js";
import {
  configLabel,
  parseConfigArgs,
  pickConfig,
  renderConfigArgs,
} from "../../../src/golden/config-options.js";
import { parseArtefactList } from "../../../src/golden/artefacts.js";

const SCHEDULE = `target mi300x

schedule s(chunk: bytes = 4KiB) {
  buffer a: 2 * chunk
  copy a@0[0 +: chunk] -> a@1[0 +: chunk]
}
`;
const file = (header: string) => makeSourceFile("s.dmac", header + SCHEDULE);

describe("golden configuration words and options", () => {
  it("splits on blanks and keeps quoted words whole", () => {
    expect(splitWords(` -O2  -D chunk=1MiB --name 'a b' "c d"`)).toEqual([
      "-O2",
      "-D",
      "chunk=1MiB",
      "--name",
      "a b",
      "c d",
    ]);
    expect(splitWords(`--name 'a`)).toEqual({ error: "unclosed '" });
  });

  it("parses with the command line's options and renders them back", () => {
    const p = parseConfigArgs(["-O2", "-D", "chunk=1MiB", "--prelaunch", "--emit", "sim"]);
    if (!("options" in p)) throw new Error(p.error);
    expect(p.options).toMatchObject({ opt: "2", define: ["chunk=1MiB"], prelaunch: true });
    expect(renderConfigArgs(p.options)).toEqual([
      "-D",
      "chunk=1MiB",
      "-O2",
      "--prelaunch",
      "--emit",
      "sim",
    ]);
    expect(configLabel(p.options)).toBe("chunk=1MiB_O2_prelaunch");
    expect(configLabel({})).toBe("");
    expect(configLabel({ ...p.options, name: "big" })).toBe("big");
    expect(configLabel({ engines: "spread:2" })).toBe("engines=spread_2");
    expect(parseConfigArgs(["--frobnicate"])).toEqual({ error: "unknown option '--frobnicate'" });
    expect(parseConfigArgs(["extra"])).toHaveProperty("error");
  });

  it("picks the configuration options out of the command's", () => {
    expect(pickConfig({ opt: "1", update: true, format: "full", define: ["x=1"] })).toEqual({
      opt: "1",
      define: ["x=1"],
    });
  });

  it("checks values commander cannot", () => {
    expect(checkConfigOptions({ opt: "3" })[0]?.code).toBe("DMAC5004");
    expect(checkConfigOptions({ emit: "dump,nope" })[0]?.message).toMatch(
      /'nope' is not an artefact/,
    );
    expect(checkConfigOptions({ timeTolerance: "-1%" })[0]?.message).toMatch(/percentage/);
    expect(checkConfigOptions({ name: "a/b" })[0]?.message).toMatch(/--name/);
    expect(checkConfigOptions({ opt: "2", emit: "ir,diag", timeTolerance: "0.5%" })).toEqual([]);
  });

  it("reads tolerances and artefact lists", () => {
    expect(parseTolerance(undefined)).toBe(DEFAULT_TOLERANCE);
    expect(parseTolerance("2%")).toBeCloseTo(0.02);
    expect(parseTolerance("0.5")).toBeCloseTo(0.005);
    expect(parseTolerance("two")).toBeUndefined();
    expect(parseArtefactList(undefined)).toEqual(["dump", "sim"]);
    expect(parseArtefactList("sim, ir,dump")).toEqual(["dump", "ir", "sim"]);
  });
});

describe("readConfigs", () => {
  it("gives a file without a header one configuration: the command line's", () => {
    const { configs, diagnostics } = readConfigs(file(""), { opt: "1" }, "/t");
    expect(diagnostics).toEqual([]);
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject({
      label: "",
      options: { opt: "1" },
      artefacts: ["dump", "sim"],
    });
  });

  it("reads one configuration per line; the file's options win and name the goldens", () => {
    const { configs, diagnostics } = readConfigs(
      file(
        "/// golden: --emit dump,ir\n///golden: -O2 -D chunk=1MiB --emit sim --time-tolerance 2%\n",
      ),
      { opt: "1", emit: "trace" },
      "/t",
    );
    expect(diagnostics).toEqual([]);
    expect(configs.map((c) => c.label)).toEqual(["", "chunk=1MiB_O2"]);
    expect(configs[0]).toMatchObject({ options: { opt: "1" }, artefacts: ["dump", "ir"] });
    expect(configs[1]).toMatchObject({ options: { opt: "2" }, artefacts: ["sim"] });
    expect(configs[1]!.tolerance).toBeCloseTo(0.02);
  });

  it("applies a command-line -D only to files that declare the parameter; the file's -D wins", () => {
    const cli = { define: ["chunk=8KiB", "other=1"] };
    const [plain] = readConfigs(file(""), cli, "/t").configs;
    expect(plain!.options.define).toEqual(["chunk=8KiB"]);
    const [own] = readConfigs(file("/// golden: -D chunk=1MiB\n"), cli, "/t").configs;
    expect(own!.options.define).toEqual(["chunk=8KiB", "chunk=1MiB"]); // the later one wins
    const none = readConfigs(makeSourceFile("n.dmac", "target mi300x\n"), cli, "/t").configs[0]!;
    expect(none.options.define).toBeUndefined();
  });

  it("resolves the command line's --target against the working directory, the file's against the file", () => {
    const [fromCli] = readConfigs(file(""), { target: "/x/node.json" }, "/t").configs;
    expect(fromCli!.options.target).toBe("../x/node.json");
    const [fromFile] = readConfigs(file("/// golden: --target n.json\n"), {}, "/t").configs;
    expect(fromFile!.options.target).toBe("n.json");
  });

  it("reports a wrong line as DMAC5008 at the line and keeps the good ones", () => {
    const f = file(
      "/// golden: -O2\n/// golden: -O7\n/// golden: --bogus\n/// golden: --emit nope\n/// golden: -O 2\n",
    );
    const { configs, diagnostics } = readConfigs(f, {}, "/t");
    expect(configs.map((c) => c.label)).toEqual(["O2"]);
    expect(diagnostics.map((d) => d.code)).toEqual([
      "DMAC5008",
      "DMAC5008",
      "DMAC5008",
      "DMAC5008",
    ]);
    const lines = diagnostics.map((d) => f.text.slice(0, d.span!.start).split("\n").length);
    expect(lines).toEqual([2, 3, 4, 5]);
    expect(diagnostics[0]!.message).toMatch(/bad golden configuration: bad -O: '7'/);
    expect(diagnostics[1]!.message).toMatch(/unknown option '--bogus'/);
    expect(diagnostics[3]!.message).toMatch(/same names as the one above/);
    expect(f.text.slice(diagnostics[0]!.span!.start, diagnostics[0]!.span!.end)).toBe("-O7");
  });
});
