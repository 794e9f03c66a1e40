// The front end's entry points: source text -> AST (+ diagnostics), via lexer, parser and
// cst-to-ast. Never throws for any input: size and nesting limits are checked before the
// recursive-descent parser runs, so hostile input (a binary, 100k nested parentheses) gets a
// diagnostic instead of a stack overflow. parseExpression serves `-D name=value`.

import type { IToken, TokenType } from "chevrotain";
import type { Expr, Program } from "./ast.js";
import { diag, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import { makeSourceFile, type SourceFile, type Span } from "../source/source-file.js";
import { cstToExpr, cstToProgram } from "./cst-to-ast.js";
import { lex, type LexResult } from "./lexer.js";
import { recoveringParser, theParser, type DmacParser } from "./parser.js";
import { KEYWORDS, PUNCTUATION } from "./tokens.js";
import { formatSizeExact } from "../util/format-size.js";
import { syntaxDiagnostics } from "./syntax-errors.js";

export interface ParseOptions {
  /** Deepest allowed nesting of brackets, blocks, `else if` chains and unary operators. */
  readonly maxNesting?: number | undefined;
  /** Largest accepted source, in UTF-8 bytes. */
  readonly maxSourceBytes?: number | undefined;
}

export const DEFAULT_MAX_NESTING = 200;
/**
 * The most `maxNesting` may be raised to: chevrotain's recursive descent and the checker's
 * walkers use the JS stack, which overflows somewhere above 400 levels of blocks or calls. A
 * larger request is clamped here (the CLI rejects it with DMAC5004 first).
 */
export const MAX_NESTING_CEILING = 256;
export const DEFAULT_MAX_SOURCE_BYTES = 16 * 1024 * 1024;

export function parseSource(
  file: SourceFile,
  opts: ParseOptions = {},
): { program: Program; diagnostics: Diagnostic[] } {
  const empty: Program = { kind: "program", items: [], span: { start: 0, end: file.text.length } };
  const front = lexWithLimits(file, opts);
  if (front.kind === "stop")
    return { program: empty, diagnostics: sortDiagnostics(front.diagnostics) };

  const { cst, errors } = parseTokens(front.lexed.tokens, (p) => p.program());
  const diagnostics = [...front.lexed.diagnostics, ...syntaxDiagnostics(file, front.lexed, errors)];
  const converted = cstToProgram(file, cst, front.lexed.docComments);
  const chain = tooLongChain(file, converted.program, nestingLimit(opts));
  if (chain !== undefined) return { program: empty, diagnostics: [chain] };
  return {
    program: converted.program,
    diagnostics: sortDiagnostics([...diagnostics, ...converted.diagnostics]),
  };
}

/**
 * Builds the process-wide lexer and parser now, by parsing a tiny source (each is otherwise
 * built by the first parse: ~10 ms): for a thread with time to spare before its first source
 * comes (sim/session/helper-work.ts).
 */
export function prepareParsing(): void {
  parseSource(makeSourceFile("(prepare)", "schedule s() {}\n"));
}

/** Parses a whole file as one expression (e.g. the value of `-D chunk=1MiB`). */
export function parseExpression(file: SourceFile): {
  expr: Expr | undefined;
  diagnostics: Diagnostic[];
} {
  const front = lexWithLimits(file, {});
  if (front.kind === "stop")
    return { expr: undefined, diagnostics: sortDiagnostics(front.diagnostics) };
  const { cst, errors } = parseTokens(front.lexed.tokens, (p) => p.expressionOnly());
  const diagnostics = [...front.lexed.diagnostics, ...syntaxDiagnostics(file, front.lexed, errors)];
  const converted = cstToExpr(file, cst);
  const chain = tooLongChain(file, converted.expr, DEFAULT_MAX_NESTING);
  if (chain !== undefined) return { expr: undefined, diagnostics: [chain] };
  const all = sortDiagnostics([...diagnostics, ...converted.diagnostics]);
  // A partial expression is worse than none: callers evaluate it.
  return {
    expr: all.some((d) => d.severity === "error") ? undefined : converted.expr,
    diagnostics: all,
  };
}

/**
 * `rule` over `tokens` by theParser(), and once more by the recovering parser when that finds a
 * syntax error (which then reports every broken statement, not only the first).
 */
function parseTokens<T>(
  tokens: IToken[],
  rule: (p: DmacParser) => T,
): { cst: T; errors: DmacParser["errors"] } {
  let parser = theParser();
  parser.input = tokens;
  let cst = rule(parser);
  if (parser.errors.length > 0) {
    parser.input = [];
    parser = recoveringParser();
    parser.input = tokens;
    cst = rule(parser);
  }
  const errors = [...parser.errors];
  parser.input = []; // release the token vector (and the errors)
  return { cst, errors };
}

// ---- limits ------------------------------------------------------------------------------------

type Front =
  | { readonly kind: "ok"; readonly lexed: LexResult }
  | { readonly kind: "stop"; readonly diagnostics: Diagnostic[] };

function lexWithLimits(file: SourceFile, opts: ParseOptions): Front {
  const maxBytes = opts.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  // UTF-8 needs at most 3 bytes per UTF-16 code unit: skip the exact count when clearly small.
  if (file.text.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(file.text, "utf8");
    if (bytes > maxBytes) {
      const at = { file, span: { start: 0, end: 0 } };
      return {
        kind: "stop",
        diagnostics: [diag("DMAC1012", at, [formatSizeExact(bytes), formatSizeExact(maxBytes)])],
      };
    }
  }
  const lexed = lex(file);
  const limit = nestingLimit(opts);
  const tooDeep = findTooDeep(lexed.tokens, limit);
  if (tooDeep !== undefined) {
    const span = { start: tooDeep.startOffset, end: tooDeep.startOffset + tooDeep.image.length };
    return {
      kind: "stop",
      diagnostics: [...lexed.diagnostics, diag("DMAC1013", { file, span }, [limit])],
    };
  }
  return { kind: "ok", lexed };
}

function nestingLimit(opts: ParseOptions): number {
  return Math.min(opts.maxNesting ?? DEFAULT_MAX_NESTING, MAX_NESTING_CEILING);
}

const OPENERS: ReadonlySet<TokenType> = new Set([
  PUNCTUATION["("],
  PUNCTUATION["["],
  PUNCTUATION["{"],
]);
const CLOSERS: ReadonlySet<TokenType> = new Set([
  PUNCTUATION[")"],
  PUNCTUATION["]"],
  PUNCTUATION["}"],
]);
const UNARY: ReadonlySet<TokenType> = new Set([PUNCTUATION["-"], PUNCTUATION["!"]]);
const BINARY: ReadonlySet<TokenType> = new Set(
  (["+", "-", "*", "/", "%", "&&", "||", "==", "!=", "<", "<=", ">", ">="] as const).map(
    (p) => PUNCTUATION[p],
  ),
);
/** Tokens that end an expression: the operator count of a chain starts again after them. */
const EXPR_END: ReadonlySet<TokenType> = new Set([
  ...Object.values(KEYWORDS).filter(
    (k) =>
      k !== KEYWORDS.ranks &&
      k !== KEYWORDS.true &&
      k !== KEYWORDS.false &&
      k !== KEYWORDS.min &&
      k !== KEYWORDS.max,
  ),
  ...(["{", "}", ";", ",", "->", "<->", "..", "+:", ":", "="] as const).map((p) => PUNCTUATION[p]),
]);

/**
 * The first token at which the parser would recurse deeper than `limit` levels, or undefined.
 * Recursion in the grammar comes from brackets, `else if` chains (an if inside an else) and
 * prefix operators, so the depth is: open brackets + `else if`s in the current chains + the
 * current run of `-`/`!`. One linear pass over the tokens, no recursion.
 */
function findTooDeep(tokens: readonly IToken[], limit: number): IToken | undefined {
  const chains: number[] = [0]; // `else if` count of the chain at each bracket level
  let inChains = 0;
  let unaryRun = 0;
  let chainOps = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const type = t.tokenType;
    const next = tokens[i + 1]?.tokenType;
    if (OPENERS.has(type)) {
      chains.push(0);
    } else if (CLOSERS.has(type)) {
      if (chains.length > 1) inChains -= chains.pop()!;
      if (next !== KEYWORDS.else) {
        inChains -= chains[chains.length - 1]!;
        chains[chains.length - 1] = 0;
      }
    } else if (type === KEYWORDS.else && next === KEYWORDS.if) {
      chains[chains.length - 1]! += 1;
      inChains++;
    }
    unaryRun = UNARY.has(type) ? unaryRun + 1 : 0;
    // A chain `a + b + ...` becomes one tree level per operator. Counting the operators of the
    // current expression here (an overestimate across brackets) stops a long chain before the
    // parser: chevrotain's error recovery recurses over it and overflowed the stack on a
    // chain inside deep blocks (found by the fuzzer). tooLongChain checks the exact tree depth.
    if (BINARY.has(type)) chainOps++;
    else if (EXPR_END.has(type)) chainOps = 0;
    if (chains.length - 1 + inChains + unaryRun + chainOps > limit) return t;
  }
  return undefined;
}

