// Variant specs: how one run of a schedule is compiled, written as a short string, shared by
// `dmac sweep` (FILE@SPEC arguments) and `dmac calibrate` (the spec column of a measurements
// file). A spec is a list of items joined by `,` or `+`; each item is a command-line option of
// `sweep` without its dashes, or a schedule parameter:
//
//   O0 | O1 | O2                    the optimisation level (-O)
//   prelaunch | pl                  --prelaunch
//   engines=STRATEGY                --engines (affinity, spread:K, single[:E,...])
//   completion=WHAT                 --completion (atomic|fence, per-op|per-queue; repeatable)
//   disable-pass=PASS               --disable-pass (repeatable)
//   schedule=NAME                   --schedule
//   NAME=VALUE | -DNAME=VALUE       -D NAME=VALUE (a schedule parameter; -D for a name that is
//                                   also an option's, such as a parameter called `schedule`)
//   label=TEXT                      the variant's name: the rest of the argument, so write it last
//
// A value that contains `,` or `+` is written in square brackets: `engines=[single:8,10]`,
// `chunk=[1KiB+64B]`. `=TEXT` after the last item is also a label (`engine=8=b2b`, and the older
// form `b2b.dmac@O1+prelaunch=b2b`), so a value cannot hold `=` unless it is bracketed.
// `docs/calibrate.md` documents the syntax for users.
//
// Parsing is syntactic and local (problems carry offsets into the spec, so a measurements file
// can point at the column); option values that need the target (engine ids) are checked when the
// variant is compiled (parseOptOptions).

import { pushAll } from "../util/arrays.js";
import { existsSync } from "node:fs";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import { PASS_NAMES, type OptLevel } from "../passes/pass.js";
import { parseOptOptions, type OptCommandOptions, type ParsedOptOptions } from "./opt-options.js";
import type { Target } from "../target/target.js";

/** The options a spec sets; absent fields leave the command line's value. */
export interface VariantOptions {
  readonly engines?: string | undefined;
  /** Comma-separated, as --completion takes it. */
  readonly completion?: string | undefined;
  readonly disablePass?: readonly string[] | undefined;
  readonly schedule?: string | undefined;
  /** -D parameters, in the order given. */
  readonly defines?: Readonly<Record<string, string>> | undefined;
}

/** A problem at [start, end) of the spec text. */
export interface SpecProblem {
  readonly start: number;
  readonly end: number;
  readonly message: string;
  readonly hint?: string | undefined;
}

export interface ParsedSpec {
  /** The levels given, in order, without repeats (empty: none given). */
  readonly levels: OptLevel[];
  readonly prelaunch: boolean;
  readonly options: VariantOptions;
  readonly label?: string | undefined;
  /**
   * Where each option (engines, completion, disable-pass, schedule: the last one given) and each
   * parameter (by name) was given, for reports that point at it.
   */
  readonly spans: Readonly<Record<string, { start: number; end: number }>>;
  readonly problems: SpecProblem[];
}

const LEVEL = /^-?O([012])$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FLAGS = ["prelaunch", "pl"] as const;
const VALUED = ["engines", "completion", "disable-pass", "schedule", "label"] as const;
const COMPLETION_WORDS = ["atomic", "fence", "per-op", "per-queue"] as const;
/** Every item name, for "did you mean". */
const ITEM_NAMES: readonly string[] = ["O0", "O1", "O2", ...FLAGS, ...VALUED];
const SEPARATORS = ",+";

/** The items a spec may hold, in one line (for hints). */
export const SPEC_ITEMS =
  "O0, O1, O2, prelaunch, engines=S, completion=C, disable-pass=P, schedule=N, label=TEXT, or NAME=VALUE for a parameter";

