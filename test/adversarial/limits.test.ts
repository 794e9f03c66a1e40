// Red-team class 7b (issue 11): programs inside the documented limits exhausted memory or time.
// Dependency inference was quadratic (20,000 copies reading growing prefixes of one buffer: out of
// memory), ensures over a buffer written in many pieces were checked piece by piece (10^4 ensures
// x 10^4 pieces), whole-buffer copies of a fragmented buffer made quadratic edges and provenance,
// `--max-copy-bytes 3` (or a target with a 1-byte packet limit) split copies into hundreds of
// millions of packets, a 128 MiB stream of NOPs went through disasm and sim whole, and the
// default --max-ops (4M) let programs through that could not be compiled in the default heap.
// Now: near-linear dependency inference and ensure checking, located limits past the rest
// (DMAC3024 edges, DMAC3025 provenance pieces, DMAC4010 packets), a streamed disasm listing, and
// --max-ops 2,000,000. The full-size measurements are in docs/safety.md; the cases here are
// scaled to run in seconds (the limits scale with --max-ops).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runDisasm } from "../../src/cli/commands/disasm.js";
import { DEFAULT_MAX_OPS } from "../../src/ir/instantiate.js";
import { dmac, example } from "../helpers/cli.js";

const root = mkdtempSync(join(tmpdir(), "dmac-adv-limits-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
};
const timed = async (...args: string[]) => {
  const t0 = performance.now();
  const r = await dmac(...args, "--format", "concise");
  return { ...r, ms: performance.now() - t0 };
};

const PREFIXES = write(
  "prefixes.dmac",
  `target mi300x
schedule prefixes(n: int = 20000) {
  buffer a: 4B * n
  buffer b: 4B * n
  for i in 0..n {
    copy a@0[0 +: 4B * (i + 1)] -> b@1[0 +: 4B * (i + 1)]
  }
}
`,
);

describe("dependency inference is near-linear", () => {
  it("20,000 copies reading growing prefixes of one buffer: checked in seconds", async () => {
    // Before: every 4-byte piece kept its own list of the readers since (2 * 10^8 list nodes).
    const r = await timed("check", PREFIXES);
    expect(r.code, r.err).toBe(0);
    expect(r.ms).toBeLessThan(8000);
  });
});

describe("ensure checking is near-linear", () => {
  it("20,000 ensures over a buffer written in 20,000 pieces", async () => {
    const p = write(
      "fragens.dmac",
      `target mi300x
schedule fragens(n: int = 20000) {
  buffer a: 1B * n on 0
  for i in 0..n {
    fill a@0[1B * i +: 1B] with 1
  }
  for _i in 0..n {
    ensure a@0 == 1
  }
}
`,
    );
    const r = await timed("check", p);
    expect(r.code, r.err).toBe(0);
    expect(r.ms).toBeLessThan(8000);
  });

  it("3,000 failing ensures over 3,000 pieces: one bounded report (was 2.6 GB)", async () => {
    const p = write(
      "fragbad.dmac",
      `target mi300x
schedule fragbad(n: int = 3000) {
  buffer a: 2B * n on 0
  for i in 0..n {
    fill a@0[2B * i +: 1B] with 1
  }
  for _i in 0..n {
    ensure a@0 == 1
  }
}
`,
    );
    const r = await timed("check", p);
    expect(r.code).toBe(1);
    // The first wrong pieces, a count, and the instances past the walk budget only counted.
    expect(r.err).toMatch(
      /DMAC3021 ensure does not hold: (likely cause: [^.]*\. )?when _i = 0: a@0\[1 \+: 1\] holds its own initial bytes .*\(\d+ more\); \(and \d+ more failing instances, not examined\)/,
    );
    expect(r.ms).toBeLessThan(8000);
  });
});

describe("quadratic edges and provenance stop at located limits (DMAC3024, DMAC3025)", () => {
  // 8 per allowed op: --max-ops 20000 allows 160,000 of each.
  it("a fragmented buffer copied whole many times: DMAC3024 at the copy", async () => {
    const p = write(
      "fragcopy.dmac",
      `target mi300x
schedule fragcopy(n: int = 1000) {
  buffer a: 2B * n
  for i in 0..n {
    fill a@0[2B * i +: 1B] with 1
  }
  for _i in 0..n {
    copy a@0 -> a@1
  }
}
`,
    );
    const r = await timed("check", p, "--max-ops", "20000");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/fragcopy\.dmac:8:5: DMAC3024 .*more than 160000 edges/);
    // Within the limit it is fine.
    expect((await timed("check", p, "-D", "n=100", "--max-ops", "20000")).code).toBe(0);
  });

  it("a fragmented copy copied again and again: DMAC3025 at the copy", async () => {
    const p = write(
      "fragprov.dmac",
      `target mi300x
schedule fragprov(n: int = 1000) {
  buffer a: 2B * n
  buffer c: 2B * n
  for i in 0..n {
    fill a@0[2B * i +: 1B] with 1
  }
  copy a@0 -> a@1
  for _i in 0..n {
    copy a@1 -> c@2
  }
  ensure c@2 == a@1
}
`,
    );
    const r = await timed("check", p, "--max-ops", "20000");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/fragprov\.dmac:10:5: DMAC3025 .*more than 160000 pieces/);
  });
});

