// An in-process LSP client/server pair for the protocol tests: the server (src/lsp/server.ts) on
// one vscode-languageserver connection, a vscode-jsonrpc client on the other end of two
// in-memory streams. Messages go through the real JSON-RPC framing, as over stdio.

import { PassThrough } from "node:stream";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import type { PublishDiagnosticsParams } from "vscode-languageserver";
import { createConnection } from "vscode-languageserver/node";
import { startServer } from "../../../src/lsp/server.js";

export interface TestClient {
  readonly connection: MessageConnection;
  /** The next publishDiagnostics for `uri` (or the last one already received for `version`). */
  diagnostics(uri: string, version?: number): Promise<PublishDiagnosticsParams>;
  open(uri: string, text: string, version?: number): void;
  close(): void;
}

export async function startTestClient(): Promise<TestClient> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  startServer(createConnection(toServer, toClient), { debounceMs: 5 });
  const connection = createMessageConnection(
    new StreamMessageReader(toClient),
    new StreamMessageWriter(toServer),
  );
  const received: PublishDiagnosticsParams[] = [];
  const waiting: {
    uri: string;
    version: number | undefined;
    resolve: (p: PublishDiagnosticsParams) => void;
  }[] = [];
  connection.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
    received.push(p);
    for (const w of [...waiting]) {
      if (w.uri === p.uri && (w.version === undefined || w.version === p.version)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(p);
      }
    }
  });
  connection.listen();
  await connection.sendRequest("initialize", { processId: null, rootUri: null, capabilities: {} });
  await connection.sendNotification("initialized", {});
  return {
    connection,
    diagnostics(uri, version) {
      const done = received.findLast((p) => p.uri === uri && p.version === version);
      if (done && version !== undefined) return Promise.resolve(done);
      return new Promise((resolve) => waiting.push({ uri, version, resolve }));
    },
    open(uri, text, version = 1) {
      void connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "dmac", version, text },
      });
    },
    close() {
      // Only the client side: the server connection exits the process when its input ends.
      connection.dispose();
    },
  };
}