/** Parses a spec (the text after `@`, or a spec cell). Offsets are relative to `text`. */
export function parseSpec(text: string): ParsedSpec {
  const problems: SpecProblem[] = [];
  const levels: OptLevel[] = [];
  let prelaunch = false;
  let label: string | undefined;
  let engines: string | undefined;
  let schedule: string | undefined;
  const completion: string[] = [];
  const disablePass: string[] = [];
  // No prototype: `__proto__=1` is a parameter name like any other (and an unknown one).
  const defines: Record<string, string> = Object.create(null) as Record<string, string>;
  const spans: Record<string, { start: number; end: number }> = {};
  const optionSpans: Record<string, { start: number; end: number }> = {};
  const seen = new Set<string>();
  const problem = (start: number, end: number, message: string, hint?: string): void => {
    problems.push({ start, end: Math.max(end, start + 1), message, hint });
  };
  if (text.trim() === "") {
    problem(0, text.length, "empty spec", `give ${SPEC_ITEMS}`);
    return { levels, prelaunch, options: {}, spans: {}, problems };
  }
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    const start = pos;
    while (pos < n && text[pos] !== "=" && !SEPARATORS.includes(text[pos]!)) pos++;
    const rawName = text.slice(start, pos);
    const name = rawName.trim();
    const nameStart = start + (rawName.length - rawName.trimStart().length);
    const nameEnd = nameStart + name.length;
    let value: string | undefined;
    let valueStart = pos;
    if (pos < n && text[pos] === "=") {
      pos++;
      // A label runs to the end: `label=TEXT`, or `=TEXT` after a level or prelaunch.
      if (name === "label" || LEVEL.test(name) || (FLAGS as readonly string[]).includes(name)) {
        const rest = text.slice(pos);
        if (rest.trim() === "") problem(pos - 1, n, "empty label after =");
        else label = rest;
        if (name !== "label") applyBare(name, nameStart, nameEnd);
        pos = n;
        break;
      }
      while (pos < n && text[pos] === " ") pos++;
      valueStart = pos;
      if (text[pos] === "[") {
        const close = text.indexOf("]", pos + 1);
        if (close < 0) {
          problem(pos, n, "unclosed [ (a bracketed value ends with ])");
          pos = n;
          break;
        }
        value = text.slice(pos + 1, close);
        valueStart = pos + 1;
        pos = close + 1;
        while (pos < n && text[pos] === " ") pos++;
        if (pos < n && !SEPARATORS.includes(text[pos]!) && text[pos] !== "=") {
          let end = pos;
          while (end < n && !SEPARATORS.includes(text[end]!)) end++;
          problem(pos, end, "expected , or + after the bracketed value");
          pos = end;
        }
      } else {
        while (pos < n && !SEPARATORS.includes(text[pos]!) && text[pos] !== "=") pos++;
        value = text.slice(valueStart, pos).trim();
      }
      // `=TEXT` after a complete item is the label (`engine=8=b2b`).
      if (pos < n && text[pos] === "=") {
        const rest = text.slice(pos + 1);
        if (rest.trim() === "") problem(pos, n, "empty label after =");
        else label = rest;
        if (name === "") problem(start, pos, "= without a name");
        else applyValued(name, nameStart, nameEnd, value, valueStart, pos);
        pos = n;
        break;
      }
    }
    const itemEnd = pos;
    if (name === "") {
      problem(
        start,
        Math.max(itemEnd, start + 1),
        value === undefined ? "empty item" : "= without a name",
      );
    } else if (value === undefined) {
      applyBare(name, nameStart, nameEnd);
    } else {
      applyValued(name, nameStart, nameEnd, value, valueStart, itemEnd);
    }
    if (pos < n) {
      // a separator
      pos++;
      if (pos === n) problem(pos - 1, pos, `nothing after '${text[pos - 1]}'`);
    }
  }

  function once(key: string, start: number, end: number): boolean {
    if (seen.has(key)) {
      problem(start, end, `${key} is given twice`);
      return false;
    }
    seen.add(key);
    return true;
  }

  function applyBare(name: string, start: number, end: number): void {
    const m = LEVEL.exec(name);
    if (m) {
      const level = Number(m[1]) as OptLevel;
      if (!levels.includes(level)) levels.push(level);
      return;
    }
    if ((FLAGS as readonly string[]).includes(name)) {
      prelaunch = true;
      return;
    }
    if ((VALUED as readonly string[]).includes(name)) {
      problem(start, end, `${name} needs a value, as in ${example(name)}`);
      return;
    }
    if ((COMPLETION_WORDS as readonly string[]).includes(name)) {
      problem(start, end, `unknown item '${name}'`, `write completion=${name}`);
      return;
    }
    const guess = didYouMean(name, ITEM_NAMES);
    problem(start, end, `unknown item '${name}'`, guess ?? `a spec item is one of ${SPEC_ITEMS}`);
  }

  function applyValued(
    name: string,
    nameStart: number,
    nameEnd: number,
    value: string,
    valueStart: number,
    end: number,
  ): void {
    const valueEnd = valueStart + Math.max(value.length, 1);
    const explicitDefine = name.startsWith("-D");
    if (!explicitDefine && (VALUED as readonly string[]).includes(name))
      optionSpans[name] = { start: nameStart, end };
    if (!explicitDefine && (VALUED as readonly string[]).includes(name) && value === "") {
      problem(nameStart, end, `${name} needs a value, as in ${example(name)}`);
      return;
    }
    if (name === "engines") {
      if (once("engines", nameStart, end)) engines = value;
      return;
    }
    if (name === "schedule") {
      if (!NAME.test(value)) problem(valueStart, valueEnd, `'${value}' is not a schedule name`);
      else if (once("schedule", nameStart, end)) schedule = value;
      return;
    }
    if (name === "completion") {
      let off = valueStart;
      for (const part of value.split(",")) {
        const word = part.trim();
        if (!(COMPLETION_WORDS as readonly string[]).includes(word))
          problem(
            off,
            off + Math.max(part.length, 1),
            `'${word}' is not a completion choice`,
            "choose atomic or fence (protocol) and/or per-op or per-queue (policy)",
          );
        else completion.push(word);
        off += part.length + 1;
      }
      const protocols = completion.filter((w) => w === "atomic" || w === "fence");
      const policies = completion.filter((w) => w === "per-op" || w === "per-queue");
      if (new Set(protocols).size > 1 || new Set(policies).size > 1)
        problem(nameStart, end, `conflicting completion choices (${completion.join(", ")})`);
      return;
    }
    if (name === "disable-pass") {
      let off = valueStart;
      for (const part of value.split(",")) {
        const pass = part.trim();
        if (!(PASS_NAMES as readonly string[]).includes(pass))
          problem(
            off,
            off + Math.max(part.length, 1),
            `no pass '${pass}'`,
            didYouMean(pass, PASS_NAMES) ?? `choose from ${PASS_NAMES.join(", ")}`,
          );
        else if (!disablePass.includes(pass)) disablePass.push(pass);
        off += part.length + 1;
      }
      return;
    }
    // A parameter.
    const param = explicitDefine ? name.slice(2).trim() : name;
    if (!NAME.test(param)) {
      const guess = didYouMean(param, ITEM_NAMES);
      problem(
        nameStart,
        nameEnd,
        `'${name}' is not an option or a parameter name`,
        guess ?? `a spec item is one of ${SPEC_ITEMS}`,
      );
      return;
    }
    if (value === "") {
      problem(nameStart, end, `parameter ${param} needs a value, as in ${param}=1MiB`);
      return;
    }
    if (param in defines) {
      problem(nameStart, end, `parameter ${param} is given twice`);
      return;
    }
    defines[param] = value;
    spans[param] = { start: nameStart, end };
  }

  const options: VariantOptions = {
    ...(engines !== undefined ? { engines } : {}),
    ...(completion.length > 0 ? { completion: completion.join(",") } : {}),
    ...(disablePass.length > 0 ? { disablePass } : {}),
    ...(schedule !== undefined ? { schedule } : {}),
    ...(Object.keys(defines).length > 0 ? { defines } : {}),
  };
  return {
    levels,
    prelaunch,
    options,
    ...(label !== undefined ? { label } : {}),
    spans: { ...spans, ...optionSpans },
    problems,
  };
}

