// Choosing the one schedule a command works on (instantiate, compile, sim): by name, or the only
// one. DMAC2019 when the file has several and none was named; DMAC2020 for an unknown name.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { CheckedSchedule } from "./checked.js";
import { didYouMean } from "../diagnostics/suggest.js";

export function selectSchedule(
  schedules: readonly CheckedSchedule[],
  name?: string,
): { schedule: CheckedSchedule | undefined; diagnostics: Diagnostic[] } {
  if (name !== undefined) {
    const found = schedules.find((s) => s.schedule.name.name === name);
    if (found) return { schedule: found, diagnostics: [] };
    const names = schedules.map((s) => s.schedule.name.name);
    return {
      schedule: undefined,
      diagnostics: [
        diag("DMAC2020", undefined, [name], {
          hint:
            didYouMean(name, names) ??
            (names.length ? `the schedules are: ${names.join(", ")}` : undefined),
        }),
      ],
    };
  }
  if (schedules.length <= 1) return { schedule: schedules[0], diagnostics: [] };
  const names = schedules.map((s) => s.schedule.name.name);
  const second = schedules[1]!;
  return {
    schedule: undefined,
    diagnostics: [
      diag("DMAC2019", { file: second.file, span: second.schedule.name.span }, [names.join(", ")], {
        hint: `for example --schedule ${names[0]}`,
      }),
    ],
  };
}
