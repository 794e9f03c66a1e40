// The formatter over programs of the fuzzer's generator (fuzz/generate.ts), each also with
// comments inserted at random places: idempotent, meaning-preserving, comments kept in order.
// 200 programs in `npm test`; FMT_PROGRAMS=10000 npx vitest run test/unit/fmt/generated.test.ts
// for the long run.

import { describe, expect, it } from "vitest";
import { generateProgram } from "../../../fuzz/generate.js";
import { caseRng, type Rng } from "../../../fuzz/rng.js";
import { formatDmac } from "../../../src/fmt/format.js";
import { lex } from "../../../src/frontend/lexer.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { comments, meaning } from "./meaning.js";

const COUNT = Number(process.env["FMT_PROGRAMS"] ?? 200);
const SEED = Number(process.env["FMT_SEED"] ?? 14);

const COMMENTS = ["// note", "/// doc", "/* inline */", "/* two\n   lines */"];

/** `text` with up to four comments put between random tokens (a line comment ends its line). */
export function withComments(rng: Rng, text: string): string {
  const tokens = lex(makeSourceFile("x.dmac", text)).tokens;
  const cuts = new Set<number>();
  for (let k = rng.int(4); k >= 0 && tokens.length > 0; k--) {
    const t = tokens[rng.int(tokens.length)]!;
    cuts.add(rng.chance(0.5) ? t.startOffset : t.startOffset + t.image.length);
  }
  let out = text;
  for (const at of [...cuts].sort((a, b) => b - a)) {
    const c = rng.pick(COMMENTS);
    out = `${out.slice(0, at)} ${c}${c.startsWith("//") ? "\n" : " "}${out.slice(at)}`;
  }
  return out;
}

describe(`dmac fmt over ${COUNT} generated programs`, () => {
  it("is idempotent, keeps the meaning and the comments", { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    let formatted = 0;
    for (let i = 0; i < COUNT && failures.length < 5; i++) {
      const rng = caseRng(SEED, i);
      const plain = generateProgram(rng);
      const text = i % 2 === 0 ? plain : withComments(rng, plain);
      const once = await formatDmac(text);
      if (!once.ok) continue;
      formatted++;
      const twice = await formatDmac(once.text);
      const problem = !twice.ok
        ? "the output does not parse"
        : twice.text !== once.text
          ? "not idempotent"
          : meaning(once.text) !== meaning(text)
            ? "meaning changed"
            : JSON.stringify(comments(once.text)) !== JSON.stringify(comments(text))
              ? "comments changed"
              : undefined;
      if (problem !== undefined) failures.push(`case ${i}: ${problem}\n${text}\n---\n${once.text}`);
    }
    expect(failures).toEqual([]);
    expect(formatted).toBeGreaterThan(COUNT * 0.5);
  });
});