function example(name: string): string {
  switch (name) {
    case "engines":
      return "engines=single:8";
    case "completion":
      return "completion=per-queue";
    case "disable-pass":
      return "disable-pass=sync-elision";
    case "schedule":
      return "schedule=all_gather";
    default:
      return "label=b2b";
  }
}

/** True when a spec sets no option or parameter (only level, prelaunch and label). */
export function hasOptions(o: VariantOptions | undefined): boolean {
  return o !== undefined && Object.keys(o).length > 0;
}

/** The options as spec items (`engines=single:8,completion=per-queue,chunk=1KiB`). */
export function formatOptions(o: VariantOptions | undefined): string {
  if (!o) return "";
  const quote = (v: string): string => (/[,+]/.test(v) ? `[${v}]` : v);
  const items: string[] = [];
  if (o.engines !== undefined) items.push(`engines=${quote(o.engines)}`);
  if (o.completion !== undefined) items.push(`completion=${quote(o.completion)}`);
  for (const p of o.disablePass ?? []) items.push(`disable-pass=${p}`);
  if (o.schedule !== undefined) items.push(`schedule=${o.schedule}`);
  for (const [k, v] of Object.entries(o.defines ?? {}))
    items.push(`${ITEM_NAMES.includes(k) ? "-D" : ""}${k}=${quote(v)}`);
  return items.join(",");
}

