// Red-team class 5 (issue 11): inconsistent manifests were accepted and "verified". A `.bin`
// longer or shorter than its `dwords` (or with trailing bytes), memory regions that are empty, too
// small, overlapping or without the host region, relocations that rewrite a header dword, have a
// wrong addend or name an unknown region or queue, empty or swapped `completionSlots`,
// `protocol: "fence"` over ATOMIC streams and a sync word re-declared as a signal all ran and
// printed "verified" (exit 0): a runtime allocating and rebasing by such a manifest would write
// wherever it says. Each is now DMAC6011 at the edge (src/sim/validate-input.ts), exit 1.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dmac, example } from "../helpers/cli.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = mkdtempSync(join(tmpdir(), "dmac-adv-man-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Compiled outputs of a few examples (sdma and trace), made once. */
const SEEDS = ["broadcast", "ring_all_gather", "pipelined_all_gather"] as const;
beforeAll(async () => {
  for (const s of SEEDS) {
    const r = await dmac(
      "compile",
      example(`${s}.dmac`),
      "-o",
      join(root, s),
      "--emit",
      "sdma,trace",
      // The edits below are written against sync words on the GPUs (aggressive forms).
      "--sync",
      "aggressive",
    );
    expect(r.code, r.err).toBe(0);
  }
});

let n = 0;
/** A fresh copy of a seed's output, edited by `edit` (manifest as JSON, files by name). */
function edited(
  seed: (typeof SEEDS)[number],
  edit: (m: Json, dir: string) => void,
  file = "manifest.json",
): string {
  const dir = join(root, `case${n++}`);
  cpSync(join(root, seed), dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, file), "utf8")) as Json;
  edit(m, dir);
  writeFileSync(join(dir, file), JSON.stringify(m, null, 2));
  return file === "manifest.json" ? dir : join(dir, file);
}

async function expectRefused(input: string, path: RegExp, detail: RegExp): Promise<void> {
  const r = await dmac("sim", input, "--format", "concise");
  expect(r.out).not.toMatch(/verified/);
  expect(r.code, r.err).toBe(1);
  expect(r.err).toMatch(/DMAC6011/);
  expect(r.err).toMatch(path);
  expect(r.err).toMatch(detail);
}

const bin = (dir: string, m: Json, q = 0): string => join(dir, m["queues"][q]["file"] as string);

describe("the unedited outputs verify", () => {
  for (const s of SEEDS)
    it(s, async () => {
      expect((await dmac("sim", join(root, s))).code).toBe(0);
      expect((await dmac("sim", join(root, s, "trace.json"))).code).toBe(0);
    });
});

describe("packet files must be exactly as long as their dwords", () => {
  it("a .bin with one dword more than `dwords`", async () => {
    const dir = edited("broadcast", (m, d) => {
      const b = readFileSync(bin(d, m));
      writeFileSync(bin(d, m), Buffer.concat([b, Buffer.alloc(4)]));
    });
    await expectRefused(
      dir,
      /\$\.queues\[0\]\.dwords/,
      /15 dwords \(60 bytes\), but .* is 64 bytes/,
    );
  });

  it("a .bin with trailing bytes (not a whole dword)", async () => {
    const dir = edited("broadcast", (m, d) => {
      const b = readFileSync(bin(d, m));
      writeFileSync(bin(d, m), Buffer.concat([b, Buffer.from([1, 2])]));
    });
    await expectRefused(dir, /\$\.queues\[0\]\.dwords/, /is 62 bytes/);
  });

  it("`dwords` edited, the file not", async () => {
    const dir = edited("broadcast", (m) => void (m["queues"][2]["dwords"] -= 1));
    await expectRefused(dir, /\$\.queues\[2\]\.dwords/, /14 dwords/);
  });
});

describe("memory regions: gpu0 .. gpuN-1 then host, disjoint, holding what they should", () => {
  const cases: [string, (m: Json) => void, RegExp, RegExp][] = [
    [
      "no regions at all",
      (m) => void (m["memory"]["regions"] = []),
      /\$\.memory\.regions/,
      /0 regions/,
    ],
    [
      "the host region missing",
      (m) => void m["memory"]["regions"].pop(),
      /\$\.memory\.regions/,
      /8 regions, but a 8-GPU manifest has 9/,
    ],
    [
      "a region too small for its buffer",
      (m) => void (m["memory"]["regions"][1]["size"] = 4096),
      /\$\.memory\.buffers\[1\]/,
      /not inside region gpu1/,
    ],
    [
      "the host region too small for the completion signals",
      (m) => void (m["memory"]["regions"][8]["size"] = 64),
      /\$\.memory\.completionSignals/,
      /not inside region host/,
    ],
    [
      "two regions overlapping",
      (m) => {
        const r = m["memory"]["regions"];
        r[0]["size"] = r[1]["base"] - r[0]["base"] + 4096;
      },
      /\$\.memory\.regions\[1\]/,
      /overlaps \$\.memory\.regions\[0\]/,
    ],
    [
      "the host region marked as a device",
      (m) => void (m["memory"]["regions"][8]["kind"] = "device"),
      /\$\.memory\.regions\[8\]/,
      /expected region 8 to be host/,
    ],
  ];
  for (const [name, edit, path, detail] of cases)
    it(name, async () => expectRefused(edited("broadcast", edit), path, detail));
});

