// The abstract syntax tree of a .dmac file: readonly discriminated unions keyed by `kind`.
// Every node carries a half-open span into its SourceFile. The checker never mutates the tree;
// it builds side tables (types, resolved symbols) keyed by node identity.

import type { CompareOp } from "../target/poll.js";
import type { Span } from "../source/source-file.js";

export interface Ident {
  readonly name: string;
  readonly span: Span;
}

export interface Program {
  readonly kind: "program";
  readonly items: readonly Item[];
  readonly span: Span;
}

export type Item = TargetDecl | ScheduleDecl | ConstItem;

/** `target mi300x` (built-in model) or `target "my-node.json"` (description file). */
export interface TargetDecl {
  readonly kind: "target";
  readonly name: Ident | undefined;
  readonly path: { readonly value: string; readonly span: Span } | undefined;
  readonly span: Span;
}

/** A file-level `const` (visible in every schedule of the file). */
export interface ConstItem {
  readonly kind: "const-item";
  readonly decl: LetStmt;
  readonly span: Span;
}

export type TypeName = "int" | "bytes" | "bool";

export interface Param {
  readonly name: Ident;
  readonly type: TypeName;
  readonly typeSpan: Span;
  readonly default: Expr | undefined;
  readonly span: Span;
}

export interface ScheduleDecl {
  readonly kind: "schedule";
  /** Text of the `///` doc comment lines directly above, without the slashes; "" if none. */
  readonly doc: string;
  readonly name: Ident;
  readonly params: readonly Param[];
  readonly implements: Implements | undefined;
  readonly body: Block;
  readonly span: Span;
}

/** `implements all_gather_inplace(buf)`: arguments are names of buffers or int expressions. */
export interface Implements {
  readonly collective: Ident;
  readonly args: readonly Expr[];
  readonly span: Span;
}

export interface Block {
  readonly kind: "block";
  readonly stmts: readonly Stmt[];
  readonly span: Span;
}

export type Stmt =
  | LetStmt
  | BufferStmt
  | SignalStmt
  | IfStmt
  | ForStmt
  | CopyStmt
  | SwapStmt
  | FillStmt
  | WhenStmt
  | NotifyStmt
  | EnsureStmt;

/** `const NAME [: TYPE] = EXPR` or `let NAME [: TYPE] = EXPR`. Both are immutable bindings. */
export interface LetStmt {
  readonly kind: "let";
  readonly keyword: "const" | "let";
  readonly name: Ident;
  readonly type: TypeName | undefined;
  readonly value: Expr;
  readonly span: Span;
}

/** `buffer NAME: SIZE [on RANK]`. */
export interface BufferStmt {
  readonly kind: "buffer";
  readonly name: Ident;
  readonly size: Expr;
  readonly rank: Expr | undefined;
  readonly span: Span;
}

/**
 * How outside code writes a flag's 32-bit word to raise it to k (the contract it keeps):
 * - count: stores k (raises it by one per event, as `notify` does); the default;
 * - thermometer: stores 2^k - 1, bits 0..k-1 set (k <= 32); `when F >= V` tests bit V-1.
 */
export type SignalEncoding = "count" | "thermometer";

/** `signal NAME [on RANK] [thermometer]`: a 32-bit flag word that outside code sets or reads. */
export interface SignalStmt {
  readonly kind: "signal";
  readonly name: Ident;
  readonly rank: Expr | undefined;
  readonly encoding: SignalEncoding;
  readonly span: Span;
}

export interface IfStmt {
  readonly kind: "if";
  readonly cond: Expr;
  readonly then: Block;
  /** `else { }` or `else if ...` (an IfStmt wrapped as the only statement of a synthetic block). */
  readonly else: Block | IfStmt | undefined;
  readonly span: Span;
}

/** One variable of a `for`: `x in A..B [step S]` or `x in ranks`. */
export interface LoopVar {
  readonly name: Ident;
  readonly range: LoopRange;
  readonly span: Span;
}

