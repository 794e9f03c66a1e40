import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KEYWORDS, PUNCTUATION, SIZE_UNITS } from "../../../src/frontend/tokens.js";
import { COLLECTIVES } from "../../../src/check/collectives.js";
import { BUILTIN_TARGETS } from "../../../src/target/target.js";

const ebnf = readFileSync(new URL("../../../grammar/dmac.ebnf", import.meta.url), "utf8");

function section(startMarker: string, endMarker: string | undefined): string {
  // Sections start at the comment that holds the marker.
  const start = ebnf.lastIndexOf("/*", ebnf.indexOf(startMarker));
  const end =
    endMarker === undefined ? ebnf.length : ebnf.lastIndexOf("/*", ebnf.indexOf(endMarker));
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  // Drop comments; the syntactic section has no quoted comment markers, so this is exact there.
  return ebnf.slice(start, end).replace(/\/\*[\s\S]*?\*\//g, " ");
}

const syntactic = section("==== syntactic grammar", "==== lexical grammar");
const lexical = section("==== lexical grammar", undefined);

describe("grammar/dmac.ebnf is in step with tokens.ts", () => {
  const terminals = new Set([...syntactic.matchAll(/"([^"]+)"/g)].map((m) => m[1]!));
  const tokens = new Set<string>([...Object.keys(KEYWORDS), ...Object.keys(PUNCTUATION)]);

  it("every keyword and punctuation token appears in the EBNF", () => {
    expect([...tokens].filter((t) => !terminals.has(t)).sort()).toEqual([]);
  });

  it("every quoted terminal of the EBNF is a token", () => {
    expect([...terminals].filter((t) => !tokens.has(t)).sort()).toEqual([]);
  });

  it("every size unit appears in the lexical grammar", () => {
    for (const unit of Object.keys(SIZE_UNITS)) expect(lexical).toContain(`'${unit}'`);
  });

  it("every rule named in the syntactic grammar is defined", () => {
    const defined = new Set([...ebnf.matchAll(/^([A-Za-z_]+)\s*::=/gm)].map((m) => m[1]!));
    const body = syntactic.replace(/"[^"]*"/g, " ");
    const used = new Set([...body.matchAll(/\b([A-Za-z_][A-Za-z_]*)\b/g)].map((m) => m[1]!));
    expect([...used].filter((u) => !defined.has(u)).sort()).toEqual([]);
  });
});

// ---- editor grammars -----------------------------------------------------------------------------

interface TmPattern {
  readonly name?: string;
  readonly match?: string;
  readonly patterns?: readonly TmPattern[];
}
const textmate = JSON.parse(
  readFileSync(new URL("../../../editors/textmate/dmac.tmLanguage.json", import.meta.url), "utf8"),
) as { readonly repository: Record<string, TmPattern> };

/** The words of `\b(?:a|b|c)\b` alternations in `patterns`. */
function alternationWords(patterns: readonly TmPattern[]): string[] {
  return patterns.flatMap((p) => {
    const m = /^\\b\(\?:([a-z_|]+)\)\\b$/.exec(p.match ?? "");
    return m === null ? [] : m[1]!.split("|");
  });
}

describe("the TextMate grammar is in step with tokens.ts", () => {
  const keywordPatterns = textmate.repository["keywords"]?.patterns ?? [];

  it("highlights every keyword of the lexer, and only those, as a keyword", () => {
    expect(alternationWords(keywordPatterns).sort()).toEqual(Object.keys(KEYWORDS).sort());
  });

  it("matches each keyword whole, never inside a longer name", () => {
    for (const kw of Object.keys(KEYWORDS)) {
      const hits = keywordPatterns.filter((p) => new RegExp(p.match ?? "$^").exec(kw)?.[0] === kw);
      expect(hits.length, kw).toBe(1);
      for (const p of keywordPatterns) {
        expect(new RegExp(p.match ?? "$^").test(`${kw}_x`), `${kw}_x`).toBe(false);
      }
    }
  });

  it("names every collective and built-in target", () => {
    const declarations = JSON.stringify(textmate.repository["declarations"]);
    for (const name of [...Object.keys(COLLECTIVES), ...BUILTIN_TARGETS]) {
      expect(declarations).toMatch(new RegExp(`[(|]${name}[)|]`));
    }
  });

  it("knows every size unit", () => {
    const literals = JSON.stringify(textmate.repository["literals"]);
    for (const unit of Object.keys(SIZE_UNITS))
      expect(literals).toMatch(new RegExp(`[(|]${unit}[)|]`));
  });
});
