// Oracles of the formatter tests: what a .dmac file means (its AST without positions, and the IR
// of every schedule with its source positions removed, plus the diagnostic codes), and its
// comments in order. Formatting must keep all three.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { analyzeSource } from "../../../src/driver/analyze.js";
import { parseSource } from "../../../src/frontend/parse.js";
import { printIr } from "../../../src/ir/print.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { scanComments } from "../../../src/fmt/comments.js";
import { lex } from "../../../src/frontend/lexer.js";

/** The AST as JSON without spans; then, per schedule, the IR text without positions. */
export function meaning(text: string): string {
  const file = makeSourceFile("x.dmac", text);
  const { program } = parseSource(file);
  const ast = JSON.stringify(program, (k, v: unknown) =>
    k === "span" || k === "typeSpan" ? undefined : v,
  );
  const parts = [ast];
  for (const item of program.items) {
    if (item.kind !== "schedule") continue;
    const result = analyzeSource(file, { schedule: item.name.name, defines: {} });
    parts.push(`schedule ${item.name.name}: ${result.diagnostics.map((d) => d.code).join(",")}`);
    for (const m of result.modules) parts.push(printIr(m).replace(/ at \d+:\d+-\d+:\d+/g, ""));
  }
  return parts.join("\n");
}

/** The comments of a file that lexes cleanly, in order, without trailing blanks. */
export function comments(text: string): string[] {
  const file = makeSourceFile("x.dmac", text);
  return scanComments(file.text, lex(file).tokens).map((c) => c.value.replace(/[ \t]+$/gm, ""));
}

/** Every .dmac file below `dir` (not node_modules or dist). */
export function dmacFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dmacFiles(path));
    else if (name.endsWith(".dmac")) out.push(path);
  }
  return out.sort();
}
