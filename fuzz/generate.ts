// The grammar-aware generator: random .dmac programs that use every construct of the language
// (grammar/dmac.ebnf): file-level consts, doc comments, parameters of every type, `implements`,
// buffers and signals (with and without `on`), let/const, if/else if/else, multi-variable `for`
// with `where` and `step`, copy (and broadcast), swap, fill, `when`, `notify`, `ensure`,
// placement hints, every operator and min/max. Sizes stay small (KiB buffers, loops over ranks)
// so a case instantiates in milliseconds. Most programs are well typed and many compile; with
// probability `errorRate` one deliberate mistake (wrong type, unknown name, bad unit, bad
// region...) is injected so that the error paths are exercised too.

import type { Rng } from "./rng.js";

export interface GenerateOptions {
  /** Probability of injecting one deliberate error (default 0.15). */
  readonly errorRate?: number;
}

interface Scope {
  readonly ints: string[]; // int-valued names (loop variables, lets, int params)
  readonly ranks: string[]; // names known to hold a rank (loop variables over ranks)
}

const COLLECTIVE_BODIES: readonly ((c: string) => string)[] = [
  (c) => `implements all_gather_inplace(buf) {
  buffer buf: ${c} * ranks
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * ${c} +: ${c}] -> buf@p[r * ${c} +: ${c}]
  }
}`,
  (c) => `implements all_to_all_inplace(buf) {
  buffer buf: ${c} * ranks
  for r in ranks, p in ranks where r < p {
    swap buf@r[p * ${c} +: ${c}] <-> buf@p[r * ${c} +: ${c}]
  }
}`,
  (c) => `implements broadcast(buf, 0) {
  buffer buf: ${c}
  for p in 1..ranks {
    copy buf@0 -> buf@p
  }
}`,
];

export function generateProgram(rng: Rng, opts: GenerateOptions = {}): string {
  const g = new Gen(rng);
  const text = g.program();
  return rng.chance(opts.errorRate ?? 0.15) ? injectError(rng, text) : text;
}

class Gen {
  private readonly out: string[] = [];
  private fresh = 0;
  private readonly buffers: { name: string; onRank: number | undefined }[] = [];
  private readonly signals: { name: string; onRank: number | undefined; thermometer: boolean }[] =
    [];
  private chunkName = "chunk";
  private chunkBytes = 4096;

  constructor(private readonly rng: Rng) {}

  program(): string {
    const r = this.rng;
    // A target file path (resolved against a directory the fuzzer does not give) only rarely.
    if (r.chance(0.9)) this.out.push(r.chance(0.97) ? "target mi300x\n" : 'target "mi300x.json"\n');
    if (r.chance(0.3)) this.out.push(`const K = ${r.range(1, 4)}\n`);
    if (r.chance(0.3)) this.out.push("/// A generated schedule.\n/// Second doc line.\n");
    if (r.chance(0.15)) this.out.push("/* a block comment */ ;\n");
    const name = `gen_${r.u32().toString(36)}`;
    this.chunkBytes = r.pick([256, 1024, 4096, 8192, 65536]);
    this.chunkName = r.pick(["chunk", "c", "size_"]);
    const params = [`${this.chunkName}: bytes = ${sizeLiteral(this.chunkBytes, r)}`];
    const scope: Scope = { ints: [], ranks: [] };
    if (r.chance(0.5)) {
      params.push(`n: int = ${r.range(1, 3)}`);
      scope.ints.push("n");
    }
    if (r.chance(0.3)) params.push(`flag: bool = ${r.chance(0.5)}`);
    if (r.chance(0.12)) {
      this.out.push(
        `schedule ${name}(${params[0]!}) ${r.pick(COLLECTIVE_BODIES)(this.chunkName)}\n`,
      );
      if (r.chance(0.2)) this.out.push(`schedule second_${name}() { buffer b: 1KiB\n}\n`);
      return this.out.join("");
    }
    this.out.push(`schedule ${name}(${params.join(", ")}) {\n`);
    this.declarations();
    if (r.chance(0.4)) this.line(1, `let half = ${this.chunkName} / 2`);
    if (r.chance(0.3)) this.line(1, `const m: int = max(1, min(${this.intExpr(scope, 1)}, 7))`);
    const n = r.range(1, 6);
    for (let i = 0; i < n; i++) this.statement(1, scope, 0);
    this.out.push("}\n");
    return this.out.join("");
  }