describe("relocations", () => {
  const cases: [string, (m: Json) => void, RegExp, RegExp][] = [
    [
      "rewriting a packet header",
      (m) => void (m["relocations"][0]["entries"][0] = 0),
      /\$\.relocations\[0\]\.entries\[0\]/,
      /dword 0 of gpu0\.sdma2\.bin is not the low half of an address .*COPY_LINEAR/,
    ],
    [
      "a wrong addend",
      (m) => void (m["relocations"][0]["entries"][2] += 64),
      /\$\.relocations\[0\]\.entries\[2\]/,
      /dword 3 of gpu0\.sdma2\.bin holds 0x700000000000, not gpu0 \+ 64/,
    ],
    [
      "an unknown region",
      (m) => void (m["relocations"][0]["entries"][1] = 99),
      /\$\.relocations\[0\]\.entries\[1\]/,
      /99 is outside \[0, 9\)/,
    ],
    [
      "an unknown queue",
      (m) => void (m["relocations"][0]["queue"] = "gpu9.sdma2"),
      /\$\.relocations\[0\]\.queue/,
      /"gpu9\.sdma2" is not a queue of this manifest/,
    ],
    [
      "a dword past the stream",
      (m) => void (m["relocations"][0]["entries"][0] = 15),
      /\$\.relocations\[0\]\.entries\[0\]/,
      /15 is outside \[0, 14\)/,
    ],
  ];
  for (const [name, edit, path, detail] of cases)
    it(name, async () => expectRefused(edited("broadcast", edit), path, detail));
});

describe("completion slots and protocol", () => {
  it("a queue listing no slot while its stream signals one", async () => {
    const dir = edited("broadcast", (m) => void (m["queues"][0]["completionSlots"] = []));
    await expectRefused(
      dir,
      /\$\.queues\[0\]\.completionSlots/,
      /lists no slot, but gpu0\.sdma2\.bin signals slots \[2\]/,
    );
  });

  it("two queues' slots swapped", async () => {
    const dir = edited("broadcast", (m) => {
      const q = m["queues"];
      [q[0]["completionSlots"], q[1]["completionSlots"]] = [
        q[1]["completionSlots"],
        q[0]["completionSlots"],
      ];
    });
    await expectRefused(
      dir,
      /\$\.queues\[0\]\.completionSlots/,
      /lists slots \[3\], but .* signals slots \[2\]/,
    );
  });

  it("one slot listed by two queues", async () => {
    const dir = edited("broadcast", (m) => {
      m["queues"][1]["completionSlots"] = [...m["queues"][0]["completionSlots"]];
    });
    await expectRefused(dir, /\$\.queues\[1\]\.completionSlots\[0\]/, /slot 2 is already listed/);
  });

  it('protocol "fence" over streams that signal with ATOMIC', async () => {
    const dir = edited("broadcast", (m) => void (m["completion"]["protocol"] = "fence"));
    await expectRefused(
      dir,
      /\$\.completion\.protocol/,
      /signals completion slot 2 with an ATOMIC add64 of -1/,
    );
  });

  it('a trace: protocol "fence" over atomic commands', async () => {
    const trace = edited(
      "broadcast",
      (t) => void (t["completion"]["protocol"] = "fence"),
      "trace.json",
    );
    await expectRefused(
      trace,
      /\$\.queues\[0\]\.cmds\[1\]/,
      /an atomic add64 of -1, but .*"fence"/,
    );
  });

  it("a trace: no memory regions", async () => {
    const trace = edited("broadcast", (t) => void (t["memory"]["regions"] = []), "trace.json");
    await expectRefused(trace, /\$\.memory\.regions/, /0 regions/);
  });
});

describe("signals and sync words", () => {
  it("a sync word re-declared as a user signal", async () => {
    const dir = edited("ring_all_gather", (m) => {
      const w = m["memory"]["syncWords"].shift();
      m["memory"]["signals"].push({ name: "ready", id: 0, gpu: w["gpu"], address: w["address"] });
    });
    await expectRefused(dir, /\$\.memory\.signals\[0\]/, /not a signal of the schedule/);
  });

  it("a user signal renamed", async () => {
    const dir = edited(
      "pipelined_all_gather",
      (m) => void (m["memory"]["signals"][0]["name"] = "go"),
    );
    await expectRefused(dir, /\$\.memory\.signals\[0\]\.name/, /signal 0 is ready/);
  });
});