/** The options as command-line arguments (`--engines single:8 -D chunk=1KiB`). */
export function optionsAsArguments(o: VariantOptions | undefined): string {
  if (!o) return "";
  const items: string[] = [];
  if (o.engines !== undefined) items.push(`--engines ${o.engines}`);
  if (o.completion !== undefined) items.push(`--completion ${o.completion}`);
  for (const p of o.disablePass ?? []) items.push(`--disable-pass ${p}`);
  if (o.schedule !== undefined) items.push(`--schedule ${o.schedule}`);
  for (const [k, v] of Object.entries(o.defines ?? {})) items.push(`-D ${k}=${v}`);
  return items.join(" ");
}

// ---- FILE[@SPEC][=LABEL] arguments -----------------------------------------------------------

/** One variant of a comparison: a file compiled at one level with its own options. */
export interface Variant {
  readonly path: string;
  readonly level: OptLevel;
  readonly prelaunch: boolean;
  /** A label given in the spec (`FILE@O1=b2b`), used as is. */
  readonly label?: string | undefined;
  /** The options the spec sets (absent when it sets none). */
  readonly options?: VariantOptions | undefined;
}

/**
 * Splits `FILE[@SPEC][=LABEL]`: an argument that names an existing file is a plain path (so paths
 * containing `@` or `=` still work); otherwise the spec starts at the first `@` whose prefix is an
 * existing file, else after `.dmac@`, else at the last `@`. Without `@`, `FILE=LABEL`.
 */
export function splitVariantArg(
  arg: string,
  exists: (path: string) => boolean = existsSync,
): { path: string; spec: string | undefined; label: string | undefined } {
  if (exists(arg)) return { path: arg, spec: undefined, label: undefined };
  let at = -1;
  for (let i = arg.indexOf("@"); i >= 0; i = arg.indexOf("@", i + 1))
    if (exists(arg.slice(0, i))) {
      at = i;
      break;
    }
  if (at < 0) {
    const d = arg.indexOf(".dmac@");
    at = d >= 0 ? d + 5 : arg.lastIndexOf("@");
  }
  if (at >= 0) return { path: arg.slice(0, at), spec: arg.slice(at + 1), label: undefined };
  const eq = arg.indexOf("=");
  if (eq >= 0) return { path: arg.slice(0, eq), spec: undefined, label: arg.slice(eq + 1) };
  return { path: arg, spec: undefined, label: undefined };
}

/** A spec problem as a DMAC5004 about the argument (the command line has no source to point at). */
function argumentDiagnostic(arg: string, p: SpecProblem): Diagnostic {
  return diag("DMAC5004", undefined, ["variant", `'${arg}': ${p.message}`], {
    hint: p.hint ?? `a spec item is one of ${SPEC_ITEMS}`,
  });
}