const OPERATOR_KINDS: ReadonlySet<unknown> = new Set(["unary", "binary", "call"]);

/**
 * DMAC1013 for an expression whose operator tree is deeper than `limit`, or undefined. The
 * token scan above cannot see this: `1+1+...+1` has no brackets, yet the parser's loop builds a
 * left-deep tree one `binary` node per operator, and every later walker (checker, constant
 * folder, instantiation) recurses on it. Counting operator nodes on the deepest path bounds
 * those walkers' stacks. The walk is iterative and generic over the AST's plain objects, so a
 * new node kind cannot slip past it.
 */
function tooLongChain(file: SourceFile, root: unknown, limit: number): Diagnostic | undefined {
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const child of node) stack.push({ node: child, depth });
      continue;
    }
    const record = node as Record<string, unknown>;
    const d = OPERATOR_KINDS.has(record["kind"]) ? depth + 1 : depth;
    if (d > limit) {
      const span = (record["span"] as Span | undefined) ?? { start: 0, end: 0 };
      return diag("DMAC1013", { file, span }, [limit], {
        hint: "every operator of a chain such as `a + b + c + ...` nests one level; split long chains with `let`",
      });
    }
    for (const key in record) {
      if (key !== "span") stack.push({ node: record[key], depth: d });
    }
  }
  return undefined;
}
