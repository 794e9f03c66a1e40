// Lexical scopes of the checker. A scope maps names to symbols; a name is visible from its
// declaration to the end of the enclosing block. Declaring reports DMAC2002 (same scope) and
// DMAC2018 (hides an outer declaration); closing a scope reports DMAC2008 for every symbol that
// nothing referred to (names starting with `_` are unused on purpose).

import type { SignalEncoding, TypeName } from "../frontend/ast.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Value } from "./checked.js";

export type SymbolKind = "parameter" | "const" | "let" | "buffer" | "signal" | "loop-var";

/** How each kind of symbol is named in messages ("parameter 'x' is never used"). */
export const SYMBOL_LABEL: Readonly<Record<SymbolKind, string>> = {
  parameter: "parameter",
  const: "constant",
  let: "binding",
  buffer: "buffer",
  signal: "signal",
  "loop-var": "loop variable",
};

export interface Sym {
  readonly kind: SymbolKind;
  readonly name: string;
  /** The span of the declaring identifier. */
  readonly span: Span;
  /** The value type; undefined for buffers, signals and names whose declaration had an error. */
  readonly type: TypeName | undefined;
  /** The folded value of constants (and of parameters while their defaults are checked). */
  value: Value | undefined;
  used: boolean;
  /** Signals: what outside code stores to raise the flag (hover, the checks of when/notify). */
  readonly encoding?: SignalEncoding | undefined;
}

export interface Scope {
  readonly parent: Scope | undefined;
  readonly symbols: Map<string, Sym>;
}

export function newScope(parent: Scope | undefined): Scope {
  return { parent, symbols: new Map() };
}

export function lookup(scope: Scope | undefined, name: string): Sym | undefined {
  for (let s = scope; s; s = s.parent) {
    const sym = s.symbols.get(name);
    if (sym) return sym;
  }
  return undefined;
}

/** Every name visible from `scope`, innermost first (for did-you-mean hints). */
export function visibleNames(
  scope: Scope | undefined,
  filter: (s: Sym) => boolean = () => true,
): string[] {
  const names: string[] = [];
  for (let s = scope; s; s = s.parent) {
    for (const sym of s.symbols.values())
      if (filter(sym) && !names.includes(sym.name)) names.push(sym.name);
  }
  return names;
}

/** Adds `sym` to `scope`; a duplicate is reported and not added (the first declaration wins). */
export function declare(file: SourceFile, scope: Scope, sym: Sym, out: Diagnostic[]): void {
  const existing = scope.symbols.get(sym.name);
  if (existing) {
    out.push(
      diag("DMAC2002", { file, span: sym.span }, [sym.name], {
        related: [{ message: `'${sym.name}' is first declared here`, file, span: existing.span }],
      }),
    );
    // The duplicate counts as a use of the first so the error is not followed by a warning.
    existing.used = true;
    return;
  }
  const outer = lookup(scope.parent, sym.name);
  if (outer) {
    out.push(
      diag("DMAC2018", { file, span: sym.span }, [sym.name], {
        related: [
          {
            message: `the shadowed ${SYMBOL_LABEL[outer.kind]} is declared here`,
            file,
            span: outer.span,
          },
        ],
        hint: `rename one of them if they are meant to be different things`,
      }),
    );
  }
  scope.symbols.set(sym.name, sym);
}

/** Reports DMAC2008 for the unused symbols of a scope that is ending. */
export function closeScope(file: SourceFile, scope: Scope, out: Diagnostic[]): void {
  for (const sym of scope.symbols.values()) {
    if (sym.used || sym.name.startsWith("_")) continue;
    out.push(
      diag("DMAC2008", { file, span: sym.span }, [SYMBOL_LABEL[sym.kind], sym.name], {
        hint: `prefix it with an underscore ('_${sym.name}') if it is unused on purpose`,
      }),
    );
  }
}