  private line(depth: number, text: string): void {
    this.out.push(`${"  ".repeat(depth)}${text}\n`);
  }

  private declarations(): void {
    const r = this.rng;
    const c = this.chunkName;
    this.buffers.push({ name: "buf", onRank: undefined });
    this.line(1, `buffer buf: ${c} * ranks`);
    if (r.chance(0.5)) {
      const onRank = r.chance(0.3) ? r.int(8) : undefined;
      this.buffers.push({ name: "tmp", onRank });
      this.line(1, `buffer tmp: ${c} * ranks${onRank === undefined ? "" : ` on ${onRank}`}`);
    }
    const nsig = r.int(3);
    for (let i = 0; i < nsig; i++) {
      const onRank = r.chance(0.3) ? r.int(8) : undefined;
      const name = `sig${i}`;
      // A thermometer flag (outside code stores 2^k - 1) is never notified by the schedule.
      const thermometer = r.chance(0.3);
      this.signals.push({ name, onRank, thermometer });
      this.line(
        1,
        `signal ${name}${onRank === undefined ? "" : ` on ${onRank}`}${thermometer ? " thermometer" : ""}`,
      );
    }
  }

  /** A rank expression: a rank variable, a literal, or modular arithmetic on them. */
  private rankExpr(scope: Scope): string {
    const r = this.rng;
    if (scope.ranks.length > 0 && r.chance(0.7)) {
      const v = r.pick(scope.ranks);
      return r.chance(0.7) ? v : `(${v} + ${r.range(1, 7)}) % ranks`;
    }
    return String(r.int(8));
  }

  private intExpr(scope: Scope, depth: number): string {
    const r = this.rng;
    if (depth > 2 || r.chance(0.4)) {
      const leaves = [String(r.int(8)), "ranks", ...scope.ints, ...scope.ranks];
      return r.pick(leaves);
    }
    switch (r.int(5)) {
      case 0:
        return `${this.intExpr(scope, depth + 1)} ${r.pick(["+", "-", "*"])} ${this.intExpr(scope, depth + 1)}`;
      case 1:
        return `(${this.intExpr(scope, depth + 1)}) % ${r.range(1, 8)}`;
      case 2:
        return `${r.pick(["min", "max"])}(${this.intExpr(scope, depth + 1)}, ${this.intExpr(scope, depth + 1)})`;
      case 3:
        return `-${this.intExpr(scope, depth + 1)}`;
      default:
        return `${this.intExpr(scope, depth + 1)} / ${r.range(1, 4)}`;
    }
  }

  private boolExpr(scope: Scope): string {
    const r = this.rng;
    const cmp = (): string =>
      `${this.intExpr(scope, 2)} ${r.pick(["==", "!=", "<", "<=", ">", ">="])} ${this.intExpr(scope, 2)}`;
    switch (r.int(4)) {
      case 0:
        return `${cmp()} && ${cmp()}`;
      case 1:
        return `${cmp()} || !(${cmp()})`;
      case 2:
        return r.pick(["true", "false"]);
      default:
        return cmp();
    }
  }

  /**
   * A region of one slot (a chunk, or half of one for shape 2) on a rank, usually in bounds.
   * Pass the same `shape` for the two sides of a copy or swap so that the lengths match.
   */
  private region(
    scope: Scope,
    slot: string,
    withRank = this.rankExpr(scope),
    shape = this.rng.int(4),
  ): string {
    const r = this.rng;
    const c = this.chunkName;
    const b = r.chance(0.85) ? "buf" : r.pick(this.buffers).name;
    switch (shape) {
      case 0:
        return `${b}@${paren(withRank)}[${slot} * ${c} +: ${c}]`;
      case 1:
        return `${b}@${paren(withRank)}[${slot} * ${c} .. (${slot} + 1) * ${c}]`;
      case 2:
        return `${b}@${paren(withRank)}[${slot} * ${c} + ${c} / 2 +: ${c} / 2]`;
      default:
        return `${b}@${paren(withRank)}[${slot} * ${c} +: ${c}]`;
    }
  }

