// Test helpers for copy order and incast: a 4-GPU copy of targets/h200.json, and a small cost
// model that charges incast (what the fabric-aware executor predicts; this one is simple enough
// to compute by hand), for tests that must not depend on the executor's constants.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CostModel } from "../../../src/passes/cost-model.js";
import { parseTarget, type Target } from "../../../src/target/target.js";

/** targets/h200.json with `gpus` set (the 4-GPU machine), and timing values replaced. */
export function h200With(gpus: number, timing: Record<string, number> = {}): Target {
  const path = fileURLToPath(new URL("../../../targets/h200.json", import.meta.url));
  const json = JSON.parse(readFileSync(path, "utf8")) as { timing: Record<string, object> };
  for (const [name, value] of Object.entries(timing))
    json.timing[name] = { ...json.timing[name], value };
  return parseTarget({ ...json, gpus, name: `h200x${gpus}` }, `h200x${gpus}.json`);
}

/** Bytes per microsecond of every GPU's one link in and one link out (the fake model). */
const RATE = 400e3;

/**
 * Steps: the k-th data command of every queue runs in step k, and a step lasts as long as its
 * busiest GPU link: the bytes all its senders write into one receiver, or one sender writes out,
 * at RATE. So three senders into one receiver take three times as long as one. Never fails.
 */
export const INCAST_MODEL: CostModel = {
  predict(prog, m) {
    const steps: Map<string, number>[] = [];
    let events = 0;
    for (const q of prog.queues) {
      let k = 0;
      for (let i = 0; i < q.cmds.length; i++) {
        if (!q.cmds.isData(i)) continue;
        events++;
        const op = prog.lists.of(q.cmds.opsHandle(i))[0]!;
        const step = (steps[k++] ??= new Map());
        const add = (key: string): void => {
          step.set(key, (step.get(key) ?? 0) + q.cmds.bytes(i));
        };
        add(`in ${m.ops.dstRank[op]}`);
        add(`out ${m.ops.srcRank[op]}`);
      }
    }
    let timeUs = 0;
    for (const s of steps) timeUs += Math.max(...s.values()) / RATE;
    return { kind: "predicted", timeUs, events };
  },
};