/**
 * `FILE[@SPEC][=LABEL]` -> variants: one per level of the spec, or, without a level, one per
 * level of `levels` (-O). `prelaunch` is --prelaunch (a spec's `prelaunch` turns it on).
 * `reserved` names parameters the spec may not set (sweep's --param).
 */
export function parseVariantSpec(
  arg: string,
  levels: readonly OptLevel[],
  prelaunch: boolean,
  reserved: readonly string[] = [],
): { variants: Variant[]; diagnostics: Diagnostic[] } {
  const split = splitVariantArg(arg);
  const diagnostics: Diagnostic[] = [];
  let label = split.label;
  let own: OptLevel[] = [];
  let pl = prelaunch;
  let options: VariantOptions | undefined;
  if (split.label !== undefined && split.label.trim() === "")
    diagnostics.push(diag("DMAC5004", undefined, ["variant", `'${arg}': empty label after =`]));
  if (split.spec !== undefined) {
    const s = parseSpec(split.spec);
    pushAll(
      diagnostics,
      s.problems.map((p) => argumentDiagnostic(arg, p)),
    );
    own = s.levels;
    pl = pl || s.prelaunch;
    label = s.label ?? label;
    if (hasOptions(s.options)) options = s.options;
    for (const name of reserved)
      if (s.options.defines && name in s.options.defines)
        diagnostics.push(
          diag("DMAC5004", undefined, [
            "variant",
            `'${arg}': ${name} is the swept parameter (--param); the sweep sets it`,
          ]),
        );
  }
  const chosen = own.length > 0 ? own : levels;
  if (label !== undefined && chosen.length > 1)
    diagnostics.push(
      diag("DMAC5004", undefined, [
        "variant",
        `'${arg}': a label names one variant; give one level (e.g. @O1=${label})`,
      ]),
    );
  return {
    variants: chosen.map((level) => ({
      path: split.path,
      level,
      prelaunch: pl,
      ...(label !== undefined ? { label } : {}),
      ...(options !== undefined ? { options } : {}),
    })),
    diagnostics,
  };
}

// ---- compiling a variant ---------------------------------------------------------------------

/** The command line's compile options that a variant may replace. */
export interface BaseCompileOptions extends OptCommandOptions {
  readonly schedule?: string | undefined;
  readonly defines: Readonly<Record<string, string>>;
}

export interface VariantCompile extends ParsedOptOptions {
  readonly schedule: string | undefined;
  readonly defines: Record<string, string>;
}

/** --completion with a spec's choices: its protocol and its policy each replace the base's. */
function mergeCompletion(base: string | undefined, spec: string | undefined): string | undefined {
  if (spec === undefined || base === undefined) return spec ?? base;
  const words = spec.split(",").map((w) => w.trim());
  const protocol = (w: string): boolean => w === "atomic" || w === "fence";
  const keep = base
    .split(",")
    .map((w) => w.trim())
    .filter((w) => !words.some((x) => protocol(x) === protocol(w)));
  return [...keep, ...words].join(",");
}

/**
 * The compile options of one variant: the command line's, with the spec's items replacing the
 * option of the same name (a completion protocol or policy replaces only its own half of
 * --completion; parameters are merged, the spec's winning).
 */
export function variantCompileOptions(
  base: BaseCompileOptions,
  v: Pick<Variant, "level" | "prelaunch" | "options">,
  target: Target | undefined,
): VariantCompile {
  const o = v.options ?? {};
  const parsed = parseOptOptions(
    {
      ...base,
      engines: o.engines ?? base.engines,
      completion: mergeCompletion(base.completion, o.completion),
      disablePass: o.disablePass !== undefined ? [...o.disablePass] : base.disablePass,
    },
    target,
    { level: String(v.level), prelaunch: v.prelaunch },
  );
  return {
    ...parsed,
    schedule: o.schedule ?? base.schedule,
    defines: Object.assign(
      Object.create(null) as Record<string, string>,
      base.defines,
      o.defines ?? {},
    ),
  };
}