  private placement(scope: Scope): string {
    const r = this.rng;
    if (r.chance(0.75)) return "";
    return r.chance(0.5) ? ` on sdma(${r.int(16)})` : ` by ${this.rankExpr(scope)}`;
  }

  private statement(depth: number, scope: Scope, nest: number): void {
    const r = this.rng;
    const kinds = nest >= 3 ? 6 : 10;
    switch (r.int(kinds)) {
      case 0:
      case 1: {
        const slot = r.pick([...scope.ranks, String(r.int(8))]);
        const shape = r.int(4);
        const src = this.region(scope, slot, undefined, shape);
        const dsts = [this.region(scope, slot, undefined, shape)];
        if (r.chance(0.15)) dsts.push(this.region(scope, slot, undefined, shape));
        // Rarely three or more: DMAC2023 (they were once dropped silently, issue 11).
        while (dsts.length >= 2 && dsts.length < 5 && r.chance(0.1))
          dsts.push(this.region(scope, slot, undefined, shape));
        this.line(depth, `copy ${src} -> ${dsts.join(", ")}${this.placement(scope)}`);
        return;
      }
      case 2: {
        const a = this.rankExpr(scope);
        const b = this.rankExpr(scope);
        const shape = r.int(4);
        this.line(
          depth,
          `swap ${this.region(scope, b, a, shape)} <-> ${this.region(scope, a, b, shape)}${this.placement(scope)}`,
        );
        return;
      }
      case 3: {
        const slot = r.pick([...scope.ranks, String(r.int(8))]);
        const v = r.chance(0.8) ? String(r.int(256)) : `${this.intExpr(scope, 1)} % 256`;
        this.line(depth, `fill ${this.region(scope, slot)} with ${v}${this.placement(scope)}`);
        return;
      }
      case 4: {
        const counts = this.signals.filter((x) => !x.thermometer);
        if (counts.length === 0) return this.statement(depth, scope, nest);
        const s = r.pick(counts);
        this.line(depth, `notify ${s.name}@${paren(this.rankOf(s, scope))}`);
        return;
      }
      case 5: {
        const slot = String(r.int(8));
        const shape = r.int(4);
        const rhs = r.chance(0.5) ? this.region(scope, slot, undefined, shape) : String(r.int(256));
        this.line(depth, `ensure ${this.region(scope, slot, undefined, shape)} == ${rhs}`);
        return;
      }
      case 6:
      case 7: {
        const v1 = `v${this.fresh++}`;
        const inner: Scope = { ints: [...scope.ints], ranks: [...scope.ranks, v1] };
        const vars = [`${v1} in ranks`];
        if (r.chance(0.5)) {
          const v2 = `v${this.fresh++}`;
          inner.ranks.push(v2);
          vars.push(
            r.chance(0.5) ? `${v2} in ranks` : `${v2} in 0..ranks step ${r.pick(["1", "2", "3"])}`,
          );
        }
        if (r.chance(0.2)) {
          const v3 = `k${this.fresh++}`;
          inner.ints.push(v3);
          vars.push(`${v3} in 0..${r.range(1, 3)}`);
        }
        const where = r.chance(0.6)
          ? ` where ${inner.ranks.length > 1 ? `${inner.ranks[inner.ranks.length - 1]!} != ${v1}` : this.boolExpr(inner)}`
          : "";
        this.line(depth, `for ${vars.join(", ")}${where} {`);
        const n = r.range(1, 3);
        for (let i = 0; i < n; i++) this.statement(depth + 1, inner, nest + 1);
        this.line(depth, "}");
        return;
      }
      case 8: {
        // Each block gets its own copy of the scope: a `let` inside must not leak out.
        const inner = (): Scope => ({ ints: [...scope.ints], ranks: [...scope.ranks] });
        this.line(depth, `if ${this.boolExpr(scope)} {`);
        this.statement(depth + 1, inner(), nest + 1);
        if (r.chance(0.3)) {
          this.line(depth, `} else if ${this.boolExpr(scope)} {`);
          this.statement(depth + 1, inner(), nest + 1);
        }
        if (r.chance(0.5)) {
          this.line(depth, "} else {");
          this.statement(depth + 1, inner(), nest + 1);
        }
        this.line(depth, "}");
        return;
      }
      default: {
        if (this.signals.length === 0) {
          const v = `x${this.fresh++}`;
          this.line(depth, `${r.pick(["let", "const"])} ${v}: int = ${this.intExpr(scope, 0)}`);
          scope.ints.push(v);
          return;
        }
        const s = r.pick(this.signals);
        // Only the monotone forms: flags only ever rise, and the executor raises an external
        // flag to the largest value any poll needs. Non-monotone waits (`!=`, `<`, `<=`, `==`
        // nested under a `>`) can deadlock in the executor although the checker accepts them;
        // reported to the lead, the mutator still produces them for the no-crash properties.
        const op = r.pick([">=", ">"]);
        // A thermometer wait needs 1 <= V <= 32 (`> V` is `>= V + 1`).
        const v = s.thermometer ? r.range(op === ">=" ? 1 : 0, 2) : r.range(0, 2);
        this.line(depth, `when ${s.name}@${paren(this.rankOf(s, scope))} ${op} ${v} {`);
        this.statement(depth + 1, { ints: [...scope.ints], ranks: [...scope.ranks] }, nest + 1);
        this.line(depth, "}");
      }
    }
  }

