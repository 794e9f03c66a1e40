// The 2x H200 peer run (issue 19) refits to the numbers bench/hardware/2026-11-24-h200x2 quotes
// (`dmac measure --fit`: thousands of executor runs, ~5 s on the 2-core machine, so in
// `npm run test:slow`; fit.test.ts checks the fit's rules).

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac } from "../../../helpers/cli.js";

const DIR = "bench/hardware/2026-11-24-h200x2";
const raw = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("fitting a CUDA target on a peer run", () => {
  it("the 2x H200 peer run: held-out median 4.2 % (was 11.0 % with the datasheet's 450 GB/s), NVLink 380 GB/s", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "dmac-fit-")), "fitted.json");
    const args = ["measure", `${DIR}/results.json`, "--target", `${DIR}/target.json`];
    args.push("--variants", "runtime/cuda/variants-peer.tsv", "--fit", "-o", out);
    const r = await dmac(...args);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /after the fit, held-out sizes: median error 4\.2% over 42 runs \(max 19\.5%\);/,
    );
    expect(r.out).toMatch(/peerGBps 380\.0/);
    // With two ranks a batch holds one copy (a plain copy), and there are no host copies.
    expect(r.out).toMatch(
      /not constrained by these runs \(kept as given\): hostBatchItemUs, batchItemUs, h2dGBps, d2hGBps/,
    );
    const fitted = raw(out);
    const timing = fitted["timing"] as Record<string, { value: number; source: string }>;
    expect((fitted["nvlink"] as { perDirectionGBps: number }).perDirectionGBps).toBe(380);
    expect(timing["batchItemUs"]!.source).toMatch(/h100/);
    expect(timing["launchUs"]!.source).toMatch(
      /fitted on bench\/hardware\/2026-11-24-h200x2\/results.json, on every other size/,
    );
    // The committed fitted target is this command's output.
    expect(fitted["timing"]).toEqual(raw(`${DIR}/target.fitted.json`)["timing"]);
  });
});
