// The mutators: hostile variations of real inputs.
// - mutateSource: token-level (delete, duplicate, swap, replace with a keyword/operator/huge
//   number, splice from another seed) and byte-level (flip or insert characters, including NUL,
//   CR, non-ASCII and lone surrogates; truncate) edits of a .dmac file, plus inserted deep
//   nesting and long operator chains aimed at the front end's limits.
// - mutateWords: edits of a packet stream (flip bits, random or header-like dwords, delete,
//   duplicate, truncate), for the decoder and the executor.

import type { Rng } from "./rng.js";

/** A deliberately loose tokenizer: good enough to cut a program at token boundaries. */
const TOKEN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9A-Fa-f_]+|[0-9][0-9_]*[A-Za-z]*|<->|->|\+:|\.\.|[<>=!]=|&&|\|\||[\s\S]/g;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

const REPLACEMENTS: readonly string[] = [
  "target",
  "const",
  "let",
  "schedule",
  "implements",
  "buffer",
  "signal",
  "on",
  "if",
  "else",
  "for",
  "in",
  "where",
  "step",
  "copy",
  "swap",
  "fill",
  "with",
  "when",
  "notify",
  "ensure",
  "sdma",
  "by",
  "ranks",
  "min",
  "max",
  "true",
  "false",
  "int",
  "bytes",
  "bool",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ";",
  "=",
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "!",
  "&&",
  "||",
  "@",
  "..",
  "+:",
  "->",
  "<->",
  "0",
  "1",
  "7",
  "8",
  "-1",
  "4KiB",
  "1MiB",
  "1GiB",
  "1TiB",
  "3B",
  "4KB",
  "9007199254740991",
  "9007199254740992",
  "99999999999999999999999",
  "0xFFFFFFFFFFFFFFFF",
  "0x1FFFFFFFFFFFFF",
  "18446744073709551615B",
  "4294967296",
  "2147483648",
  "8192TiB",
  "buf",
  "chunk",
  "r",
  "p",
  "all_gather",
  "all_to_all_inplace",
  '"x.json"',
  '"',
  "/*",
  "//",
  "///",
  "_",
  "__proto__",
  "constructor",
  "toString",
];

/** Things aimed at the limits: deep nesting of every kind and long operator chains. */
const BOMBS: readonly ((r: Rng) => string)[] = [
  (r) => "(".repeat(r.range(150, 2000)),
  (r) => "{".repeat(r.range(150, 2000)),
  (r) => "-".repeat(r.range(150, 3000)),
  (r) => "!".repeat(r.range(150, 3000)) + "true",
  (r) => "min(".repeat(r.range(100, 600)),
  (r) => "if true {".repeat(r.range(100, 600)),
  (r) => "else if false {} ".repeat(r.range(100, 600)),
  (r) => `${"1+".repeat(r.range(150, 20000))}1`,
  (r) => `${"x*".repeat(r.range(150, 20000))}x`,
  (r) => `${"true&&".repeat(r.range(150, 20000))}true`,
  (r) => `(${"(1)+".repeat(r.range(100, 5000))}1)`,
  (r) => "9".repeat(r.range(16, 400)),
  (r) =>
    `for i${r.int(9)} in 0..${r.pick(["1000000000", "9007199254740991", "ranks*ranks*ranks"])} { fill buf@0[0 +: 1B] with 1 }`,
  (r) =>
    `copy buf@0[0 +: ${r.pick(["1TiB", "9007199254740991B", "0B", "1B"])}] -> buf@1[0 +: ${r.pick(["1TiB", "1B"])}]`,
  () => "\u0000\u0001\uFFFD\uD800é\r\r\n\t\v\f",
];

const CHARS =
  "(){}[]@,.:;=<>!+-*/%&|\"'\\#$^~`?0123456789abcxyzKMGiB _\n\t\r\u0000\u00e9\uD83D\uDE00\uD800";

export function mutateSource(rng: Rng, text: string, others: readonly string[] = []): string {
  let tokens = tokenize(text);
  const n = rng.range(1, 4);
  for (let k = 0; k < n; k++) {
    const at = rng.int(tokens.length + 1);
    switch (rng.int(12)) {
      case 0: // delete a run of tokens
        tokens.splice(at, rng.range(1, 3));
        break;
      case 1: // duplicate a run
        tokens.splice(at, 0, ...tokens.slice(at, at + rng.range(1, 8)));
        break;
      case 2: {
        // swap two tokens
        const b = rng.int(tokens.length);
        if (at < tokens.length) [tokens[at], tokens[b]] = [tokens[b]!, tokens[at]!];
        break;
      }
      case 3:
      case 4: // replace with a keyword / operator / odd number
        tokens.splice(at, 1, rng.pick(REPLACEMENTS));
        break;
      case 5: // insert a token with spaces around it
        tokens.splice(at, 0, " ", rng.pick(REPLACEMENTS), " ");
        break;
      case 6: {
        // splice a stretch of another seed in
        const other = others.length > 0 ? tokenize(rng.pick(others)) : tokens;
        const from = rng.int(other.length);
        tokens.splice(at, rng.int(3), ...other.slice(from, from + rng.range(1, 40)));
        break;
      }
      case 7: {
        // flip a character
        const s = tokens.join("");
        if (s.length === 0) break;
        const i = rng.int(s.length);
        tokens = tokenize(s.slice(0, i) + rng.pick([...CHARS]) + s.slice(i + 1));
        break;
      }
      case 8: {
        // insert characters
        const s = tokens.join("");
        const i = rng.int(s.length + 1);
        let ins = "";
        for (let j = rng.range(1, 4); j > 0; j--) ins += CHARS[rng.int(CHARS.length)]!;
        tokens = tokenize(s.slice(0, i) + ins + s.slice(i));
        break;
      }
      case 9: // truncate
        tokens = tokens.slice(0, at);
        break;
      case 10: // a limit bomb, rarely (they are slow-ish by design)
        if (rng.chance(0.3)) tokens.splice(at, 0, " ", rng.pick(BOMBS)(rng), " ");
        break;
      default: {
        // change a number
        const idx = tokens.findIndex((t, i) => i >= at && /^[0-9]/.test(t));
        if (idx >= 0)
          tokens[idx] =
            rng.pick(["0", "1", "2", "7", "8", "9", "255", "256", "4096", "65536"]) +
            (tokens[idx]!.match(/[A-Za-z]+$/)?.[0] ?? "");
      }
    }
  }
  return tokens.join("");
}

