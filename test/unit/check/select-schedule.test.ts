import { describe, expect, it } from "vitest";
import { checkSource } from "../../../src/check/check-source.js";
import { selectSchedule } from "../../../src/check/check.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const file = makeSourceFile(
  "t.dmac",
  `schedule a() { buffer b: 1KiB\n copy b@0 -> b@1 }\nschedule b() { buffer b: 1KiB\n copy b@1 -> b@0 }\n`,
);
const { schedules } = checkSource(file, { defines: {} });

describe("selectSchedule", () => {
  it("picks the only schedule or the named one", () => {
    expect(selectSchedule(schedules.slice(0, 1)).schedule?.schedule.name.name).toBe("a");
    expect(selectSchedule(schedules, "b").schedule?.schedule.name.name).toBe("b");
    expect(selectSchedule([]).schedule).toBeUndefined();
  });

  it("reports DMAC2019 when several schedules and none named", () => {
    const r = selectSchedule(schedules);
    expect(r.schedule).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        "DMAC2019",
        "the file declares several schedules (a, b); choose one with --schedule",
        "for example --schedule a",
      ],
    ]);
    expect(r.diagnostics[0]!.span).toEqual(schedules[1]!.schedule.name.span);
  });

  it("reports DMAC2020 for an unknown name with a suggestion", () => {
    const r = selectSchedule(schedules, "bb");
    expect(r.diagnostics.map((d) => [d.code, d.hint])).toEqual([["DMAC2020", "did you mean 'b'?"]]);
  });
});
