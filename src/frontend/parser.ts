// The .dmac grammar as a chevrotain CstParser: grammar ONLY, no actions (cst-to-ast.ts builds the
// AST). grammar/dmac.ebnf is the same grammar in EBNF; keep the two in step (rule names match).
// One parser instance serves the process (chevrotain's self-analysis is costly); assigning
// `input` resets it. Error recovery is on, so one run reports several syntax errors; the error
// message provider returns only the "expected ..." half, parse.ts adds what was found.

import type {
  ILookaheadStrategy,
  IParserErrorMessageProvider,
  IToken,
  TokenType,
} from "chevrotain";
import { CstParser, EOF, LLkLookaheadStrategy } from "./chevrotain.js";
import {
  ALL_TOKENS,
  BadHexLiteral,
  BadSizeLiteral,
  KEYWORDS as K,
  SpacedBadSizeLiteral,
  T,
} from "./tokens.js";

/** "'a', 'b' or 'c'" from token labels, deduplicated, in first-seen order. */
export function describeExpected(types: readonly TokenType[]): string {
  const labels = [...new Set(types.map(tokenLabel))];
  if (labels.length <= 1) return labels[0] ?? "something else";
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`;
}

export function tokenLabel(t: TokenType): string {
  if (t === EOF) return "end of file";
  return t.LABEL ?? t.name;
}

/** What a rule expects when it is left with input it cannot use. */
const PROGRAM_ITEMS = "'target', 'const' or 'schedule'";
const NOT_ALL_INPUT: Readonly<Record<string, string>> = {
  program: PROGRAM_ITEMS,
  expressionOnly: "end of expression",
};

const errorMessageProvider: IParserErrorMessageProvider = {
  // In-repetition recovery reports "expected <the token after the loop>"; say what the loop wanted.
  buildMismatchTokenMessage: ({ expected, ruleName }) =>
    ruleName === "program" && expected === EOF
      ? PROGRAM_ITEMS
      : ruleName === "block" && expected === T["}"]
        ? "a statement or '}'"
        : tokenLabel(expected),
  buildNotAllInputParsedMessage: ({ ruleName }) => NOT_ALL_INPUT[ruleName] ?? "end of file",
  buildNoViableAltMessage: ({ expectedPathsPerAlt, customUserDescription }) =>
    customUserDescription ??
    describeExpected(expectedPathsPerAlt.flatMap((alt) => alt.map((path) => path[0] ?? EOF))),
  buildEarlyExitMessage: ({ expectedIterationPaths, customUserDescription }) =>
    customUserDescription ?? describeExpected(expectedIterationPaths.map((p) => p[0] ?? EOF)),
};

/** What may follow a bare `ranks` loop range; anything else means `ranks` starts an A..B range. */
const RANKS_FOLLOW: ReadonlySet<TokenType> = new Set([T[","], K.where, T["{"], EOF]);

/** The grammar's lookahead: the parser's setting and its lookahead strategy's must agree. */
const MAX_LOOKAHEAD = 3;

/**
 * chevrotain's LL(k) lookahead, each function built on its first use instead of for every
 * alternation and repetition of the grammar when the parser is made: a source uses few of them,
 * and building them all was a third of the parser's construction, which every `dmac` run that
 * reads a source pays (docs/performance.md). The functions are the same ones, built from the same
 * grammar; chevrotain calls them with the parser as `this`.
 */
function lazyLookahead(maxLookahead: number): ILookaheadStrategy {
  const llk = new LLkLookaheadStrategy({ maxLookahead });
  type Lookahead = (this: unknown, ...args: never[]) => unknown;
  const lazy = <F extends Lookahead>(build: () => F): F => {
    let built: F | undefined;
    return function (this: unknown, ...args: Parameters<F>) {
      return (built ??= build()).apply(this, args);
    } as F;
  };
  return {
    validate: (o) => llk.validate(o),
    buildLookaheadForAlternation: (o) => lazy(() => llk.buildLookaheadForAlternation(o)),
    buildLookaheadForOptional: (o) => lazy(() => llk.buildLookaheadForOptional(o)),
  };
}

class DmacParser extends CstParser {
  /** `validate`: run chevrotain's grammar validations (ambiguities, left recursion, ...). They
   * only find mistakes in this file's grammar, never in user input, and cost ~20 ms of every
   * `dmac` start; the process-wide parser skips them and a test (test/unit/perf/startup.test.ts)
   * builds a validating one, so a broken grammar still fails CI. */
  constructor(validate = false, recover = true) {
    super(ALL_TOKENS as TokenType[], {
      recoveryEnabled: recover,
      maxLookahead: MAX_LOOKAHEAD,
      lookaheadStrategy: lazyLookahead(MAX_LOOKAHEAD),
      errorMessageProvider,
      skipValidations: !validate,
    });
    this.performSelfAnalysis();
  }

  // Single-token repair (deleting or inventing one token) makes `copy -> b@0` parse as
  // `copy b@0 ...`, or `on sdma 2` as `on sdma(2 ...`, and then reports a second, confusing error
  // further on. Re-syncing at the enclosing statement reports each broken statement once.
  protected override canTokenTypeBeDeletedInRecovery(): boolean {
    return false;
  }

  protected override canTokenTypeBeInsertedInRecovery(): boolean {
    return false;
  }

  // ---- items ----------------------------------------------------------------------------------

  readonly program = this.RULE("program", () => {
    this.MANY(() => {
      this.OR({
        DEF: [
          { ALT: () => this.SUBRULE(this.targetDecl) },
          { ALT: () => this.SUBRULE(this.constItem) },
          { ALT: () => this.SUBRULE(this.scheduleDecl) },
          { ALT: () => this.CONSUME(T[";"]) },
        ],
        ERR_MSG: PROGRAM_ITEMS,
      });
    });
  });

  readonly targetDecl = this.RULE("targetDecl", () => {
    this.CONSUME(K.target);
    this.OR([
      { ALT: () => this.CONSUME(T.Identifier) },
      { ALT: () => this.CONSUME(T.StringLiteral) },
    ]);
  });

  readonly constItem = this.RULE("constItem", () => {
    this.CONSUME(K.const);
    this.SUBRULE(this.binding);
  });

  readonly scheduleDecl = this.RULE("scheduleDecl", () => {
    this.CONSUME(K.schedule);
    this.CONSUME(T.Identifier);
    this.CONSUME(T["("]);
    this.OPTION(() => {
      this.SUBRULE(this.param);
      this.MANY(() => {
        this.CONSUME(T[","]);
        this.SUBRULE2(this.param);
      });
    });
    this.CONSUME(T[")"]);
    this.OPTION2(() => this.SUBRULE(this.implementsClause));
    this.SUBRULE(this.block);
  });

  readonly param = this.RULE("param", () => {
    this.CONSUME(T.Identifier);
    this.CONSUME(T[":"]);
    this.SUBRULE(this.typeName);
    this.OPTION(() => {
      this.CONSUME(T["="]);
      this.SUBRULE(this.expression);
    });
  });

  readonly typeName = this.RULE("typeName", () => {
    this.OR([
      { ALT: () => this.CONSUME(K.int) },
      { ALT: () => this.CONSUME(K.bytes) },
      { ALT: () => this.CONSUME(K.bool) },
    ]);
  });

  readonly implementsClause = this.RULE("implementsClause", () => {
    this.CONSUME(K.implements);
    this.CONSUME(T.Identifier);
    this.CONSUME(T["("]);
    this.OPTION(() => {
      this.SUBRULE(this.expression);
      this.MANY(() => {
        this.CONSUME(T[","]);
        this.SUBRULE2(this.expression);
      });
    });
    this.CONSUME(T[")"]);
  });

  // ---- statements -----------------------------------------------------------------------------

  readonly block = this.RULE("block", () => {
    this.CONSUME(T["{"]);
    this.MANY(() => {
      this.OR([{ ALT: () => this.SUBRULE(this.statement) }, { ALT: () => this.CONSUME(T[";"]) }]);
    });
    this.CONSUME(T["}"]);
  });

  readonly statement = this.RULE("statement", () => {
    this.OR({
      DEF: [
        { ALT: () => this.SUBRULE(this.letStmt) },
        { ALT: () => this.SUBRULE(this.bufferStmt) },
        { ALT: () => this.SUBRULE(this.signalStmt) },
        { ALT: () => this.SUBRULE(this.ifStmt) },
        { ALT: () => this.SUBRULE(this.forStmt) },
        { ALT: () => this.SUBRULE(this.copyStmt) },
        { ALT: () => this.SUBRULE(this.swapStmt) },
        { ALT: () => this.SUBRULE(this.fillStmt) },
        { ALT: () => this.SUBRULE(this.whenStmt) },
        { ALT: () => this.SUBRULE(this.notifyStmt) },
        { ALT: () => this.SUBRULE(this.ensureStmt) },
      ],
      ERR_MSG: "a statement",
    });
  });

  readonly letStmt = this.RULE("letStmt", () => {
    this.OR([{ ALT: () => this.CONSUME(K.const) }, { ALT: () => this.CONSUME(K.let) }]);
    this.SUBRULE(this.binding);
  });

  /** The part of `const`/`let` after the keyword. */
  readonly binding = this.RULE("binding", () => {
    this.CONSUME(T.Identifier);
    this.OPTION(() => {
      this.CONSUME(T[":"]);
      this.SUBRULE(this.typeName);
    });
    this.CONSUME(T["="]);
    this.SUBRULE(this.expression);
  });

  readonly bufferStmt = this.RULE("bufferStmt", () => {
    this.CONSUME(K.buffer);
    this.CONSUME(T.Identifier);
    this.CONSUME(T[":"]);
    this.SUBRULE(this.expression);
    this.OPTION(() => {
      this.CONSUME(K.on);
      this.SUBRULE2(this.expression);
    });
  });

  readonly signalStmt = this.RULE("signalStmt", () => {
    this.CONSUME(K.signal);
    this.CONSUME(T.Identifier);
    this.OPTION(() => {
      this.CONSUME(K.on);
      this.SUBRULE(this.expression);
    });
    this.OPTION2(() => this.CONSUME(K.thermometer));
  });

  readonly ifStmt = this.RULE("ifStmt", () => {
    this.CONSUME(K.if);
    this.SUBRULE(this.expression);
    this.SUBRULE(this.block);
    this.OPTION(() => {
      this.CONSUME(K.else);
      this.OR({
        DEF: [{ ALT: () => this.SUBRULE(this.ifStmt) }, { ALT: () => this.SUBRULE2(this.block) }],
        ERR_MSG: "'if' or '{'",
      });
    });
  });

  readonly forStmt = this.RULE("forStmt", () => {
    this.CONSUME(K.for);
    this.SUBRULE(this.loopVar);
    this.MANY(() => {
      this.CONSUME(T[","]);
      this.SUBRULE2(this.loopVar);
    });
    this.OPTION(() => {
      this.CONSUME(K.where);
      this.SUBRULE(this.expression);
    });
    this.SUBRULE(this.block);
  });

  readonly loopVar = this.RULE("loopVar", () => {
    this.CONSUME(T.Identifier);
    this.CONSUME(K.in);
    this.SUBRULE(this.loopRange);
  });

  /** `ranks` alone, or `A..B [step S]` (where A may itself start with `ranks`). */
  readonly loopRange = this.RULE("loopRange", () => {
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          GATE: () => RANKS_FOLLOW.has(this.LA(2).tokenType),
          ALT: () => this.CONSUME(K.ranks),
        },
        {
          ALT: () => {
            this.SUBRULE(this.expression);
            this.CONSUME(T[".."]);
            this.SUBRULE2(this.expression);
            this.OPTION(() => {
              this.CONSUME(K.step);
              this.SUBRULE3(this.expression);
            });
          },
        },
      ],
      ERR_MSG: "'ranks' or a range 'A..B'",
    });
  });

  readonly copyStmt = this.RULE("copyStmt", () => {
    this.CONSUME(K.copy);
    this.SUBRULE(this.region);
    this.CONSUME(T["->"]);
    this.SUBRULE2(this.region);
    this.MANY(() => {
      this.CONSUME(T[","]);
      this.SUBRULE3(this.region);
    });
    this.MANY2(() => this.SUBRULE(this.placement));
  });

  readonly swapStmt = this.RULE("swapStmt", () => {
    this.CONSUME(K.swap);
    this.SUBRULE(this.region);
    this.CONSUME(T["<->"]);
    this.SUBRULE2(this.region);
    this.MANY(() => this.SUBRULE(this.placement));
  });

  readonly fillStmt = this.RULE("fillStmt", () => {
    this.CONSUME(K.fill);
    this.SUBRULE(this.region);
    this.CONSUME(K.with);
    this.SUBRULE(this.expression);
    this.MANY(() => this.SUBRULE(this.placement));
  });

  readonly placement = this.RULE("placement", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(K.on);
          this.CONSUME(K.sdma);
          this.CONSUME(T["("]);
          this.SUBRULE(this.expression);
          this.CONSUME(T[")"]);
        },
      },
      {
        ALT: () => {
          this.CONSUME(K.by);
          this.SUBRULE2(this.expression);
        },
      },
    ]);
  });

  readonly whenStmt = this.RULE("whenStmt", () => {
    this.CONSUME(K.when);
    this.SUBRULE(this.flagRef);
    // `=` for `==`: an error production (see `expression`).
    this.OR([{ ALT: () => this.CONSUME(T.CompareOp) }, { ALT: () => this.CONSUME(T["="]) }]);
    this.SUBRULE(this.expression);
    this.SUBRULE(this.block);
  });

  readonly notifyStmt = this.RULE("notifyStmt", () => {
    this.CONSUME(K.notify);
    this.SUBRULE(this.flagRef);
  });

  readonly ensureStmt = this.RULE("ensureStmt", () => {
    this.CONSUME(K.ensure);
    this.SUBRULE(this.region);
    // `=` for `==`: an error production (see `expression`).
    this.OR2([{ ALT: () => this.CONSUME(T["=="]) }, { ALT: () => this.CONSUME(T["="]) }]);
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        // `name@...` is a region; any other expression is a byte value.
        {
          GATE: () => this.LA(1).tokenType === T.Identifier && this.LA(2).tokenType === T["@"],
          ALT: () => this.SUBRULE2(this.region),
        },
        { ALT: () => this.SUBRULE(this.expression) },
      ],
      ERR_MSG: "a region or a value",
    });
  });

  readonly flagRef = this.RULE("flagRef", () => {
    this.CONSUME(T.Identifier, { ERR_MSG: "a signal such as 'flag@0'" });
    this.CONSUME(T["@"]);
    this.SUBRULE(this.primary);
  });

  readonly region = this.RULE("region", () => {
    this.CONSUME(T.Identifier, { ERR_MSG: "a region such as 'buf@0'" });
    this.CONSUME(T["@"]);
    this.SUBRULE(this.primary);
    this.OPTION(() => {
      this.CONSUME(T["["]);
      this.SUBRULE(this.expression);
      this.OR([{ ALT: () => this.CONSUME(T[".."]) }, { ALT: () => this.CONSUME(T["+:"]) }]);
      this.SUBRULE2(this.expression);
      this.CONSUME(T["]"]);
    });
  });

  // ---- expressions (lowest precedence first) ---------------------------------------------------

  readonly expressionOnly = this.RULE("expressionOnly", () => {
    this.SUBRULE(this.expression);
  });

  /**
   * Binary expressions are parsed flat, `operand (op operand)*`, and cst-to-ast applies the
   * precedence table (BINARY_PRECEDENCE). One rule instead of one per precedence level makes
   * parsing about three times faster (every literal used to pass through seven rules); the
   * layered grammar in dmac.ebnf describes the same language.
   *
   * `=` between two operands is an error production: no valid program has `=` after an
   * expression, so accepting it here changes nothing for valid input, and `where p = r` or
   * `if x = 1` parse as the comparison that was meant. cst-to-ast reports it (DMAC1010 with the
   * fix `==`). Without it, recovery from the missing `{` skipped the loop's body and closed the
   * schedule at the loop's `}`, so one typo made several errors.
   */
  readonly expression = this.RULE("expression", () => {
    this.SUBRULE(this.unaryExpr);
    this.MANY(() => {
      this.OR([{ ALT: () => this.CONSUME(T.BinaryOp) }, { ALT: () => this.CONSUME(T["="]) }]);
      this.SUBRULE2(this.unaryExpr);
    });
  });

  readonly unaryExpr = this.RULE("unaryExpr", () => {
    this.OR({
      DEF: [
        {
          ALT: () => {
            this.OR2([{ ALT: () => this.CONSUME(T["-"]) }, { ALT: () => this.CONSUME(T["!"]) }]);
            this.SUBRULE(this.unaryExpr);
          },
        },
        { ALT: () => this.SUBRULE(this.primary) },
      ],
      ERR_MSG: "an expression",
    });
  });

  readonly primary = this.RULE("primary", () => {
    this.OR({
      DEF: [
        { ALT: () => this.CONSUME(T.IntLiteral) },
        { ALT: () => this.CONSUME(T.HexLiteral) },
        { ALT: () => this.CONSUME(T.SizeLiteral) },
        // A size with a unit we reject (`4KB`): the lexer already reported DMAC1003. Accepting it
        // here keeps one bad unit from also producing a syntax error at the next token.
        { ALT: () => this.CONSUME(BadSizeLiteral) },
        { ALT: () => this.CONSUME(SpacedBadSizeLiteral) },
        // Likewise a malformed hex number (`0xG`, `0x10KiB`): DMAC1005 from the lexer.
        { ALT: () => this.CONSUME(BadHexLiteral) },
        { ALT: () => this.CONSUME(K.true) },
        { ALT: () => this.CONSUME(K.false) },
        { ALT: () => this.CONSUME(K.ranks) },
        { ALT: () => this.CONSUME(K.host) },
        { ALT: () => this.SUBRULE(this.call) },
        { ALT: () => this.CONSUME(T.Identifier) },
        {
          ALT: () => {
            this.CONSUME(T["("]);
            this.SUBRULE(this.expression);
            this.CONSUME(T[")"]);
          },
        },
      ],
      ERR_MSG: "an expression",
    });
  });

  readonly call = this.RULE("call", () => {
    this.OR([{ ALT: () => this.CONSUME(K.min) }, { ALT: () => this.CONSUME(K.max) }]);
    this.CONSUME(T["("]);
    this.SUBRULE(this.expression);
    this.MANY(() => {
      this.CONSUME(T[","]);
      this.SUBRULE2(this.expression);
    });
    this.CONSUME(T[")"]);
  });
}

let instance: DmacParser | undefined;
let recovering: DmacParser | undefined;

/** The process-wide parser, built on first use (the grammar's self-analysis is ~10 ms of start-up,
 * which commands that read no source need not pay). Not re-entrant: parse one input at a time
 * (parsing is synchronous). It stops at the first syntax error: chevrotain computes the re-sync
 * sets that recovery needs (~6 ms of the self-analysis) only for a recovering parser, and a
 * source without syntax errors parses the same by both. */
export function theParser(): DmacParser {
  return (instance ??= new DmacParser(false, false));
}

/** The parser that recovers from a syntax error and goes on, to report every broken statement
 * (parse.ts re-parses with it a source in which theParser() found an error), built on first use. */
export function recoveringParser(): DmacParser {
  return (recovering ??= new DmacParser(false, true));
}

/** A parser built with every grammar validation on; throws if the grammar is broken (tests). */
export function validatingParser(): InstanceType<typeof CstParser> {
  return new DmacParser(true);
}

export type { DmacParser };
export type { IToken };
