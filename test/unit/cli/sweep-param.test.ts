// `sweep --param chnk` (a misspelt parameter) fails before any size runs, once, with the
// did-you-mean hint (issue 30 item 9): it used to compile every size, print a table of failed rows
// and repeat the error per size.

import { describe, expect, it } from "vitest";
import { dmac, example } from "../../helpers/cli.js";

describe("sweep: mistakes no size can change", () => {
  it("a misspelt --param is one DMAC2009 with its hint, and no table", async () => {
    const r = await dmac(
      "sweep",
      example("all_gather_pcpy.dmac"),
      "--param",
      "chnk",
      "--sizes",
      "1KiB..1GiB",
      "-O",
      "0,2",
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err.match(/DMAC2009/g)).toHaveLength(1);
    expect(r.err).toMatch(/did you mean 'chunk'\?/);
  });
});

describe("sweep prints each size as it finishes", () => {
  it("one write for the head and the first size, then one per size, before the end", async () => {
    const { main } = await import("../../../src/cli/main.js");
    const writes: string[] = [];
    const code = await main(
      [
        "node",
        "dmac",
        "sweep",
        example("all_gather_pcpy.dmac"),
        "--param",
        "chunk",
        "--sizes",
        "1KiB..4KiB",
        "-O",
        "0,1",
      ],
      { out: (s) => void writes.push(s), err: () => {}, isTTY: false },
    );
    expect(code).toBe(0);
    // Several variants: the variants and the time table's head come with the first size; the
    // busbw table (which needs every size) comes last.
    expect(writes).toHaveLength(4);
    expect(writes[0]).toMatch(/^variants\n[\s\S]*\ntime +#1 +#2 +fastest\n +1 KiB /);
    expect(writes[1]).toMatch(/^ +2 KiB /);
    expect(writes[2]).toMatch(/^ +4 KiB /);
    expect(writes[3]).toMatch(/^\nbusbw GB\/s/);
  });
});