  private rankOf(s: { onRank: number | undefined }, scope: Scope): string {
    return s.onRank !== undefined && this.rng.chance(0.8) ? String(s.onRank) : this.rankExpr(scope);
  }
}

function paren(e: string): string {
  return /^[A-Za-z0-9_]+$/.test(e) ? e : `(${e})`;
}

function sizeLiteral(bytes: number, r: Rng): string {
  if (bytes % 1024 === 0 && r.chance(0.7)) return `${bytes / 1024}KiB`;
  // Underscore separators are legal in size literals too (`65_536B`).
  return r.chance(0.3) && bytes >= 1000
    ? `${String(bytes).replace(/(\d)(?=(\d{3})+$)/g, "$1_")}B`
    : `${bytes}B`;
}

/** One deliberate mistake, picked from the kinds users make. */
const INJECTIONS: readonly ((text: string, r: Rng) => string)[] = [
  (t) => t.replace(/(\d+)KiB/, "$1KB"), // KB instead of KiB (DMAC1003)
  (t) => t.replace(/buffer buf: /, "buffer buf: 1 + "), // int + bytes (DMAC2004)
  (t) => t.replace(/copy buf@/, "copy bfu@"), // unknown name (DMAC2001)
  (t) => t.replace(/ with (\d+)/, " with 300"), // fill value out of range (DMAC3016)
  (t) => t.replace(/\+: /, "+: 2 * "), // length mismatch / out of bounds
  (t) => t.replace(/schedule (\w+)\(/, "schedule $1(bad: int = 1KiB, "), // type mismatch
  (t) => t.replace(/\n}\n$/, "\n  copy buf@0 -> buf@0\n}\n"), // copy onto itself
  (t) => t.replace(/\n}\n$/, "\n  copy buf@9 -> buf@0\n}\n"), // rank out of range
  (t) => t.replace(/\n}\n$/, "\n  fill buf@0[0 +: 0B] with 1\n}\n"), // zero-length
  (t) => t.replace(/\n}\n$/, "\n  copy buf@0 -> buf@1 on sdma(99)\n}\n"), // no such engine
  (t) => t.replace(/\n}\n$/, "\n  let q = 1KiB / 3\n  fill buf@0[0 +: q] with 1\n}\n"), // remainder
  (t) => t.replace(/\n}\n$/, "\n  for i in 0..1000000000 { fill buf@0[0 +: 1B] with 1 }\n}\n"), // trip
  (t) => t.replace(/\n}\n$/, "\n  if 1 { fill buf@0 with 1 }\n}\n"), // non-bool condition
  (t, r) => t.slice(0, r.int(t.length + 1)), // truncated file
];

function injectError(r: Rng, text: string): string {
  return r.pick(INJECTIONS)(text, r);
}
