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
