// Results unchanged (issue 13): every example, the compilable golden cases and the bench programs,
// compiled and simulated by the built CLI (bin/dmac.js on dist/), give the packet streams,
// manifest, dump, trace and simulation results recorded in test/results/digests.json.
//
//   Re-bless after an intended change:  npm run build && node scripts/results-digest.mjs --update
//   The large cases (minutes, not in CI): node scripts/results-digest.mjs --large --check

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  DIGESTS,
  abridge,
  ciCases,
  compareDigests,
  computeDigests,
  type Digests,
} from "../../scripts/results-digest.mjs";

const expected = JSON.parse(readFileSync(DIGESTS, "utf8")) as Digests;

describe("results unchanged", () => {
  it("every CI case matches its committed digests", async () => {
    const actual = await computeDigests(ciCases(), { concurrency: 2 });
    expect(
      abridge(compareDigests(expected, actual)),
      "results differ; if intended: node scripts/results-digest.mjs --update",
    ).toEqual([]);
  }, 600_000);

  it("the comparison names the case and file that changed", () => {
    const id = Object.keys(expected).find((k) => k.startsWith("examples/broadcast.dmac"))!;
    const tampered = structuredClone(expected);
    const files = tampered[id]!["files"] as Record<string, { bytes: number; sha256: string }>;
    files["dump.txt"]!.sha256 = "0".repeat(64);
    delete files["trace.json"];
    expect(compareDigests(expected, expected)).toEqual([]);
    const diffs = compareDigests(expected, tampered);
    expect(diffs).toHaveLength(2);
    expect(diffs[0]).toMatch(new RegExp(`^${id}: files dump.txt sha256: expected "[0-9a-f]{64}"`));
    expect(diffs[1]).toMatch(
      new RegExp(`^${id}: files trace.json: missing \\(expected \\{"bytes"`),
    );
  });

  it("a changed simulation result or a missing case fails too", () => {
    const [id, ...rest] = Object.keys(expected);
    const tampered = structuredClone(expected);
    const sim = tampered[id!]!["sim"] as { packets: { totalUs: number } };
    sim.packets.totalUs += 1e-9;
    delete tampered[rest[0]!];
    const diffs = compareDigests(expected, tampered);
    expect(diffs).toContain(`${rest[0]}: case missing from this run`);
    expect(diffs.some((d) => d.startsWith(`${id}: sim packets totalUs: expected`))).toBe(true);
    expect(abridge(["a: 1", "a: 2", "a: 3", "a: 4", "b: 1"], 2)).toEqual([
      "a: 1",
      "a: 2",
      "a: ... (more differences)",
      "b: 1",
    ]);
  });
});
