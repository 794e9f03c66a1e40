// Resolves the file's `target` item to a Target: a built-in model by name, or a description file
// relative to the source file's directory. An override from the command line wins and the file's
// item is then not even loaded. Failures are DMAC2006 (unknown built-in) or DMAC5006 (a file that
// cannot be read or is not a valid description); the caller continues with the default target so
// that the rest of the file is still checked.

import { resolve } from "node:path";
import type { Program, TargetDecl } from "../frontend/ast.js";
import type { SourceFile } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import {
  BUILTIN_TARGETS,
  builtinTarget,
  loadTargetFile,
  TargetError,
  type Target,
} from "../target/target.js";
import { InternalError } from "../util/internal-error.js";
import { nameSuggestion } from "../diagnostics/suggest.js";

export const DEFAULT_TARGET = "mi300x";

export function defaultTarget(): Target {
  const t = builtinTarget(DEFAULT_TARGET);
  if (!t) throw new InternalError(`built-in target ${DEFAULT_TARGET} is missing`);
  return t;
}

/** Why a file could not be read, without absolute paths (stable across machines). */
function fsReason(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

export function resolveTarget(
  file: SourceFile,
  program: Program,
  options: { readonly baseDir?: string | undefined; readonly targetOverride?: Target | undefined },
  out: Diagnostic[],
): { target: Target; ok: boolean } {
  if (options.targetOverride) return { target: options.targetOverride, ok: true };
  const decl = program.items.find((i): i is TargetDecl => i.kind === "target");
  if (!decl) return { target: defaultTarget(), ok: true };
  if (decl.name) {
    const t = builtinTarget(decl.name.name);
    if (t) return { target: t, ok: true };
    out.push(
      diag("DMAC2006", { file, span: decl.name.span }, [decl.name.name], {
        hint: `the built-in targets are: ${BUILTIN_TARGETS.join(", ")}; a description file is named with target "file.json"`,
        ...nameSuggestion(decl.name.name, BUILTIN_TARGETS, decl.name.span),
      }),
    );
    return { target: defaultTarget(), ok: false };
  }
  if (decl.path) {
    const shown = decl.path.value;
    const path = resolve(options.baseDir ?? ".", shown);
    try {
      return { target: loadTargetFile(path), ok: true };
    } catch (e) {
      // TargetError messages start with the resolved path; show the path as written instead.
      const detail =
        e instanceof TargetError
          ? e.message.startsWith(`${path}: `)
            ? e.message.slice(path.length + 2)
            : e.message
          : fsReason(e);
      out.push(diag("DMAC5006", { file, span: decl.path.span }, [shown, detail]));
      return { target: defaultTarget(), ok: false };
    }
  }
  return { target: defaultTarget(), ok: true };
}
