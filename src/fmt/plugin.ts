// dmac's prettier plugin: `prettier --plugin dmac/prettier-plugin --write "**/*.dmac"`, and what
// `dmac fmt` runs (format.ts). The language, its parser and its printer; the options that make
// the layout of examples/*.dmac are the defaults here, and `dmac fmt` always uses them. The
// parser attaches the comments (attach.ts): the printer has no `canAttachComment`, so prettier
// does not attach them again.

import type { Parser, Printer, SupportLanguage } from "prettier";
import type { CommentNode } from "./comments.js";
import { parseDmac } from "./parse.js";
import { printComment, printNode } from "./print.js";
import { CHILD_KEYS, type FmtNode } from "./tree.js";

type Node = FmtNode | CommentNode;

export const languages: SupportLanguage[] = [
  {
    name: "dmac",
    parsers: ["dmac"],
    extensions: [".dmac"],
    vscodeLanguageIds: ["dmac"],
  },
];

const locStart = (node: Node): number => node.start;
const locEnd = (node: Node): number => node.end;

export const parsers: Record<string, Parser<Node>> = {
  dmac: { parse: parseDmac, astFormat: "dmac", locStart, locEnd },
};

export const printers: Record<string, Printer<Node>> = {
  dmac: {
    print: printNode,
    printComment,
    isBlockComment: (node) => node.type === "comment" && node.kind === "block",
    getVisitorKeys: (node) => (node.type === "comment" ? [] : [...CHILD_KEYS[node.type]]),
  },
};

/** The layout of the examples: 100 columns, two spaces, LF. */
export const defaultOptions = { printWidth: 100, tabWidth: 2, useTabs: false };

export default { languages, parsers, printers, defaultOptions };
