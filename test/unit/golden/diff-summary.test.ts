// Issue 30, item 8: a `dump` golden that differs opens its report with a summary of the change
// (packets, queues and bytes moved, before and after; the queues whose packet counts changed)
// before the unified diff. Before, a pieces 4 -> 2 change of pipelined_all_gather gave a
// 1,500-line diff that opened with the listing header's `# syncN` lines and said nothing of size.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dumpSummary } from "../../../src/golden/dump-summary.js";
import { example, runCli } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-diff-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const listing = (queues: Record<string, string[]>): string =>
  "# source: x.dmac\n# sync0 at 0x0: progress a -> b\n\n" +
  Object.entries(queues)
    .map(
      ([q, lines]) => `# queue ${q}: gpu 0, engine 2, 9 dwords (${q}.bin)\n${lines.join("\n")}\n`,
    )
    .join("\n");
const COPY = (bytes: string) =>
  `00000000  00000001 0003ffff 00000000 00700000 000071c0 00700000 000070c0  COPY_LINEAR  bytes=${bytes} src=buf@7 dst=buf@3`;
const POLL =
  "0000001c  b0000008 00800000 000071c0 00000001 00000001 0fff0004  POLL_REGMEM  func=eq addr=ready@7 value=0x1";
// A packet longer than a line continues on a line with no name; `.dword` lines are no packets.
const LONG =
  "00000034  1e00000a 00800040 00007180 00000001 00000000 00000000 00000000 00000000  WRITE_LINEAR  dst=buf@0\n00000054  00000000";
const DWORD = "00000058  deadbeef  .dword 0xdeadbeef  ; unknown opcode";

describe("dumpSummary", () => {
  it("counts packets, queues and bytes (sizes or plain counts) before and after", () => {
    const before = listing({
      "gpu0.sdma2": [COPY("256 KiB"), POLL, COPY("256 KiB"), LONG, DWORD],
      "gpu1.sdma2": [COPY("262144")],
    });
    const after = listing({
      "gpu0.sdma2": [COPY("1 MiB"), POLL, LONG],
      "gpu1.sdma2": [COPY("1 MiB")],
    });
    expect(dumpSummary(before, after)).toBe(
      "dump: 5 -> 4 packets, 2 -> 2 queues, 768 KiB -> 2 MiB moved\n" +
        "packet counts that differ: gpu0.sdma2 4 -> 3\n",
    );
  });

  it("names a queue only one side has, at most four, and counts the rest", () => {
    const queues = (n: number, from: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`gpu${i + from}.sdma2`, [POLL]]));
    expect(dumpSummary(listing(queues(1, 0)), listing(queues(6, 1)))).toBe(
      "dump: 1 -> 6 packets, 1 -> 6 queues, 0 B -> 0 B moved\n" +
        "packet counts that differ: gpu0.sdma2 1 -> (none), gpu1.sdma2 (none) -> 1, gpu2.sdma2 (none) -> 1, gpu3.sdma2 (none) -> 1, and 3 more queues\n",
    );
  });

  it("one line when every queue keeps its number of packets; thousands separated", () => {
    const many = listing({ "gpu0.sdma2": Array(1040).fill(COPY("4 KiB")) });
    const same = listing({ "gpu0.sdma2": Array(1040).fill(COPY("2 KiB")) });
    expect(dumpSummary(many, same)).toBe(
      "dump: 1,040 -> 1,040 packets, 1 -> 1 queues, 4.06 MiB -> 2.03 MiB moved\n",
    );
  });
});

describe("dmac golden", () => {
  it("a differing dump's report opens with the summary, then the diff", async () => {
    const text = readFileSync(example("pipelined_all_gather.dmac"), "utf8");
    const file = join(dir, "p.dmac");
    writeFileSync(file, `/// golden: --emit dump\n${text}`);
    const wrote = await runCli(["golden", dir, "--update", "--jobs", "1"]);
    expect(wrote.code, wrote.err).toBe(0);
    writeFileSync(
      file,
      `/// golden: --emit dump\n${text.replace("pieces: int = 4", "pieces: int = 2")}`,
    );
    const r = await runCli(["golden", dir, "--jobs", "1"]);
    expect(r.code).toBe(1);
    const block = r.out.slice(r.out.indexOf("FAIL "));
    const lines = block.split("\n");
    expect(lines[0]).toMatch(/^FAIL \S*p\.dmac: dump differs from \S*p\.dump\.golden$/);
    expect(lines[1]).toMatch(
      /^dump: (\d|,)+ -> (\d|,)+ packets, 56 -> 56 queues, 56 MiB -> 56 MiB moved$/,
    );
    expect(lines[2]).toMatch(/^packet counts that differ: gpu\d\.sdma\d+ \d+ -> \d+, /);
    expect(lines[3]).toMatch(/^--- /);
    const json = await runCli(["golden", dir, "--format", "json", "--jobs", "1"]);
    const doc = JSON.parse(json.out) as { tests: { goldens: { diff?: string }[] }[] };
    expect(doc.tests[0]!.goldens[0]!.diff).toMatch(/^dump: .* moved\npacket counts .*\n--- /);
  });
});