describe("packets are counted before they are built (DMAC4010)", () => {
  it("--max-copy-bytes 3 on a 1 GiB broadcast: located, at once", async () => {
    const r = await timed(
      "compile",
      example("broadcast.dmac"),
      "-D",
      "size=1GiB",
      "--max-copy-bytes",
      "3",
      "-o",
      join(root, "o3"),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/broadcast\.dmac:7:5: DMAC4010 .*more than 4000000 data packets/);
    expect(r.ms).toBeLessThan(5000);
  });

  it("a target whose packets are 1 byte: compile and sim stop at the limit", async () => {
    const t = JSON.parse(readFileSync("targets/mi300x.json", "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    t["limits"].maxCopyBytes = 1;
    const target = write("one-byte.json", JSON.stringify(t));
    for (const cmd of [["sim"], ["compile", "-o", join(root, "o1b")]]) {
      const r = await timed(
        cmd[0]!,
        example("broadcast.dmac"),
        ...cmd.slice(1),
        "--target",
        target,
      );
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/DMAC4010/);
    }
  });

  it("--max-packets lowers and raises the limit (compile and sim)", async () => {
    const ag = example("all_gather_pcpy.dmac");
    expect((await timed("compile", ag, "-o", join(root, "mp"), "--max-packets", "10")).err).toMatch(
      /DMAC4010 .*more than 10 data packets/,
    );
    expect((await timed("sim", ag, "--max-packets", "100")).err).toMatch(/DMAC4010/);
    expect((await timed("sim", ag, "--max-packets", "1000")).code).toBe(0);
  });

  it("a manifest whose stream holds more packets than sim runs is refused before decoding", async () => {
    const out = join(root, "nops");
    expect((await dmac("compile", example("broadcast.dmac"), "-o", out)).code).toBe(0);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const nops = 4_500_000; // NOP is 0: one packet per zero dword
    const bin = join(out, m["queues"][0].file as string);
    writeFileSync(bin, Buffer.concat([Buffer.alloc(4 * nops), readFileSync(bin)]));
    m["queues"][0].dwords += nops;
    writeFileSync(join(out, "manifest.json"), JSON.stringify(m));
    const r = await timed("sim", out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC4010 the streams of .* hold more than 4000000 packets/);
    expect(r.ms).toBeLessThan(5000);
  });
});

describe("disasm writes its listing a chunk at a time", () => {
  it("4M NOPs: many bounded writes, the same text as one listing", () => {
    const file = join(root, "nop.bin");
    writeFileSync(file, Buffer.alloc(16 << 20));
    const writes: number[] = [];
    let lines = 0;
    const code = runDisasm(
      file,
      { format: "concise", color: "never" },
      {
        streams: {
          out: (s) => {
            writes.push(s.length);
            for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) lines++;
          },
          err: () => {},
          isTTY: false,
        },
        exit: () => {},
      },
    );
    expect(code).toBe(0);
    expect(lines).toBe(4 << 20);
    expect(writes.length).toBeGreaterThan(32);
    expect(Math.max(...writes)).toBeLessThan(16 << 20);
  });
});

describe("the default --max-ops fits the default heap", () => {
  it("is 2,000,000", () => {
    expect(DEFAULT_MAX_OPS).toBe(2_000_000);
  });
});
