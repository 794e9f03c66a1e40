// The dmac VS Code extension: the TextMate grammar for colours (contributed in package.json) and
// the language server, `dmac lsp --stdio`, for everything else. All language knowledge lives in
// dmac itself; this file only starts the server and stops it with the editor.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

/** @type {LanguageClient | undefined} */
let client;

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  const config = vscode.workspace.getConfiguration("dmac.server");
  const command = config.get("command", "dmac");
  const args = [...config.get("args", []), "lsp"];
  // TransportKind.stdio makes the client add `--stdio` to the arguments.
  const run = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient(
    "dmac",
    "dmac language server",
    { run, debug: run },
    {
      documentSelector: [
        { scheme: "file", language: "dmac" },
        { scheme: "untitled", language: "dmac" },
      ],
    },
  );
  context.subscriptions.push(client);
  await client.start();
}

async function deactivate() {
  await client?.stop();
}

module.exports = { activate, deactivate };
