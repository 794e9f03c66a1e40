// `.prettierignore` for `dmac fmt`'s directory walk: gitignore patterns, as prettier applies them
// (`#` comments, `!` to include again, a trailing `/` for directories only, a pattern with a `/`
// anchored at the file's directory, `*`, `?`, `[...]` and `**`). Read like every input, through
// src/util/read-input.ts (prettier's getFileInfo read it itself: a FIFO blocked, a directory
// threw), once, not once per file.

import { dirname, relative, sep } from "node:path";
import { readInputText } from "../util/read-input.js";

interface Rule {
  readonly regex: RegExp;
  readonly include: boolean;
  readonly dirOnly: boolean;
}

/** Whether a file found by the walk is ignored. */
export type IsIgnored = (path: string) => boolean;

/** An honest ignore file has a few dozen lines; this bounds the work per file walked. */
export const MAX_IGNORE_FILE_BYTES = 64 * 1024;

/** The patterns of the ignore file at `path` (absolute); throws InputFileError. */
export function readIgnoreFile(path: string): IsIgnored {
  const text = readInputText(path, { maxBytes: MAX_IGNORE_FILE_BYTES, what: "an ignore file" });
  const rules = text.split(/\r?\n/).flatMap((line) => {
    const rule = parseRule(line);
    return rule === undefined ? [] : [rule];
  });
  const base = dirname(path);
  return (file) => {
    const parts = relative(base, file).split(sep);
    // A file under an ignored directory is ignored, whatever follows (as in git).
    for (let i = 1; i <= parts.length; i++) {
      if (matches(rules, parts.slice(0, i).join("/"), i < parts.length)) return true;
    }
    return false;
  };
}

/** Whether the last rule that matches `path` ignores it. */
function matches(rules: readonly Rule[], path: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if ((!rule.dirOnly || isDir) && rule.regex.test(path)) return !rule.include;
  }
  return false;
}

function parseRule(line: string): Rule | undefined {
  let p = line.trimEnd();
  if (p.endsWith("\\") && p.length < line.length) p += " "; // an escaped trailing blank
  if (p === "" || p.startsWith("#")) return undefined;
  const include = p.startsWith("!");
  if (include) p = p.slice(1);
  const dirOnly = p.endsWith("/");
  if (dirOnly) p = p.slice(0, -1);
  const anchored = p.includes("/");
  if (p.startsWith("/")) p = p.slice(1);
  if (p === "") return undefined;
  const body = globToRegex(p);
  return { regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), include, dirOnly };
}

/** A gitignore glob as a regular expression's source, over `/`-separated relative paths. */
function globToRegex(glob: string): string {
  // Where the next `]` is, from each index: one pass, not a search from every `[`.
  const close: number[] = [];
  for (let i = glob.length - 1, next = -1; i >= 0; i--)
    close[i] = next = glob[i] === "]" ? i : next;
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (glob.startsWith("**/", i) && (i === 0 || glob[i - 1] === "/")) {
      out += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i) && i + 2 === glob.length && glob[i - 1] === "/") {
      out += ".*";
      i += 1;
    } else if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "[" && (close[i + 2] ?? -1) > 0) {
      const end = close[i + 2]!;
      const set = glob
        .slice(i + 1, end)
        .replace(/^!/, "^")
        .replace(/[\\\]]/g, "\\$&");
      out += `[${set}]`;
      i = end;
    } else if (ch === "\\" && i + 1 < glob.length) out += escape(glob[++i]!);
    else out += escape(ch);
  }
  return out;
}

const escape = (ch: string): string => ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
