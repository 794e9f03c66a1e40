// Code frames for the executor's reports. The executor names a command by its queue position
// (`gpu1.sdma2 +0x18`, `#12` in a command trace; exec-state.ts `where`), inside the message text,
// and knows no source file. Once the run is over, each report that has no span gets one: the
// first position it cites becomes its span (the statement that command came from, through the
// IR), so the renderer prints the source line with carets as it does for compile errors; every
// further position it cites (a race's other access, more blocked queues) becomes a note with its
// own frame. A position counts only if it names a real queue and a command at that offset.

import type { Diagnostic, Related } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import type { PackedProgram } from "./program.js";
import { rowAt, sourceLocator, type SourcePlace } from "./trace/source.js";

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function withSourceFrames(
  diagnostics: Diagnostic[],
  p: PackedProgram,
  module: IrModule | undefined,
): Diagnostic[] {
  if (!module?.file || p.queues.length === 0 || diagnostics.every((d) => d.file))
    return diagnostics;
  const queues = new Map(p.queues.map((q, i) => [q.name, i]));
  const names = [...queues.keys()].sort((a, b) => b.length - a.length).map(escape);
  const cited = new RegExp(`(?<![\\w.])(${names.join("|")}) (\\+0x[0-9a-f]+|#\\d+)`, "g");
  const locate = sourceLocator(p, module);
  const placesIn = (text: string): { cite: string; place: SourcePlace }[] => {
    const out: { cite: string; place: SourcePlace }[] = [];
    for (const m of text.matchAll(cited)) {
      const q = queues.get(m[1]!)!;
      const pos = m[2]!;
      const at = pos.startsWith("#") ? Number(pos.slice(1)) : parseInt(pos.slice(3), 16);
      const row = rowAt(p, q, at);
      const place = row >= 0 ? locate(q, row) : undefined;
      if (place?.span && !out.some((o) => o.place.span!.start === place.span!.start))
        out.push({ cite: m[0], place });
    }
    return out;
  };
  return diagnostics.map((d) => {
    if (d.file) return d;
    const [first, ...rest] = placesIn(d.message);
    if (!first) return d;
    const related: Related[] = rest.map((r) => ({
      message: r.cite,
      file: r.place.file,
      span: r.place.span!,
    }));
    return {
      ...d,
      file: first.place.file,
      span: first.place.span,
      related: [...d.related, ...related],
    };
  });
}