export type LoopRange =
  | { readonly kind: "ranks"; readonly span: Span }
  /** `x in EXPR` with a bare expression other than `ranks` (e.g. `for i in n`): parsed so that
   * the checker can reject it with DMAC2015 and a hint (`0..n`); never reaches instantiation. */
  | { readonly kind: "expr"; readonly expr: Expr; readonly span: Span }
  | {
      readonly kind: "range";
      readonly from: Expr;
      readonly to: Expr;
      readonly step: Expr | undefined;
      readonly span: Span;
    };

/** `for a in ..., b in ... [where COND] { }`: nested loops, outermost first, filtered by COND. */
export interface ForStmt {
  readonly kind: "for";
  readonly vars: readonly LoopVar[];
  readonly where: Expr | undefined;
  readonly body: Block;
  readonly span: Span;
}

export type Placement =
  | { readonly kind: "engine"; readonly engine: Expr; readonly span: Span } // on sdma(E)
  | { readonly kind: "driver"; readonly rank: Expr; readonly span: Span }; // by RANK

/** `copy SRC -> DST` or `copy SRC -> DST1, DST2` (broadcast). */
export interface CopyStmt {
  readonly kind: "copy";
  readonly src: Region;
  readonly dsts: readonly Region[];
  readonly placement: readonly Placement[];
  readonly span: Span;
}

export interface SwapStmt {
  readonly kind: "swap";
  readonly a: Region;
  readonly b: Region;
  readonly placement: readonly Placement[];
  readonly span: Span;
}

/** `fill DST with V`: every byte of DST becomes the byte V. */
export interface FillStmt {
  readonly kind: "fill";
  readonly dst: Region;
  readonly value: Expr;
  readonly placement: readonly Placement[];
  readonly span: Span;
}

export type { CompareOp };

/** `when FLAG@r OP V { ... }`. */
export interface WhenStmt {
  readonly kind: "when";
  readonly flag: FlagRef;
  readonly op: CompareOp;
  readonly value: Expr;
  readonly body: Block;
  readonly span: Span;
}

/** `notify FLAG@r`: raise the flag by one after every earlier write to rank r completes. */
export interface NotifyStmt {
  readonly kind: "notify";
  readonly flag: FlagRef;
  readonly span: Span;
}

/** `ensure DST == SRC` (final DST holds the initial SRC) or `ensure DST == V` (every byte is V). */
export interface EnsureStmt {
  readonly kind: "ensure";
  readonly dst: Region;
  readonly expected: Region | Expr;
  readonly span: Span;
}

export interface FlagRef {
  readonly signal: Ident;
  readonly rank: Expr;
  readonly span: Span;
}

/** `buf@r`, `buf@r[lo .. hi]` (half-open) or `buf@r[lo +: len]`. */
export interface Region {
  readonly kind: "region";
  readonly buffer: Ident;
  readonly rank: Expr;
  readonly slice:
    | { readonly kind: "range"; readonly lo: Expr; readonly hi: Expr; readonly span: Span }
    | { readonly kind: "len"; readonly lo: Expr; readonly len: Expr; readonly span: Span }
    | undefined;
  readonly span: Span;
}

export type BinaryOp =
  "+" | "-" | "*" | "/" | "%" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||";

export type Expr =
  | { readonly kind: "int"; readonly value: number; readonly span: Span }
  /** A size literal such as `8KiB`; value is in bytes. */
  | { readonly kind: "size"; readonly value: number; readonly text: string; readonly span: Span }
  | { readonly kind: "bool"; readonly value: boolean; readonly span: Span }
  | { readonly kind: "name"; readonly name: string; readonly span: Span }
  /** The target's GPU count. */
  | { readonly kind: "ranks"; readonly span: Span }
  /** `host`: the pinned host memory, valid only as a place (`buffer b: N on host`, `b@host`). */
  | { readonly kind: "host"; readonly span: Span }
  | {
      readonly kind: "unary";
      readonly op: "-" | "!";
      readonly operand: Expr;
      readonly span: Span;
    }
  | {
      readonly kind: "binary";
      readonly op: BinaryOp;
      readonly left: Expr;
      readonly right: Expr;
      readonly span: Span;
    }
  /** `min(a, b, ...)`, `max(a, b, ...)`. */
  | {
      readonly kind: "call";
      readonly callee: Ident;
      readonly args: readonly Expr[];
      readonly span: Span;
    };
