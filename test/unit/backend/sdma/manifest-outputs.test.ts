// manifest.json and its sidecar are streamed outputs (manifest.ts manifestOutputs): the JSON is
// hashed as it is written and the sidecar takes that hash and the arrays' spans. Whichever is
// produced first, the bytes are the same, and the sidecar binds the JSON it was written with.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildOutputs } from "../../../../src/driver/outputs.js";
import { outputBytes } from "../../../../src/backend/output.js";
import { readSidecar, SIDECAR_FILE } from "../../../../src/backend/sdma/manifest-sidecar.js";
import { queuesOf, sourceFile } from "../../queues/helpers.js";

const SOURCE = `target mi300x
schedule s() {
  buffer a: 4KiB
  buffer b: 4KiB
  for r in ranks {
    copy a@r[0B +: 1KiB] -> b@((r + 1) % ranks)[0B +: 1KiB]
    copy b@((r + 1) % ranks)[0B +: 1KiB] -> a@((r + 1) % ranks)[1KiB +: 1KiB]
  }
}
`;

function files() {
  const file = sourceFile(SOURCE);
  const out = buildOutputs(file, queuesOf(file), { emit: ["sdma"] });
  expect(out.diagnostics).toEqual([]);
  const byName = new Map(out.files!.map((f) => [f.name, f]));
  return { json: byName.get("manifest.json")!, sidecar: byName.get(SIDECAR_FILE)! };
}

describe("manifestOutputs", () => {
  it("gives the same bytes whether the JSON or the sidecar is produced first", () => {
    const a = files();
    const jsonFirst = outputBytes(a.json);
    const sidecarAfter = outputBytes(a.sidecar);
    const b = files();
    const sidecarFirst = outputBytes(b.sidecar);
    const jsonAfter = outputBytes(b.json);
    expect(Buffer.from(jsonAfter).equals(Buffer.from(jsonFirst))).toBe(true);
    expect(Buffer.from(sidecarFirst).equals(Buffer.from(sidecarAfter))).toBe(true);
  });

  it("binds the sidecar to the JSON's SHA-256 and reads back the spans it recorded", () => {
    const { json, sidecar } = files();
    const text = outputBytes(json) as Uint8Array;
    const side = outputBytes(sidecar) as Uint8Array;
    const digest = createHash("sha256").update(text).digest();
    expect(Buffer.from(side.subarray(16, 48)).equals(digest)).toBe(true);
    const got = readSidecar(text, side);
    expect("skeleton" in got && got.arrays.length).toBeGreaterThan(0);
  });
});
