// Test helper: source text -> checked -> instantiated module (or diagnostics).

import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { instantiate, DEFAULT_MAX_OPS } from "../../../src/ir/instantiate.js";
import type { Diagnostic } from "../../../src/diagnostics/diagnostic.js";
import type { IrModule } from "../../../src/ir/ir.js";

export interface Instantiated {
  readonly diagnostics: Diagnostic[];
  readonly module: IrModule | undefined;
}

export function inst(
  text: string,
  opts: { defines?: Record<string, string>; maxOps?: number; schedule?: string } = {},
): Instantiated {
  const file = makeSourceFile("t.dmac", text);
  const checked = checkSource(file, { defines: opts.defines ?? {}, schedule: opts.schedule });
  const errors = checked.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0)
    throw new Error(
      "test source does not check: " + errors.map((d) => `${d.code} ${d.message}`).join("; "),
    );
  const s = checked.schedules[0];
  if (!s) throw new Error("no schedule");
  return instantiate(s, { maxOps: opts.maxOps ?? DEFAULT_MAX_OPS });
}

/** Instantiates and expects success. */
export function ok(text: string, opts: Parameters<typeof inst>[1] = {}): IrModule {
  const r = inst(text, opts);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !r.module)
    throw new Error(
      "instantiation failed: " + errors.map((d) => `${d.code} ${d.message}`).join("; "),
    );
  return r.module;
}

/** The error codes and messages reported. */
export function errs(text: string, opts: Parameters<typeof inst>[1] = {}): Diagnostic[] {
  return inst(text, opts).diagnostics.filter((d) => d.severity === "error");
}