// ---- packet streams ---------------------------------------------------------------------------

/**
 * Header dwords with every SDMA opcode 0..16 and sub-opcode 0..5 (op in bits 7:0, sub_op in
 * 15:8), so random streams reach every packet decoder, not just the unknown-opcode path.
 */
const HEADERS: readonly number[] = Array.from(
  { length: 17 * 6 },
  (_, i) => (i % 17) | (((i / 17) | 0) << 8),
);

export function randomHeader(rng: Rng): number {
  const h = rng.pick(HEADERS);
  // Sometimes set random high bits (packet flags and reserved bits live there).
  return rng.chance(0.5) ? h : (h | (rng.u32() & 0xffff0000)) >>> 0;
}

/** A random stream: mostly plausible headers followed by random bodies, sometimes pure noise. */
export function randomWords(rng: Rng, maxLen = 64): Uint32Array {
  const n = rng.int(maxLen + 1);
  const words = new Uint32Array(n);
  const noise = rng.chance(0.15);
  for (let i = 0; i < n;) {
    if (noise) {
      words[i++] = rng.u32();
      continue;
    }
    words[i++] = randomHeader(rng);
    const body = rng.int(9);
    for (let j = 0; j < body && i < n; j++) words[i++] = interestingWord(rng);
  }
  return words;
}

function interestingWord(rng: Rng): number {
  switch (rng.int(6)) {
    case 0:
      return 0;
    case 1:
      return 0xffffffff;
    case 2:
      return rng.int(0x1000);
    case 3:
      return (1 << rng.int(32)) >>> 0;
    default:
      return rng.u32();
  }
}

export function mutateWords(rng: Rng, input: Uint32Array): Uint32Array {
  const w = Array.from(input);
  const n = rng.range(1, 4);
  for (let k = 0; k < n; k++) {
    const at = rng.int(w.length + 1);
    switch (rng.int(7)) {
      case 0:
      case 1: // flip bits
        if (at < w.length) w[at] = (w[at]! ^ (1 << rng.int(32))) >>> 0;
        break;
      case 2: // overwrite with an interesting value or a header
        if (at < w.length) w[at] = rng.chance(0.5) ? randomHeader(rng) : interestingWord(rng);
        break;
      case 3: // delete dwords
        w.splice(at, rng.range(1, 3));
        break;
      case 4: // duplicate a run
        w.splice(at, 0, ...w.slice(at, at + rng.range(1, 12)));
        break;
      case 5: // truncate
        w.length = at;
        break;
      default: // insert random dwords
        w.splice(at, 0, ...Array.from({ length: rng.range(1, 4) }, () => interestingWord(rng)));
    }
  }
  return Uint32Array.from(w);
}

// ---- manifests and traces -------------------------------------------------------------------

const ODD_VALUES: readonly unknown[] = [
  0,
  -1,
  1,
  7,
  0.5,
  2 ** 32,
  2 ** 53,
  1e308,
  Number.NaN,
  null,
  "x",
  true,
  [],
  {},
];

/** A copy of a JSON document with 1-3 leaf values replaced by odd ones (or deleted). */
export function mutateJson(rng: Rng, doc: unknown): unknown {
  const copy = structuredClone(doc);
  const leaves: { parent: Record<string, unknown>; key: string }[] = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== "object") return;
    const rec = v as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      const child = rec[key];
      if (child !== null && typeof child === "object") walk(child);
      else leaves.push({ parent: rec, key });
    }
  };
  walk(copy);
  if (leaves.length === 0) return copy;
  for (let k = rng.range(1, 3); k > 0; k--) {
    const { parent, key } = rng.pick(leaves);
    const old = parent[key];
    if (rng.chance(0.1)) delete parent[key];
    else if (typeof old === "number" && rng.chance(0.4))
      parent[key] = old + rng.pick([1, 4, 64, -4, 4096]);
    else parent[key] = rng.pick(ODD_VALUES);
  }
  return copy;
}
