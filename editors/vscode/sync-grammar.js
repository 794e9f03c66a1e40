// Copies the one TextMate grammar (editors/textmate) into this extension, which VS Code can only
// load from inside its own folder. Run by `npm install` and before packaging.
const { cpSync, mkdirSync } = require("node:fs");
const { join } = require("node:path");

mkdirSync(join(__dirname, "syntaxes"), { recursive: true });
cpSync(
  join(__dirname, "..", "textmate", "dmac.tmLanguage.json"),
  join(__dirname, "syntaxes", "dmac.tmLanguage.json"),
);
