// Golden formatting of tricky inputs (cases/NAME.input.dmac -> cases/NAME.output.dmac; re-bless
// with `npm run test:bless`). The inputs are deliberately unformatted (.prettierignore skips them).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDmac } from "../../../src/fmt/format.js";
import { comments } from "./meaning.js";

const DIR = join(import.meta.dirname, "cases");
const inputs = readdirSync(DIR).filter((f) => f.endsWith(".input.dmac"));

describe("dmac fmt goldens", () => {
  it.each(inputs)("%s", async (name) => {
    const text = readFileSync(join(DIR, name), "utf8");
    const result = await formatDmac(text);
    if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
    await expect(result.text).toMatchFileSnapshot(join(DIR, name.replace(".input.", ".output.")));
  });

  it("the comment check catches a printer that drops or reorders a comment", async () => {
    const text = readFileSync(join(DIR, "comments.input.dmac"), "utf8");
    const result = await formatDmac(text);
    if (!result.ok) throw new Error("does not parse");
    expect(comments(result.text)).toEqual(comments(text));
    const dropped = result.text.replace("// own line", "");
    expect(comments(dropped)).not.toEqual(comments(text));
    const swapped = result.text.replace("// why", "// tmp").replace("// size", "// why");
    expect(comments(swapped.replace("// tmp", "// size"))).not.toEqual(comments(text));
  });
});
