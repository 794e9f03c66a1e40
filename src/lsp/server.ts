// The dmac language server over one LSP connection (stdio for `dmac lsp`, in-memory streams in
// the tests). Documents are kept by vscode-languageserver's TextDocuments (incremental sync);
// each change re-checks the document after DEBOUNCE_MS of quiet and publishes its diagnostics.
// Requests analyse the current version on demand (analysis.ts caches one per document version).
// Every handler is fenced: a bug in dmac is logged to the client and answered with nothing, so
// one bad input never takes the server down.

import { formatDocument } from "./formatting.js";
import {
  TextDocumentSyncKind,
  TextDocuments,
  type Connection,
  type InitializeResult,
} from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { VERSION } from "../version.js";
import { analyzeDocument, type DocumentAnalysis } from "./analysis.js";
import { codeActions } from "./code-actions.js";
import { completionsAt } from "./completion.js";
import { toLspDiagnostic } from "./diagnostics.js";
import { hoverAt } from "./hover.js";
import { documentSymbols } from "./outline.js";
import { toOffset, toRange } from "./positions.js";
import { nameAt } from "./symbol-index.js";

/** Quiet time after the last keystroke before a document is re-checked. */
export const DEBOUNCE_MS = 200;

export interface ServerOptions {
  readonly debounceMs?: number;
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const debounceMs = options.debounceMs ?? DEBOUNCE_MS;
  const documents = new TextDocuments(TextDocument);
  const cache = new Map<string, DocumentAnalysis>();
  const timers = new Map<string, NodeJS.Timeout>();

  /** Runs `work`; an exception is a dmac bug: log it and return `fallback`. */
  function internalError(what: string, e: unknown): void {
    const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
    connection.console.error(`dmac: internal error in ${what} (a bug in dmac): ${detail}`);
  }

  function fenced<T>(what: string, fallback: T, work: () => T): T {
    try {
      return work();
    } catch (e) {
      internalError(what, e);
      return fallback;
    }
  }

  async function fencedAsync<T>(what: string, fallback: T, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      internalError(what, e);
      return fallback;
    }
  }

  function analysis(uri: string): DocumentAnalysis | undefined {
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const cached = cache.get(uri);
    if (cached?.version === doc.version) return cached;
    const fresh = analyzeDocument(uri, doc.version, doc.getText());
    cache.set(uri, fresh);
    return fresh;
  }

  function publish(uri: string): void {
    fenced("diagnostics", undefined, () => {
      const a = analysis(uri);
      if (!a) return;
      const diagnostics = a.diagnostics.map((d) => toLspDiagnostic(a, d));
      void connection.sendDiagnostics({ uri, version: a.version, diagnostics });
    });
  }

  function schedule(uri: string): void {
    clearTimeout(timers.get(uri));
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        publish(uri);
      }, debounceMs),
    );
  }

  connection.onInitialize((): InitializeResult => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      definitionProvider: true,
      documentSymbolProvider: true,
      completionProvider: { triggerCharacters: ["@"] },
      codeActionProvider: { codeActionKinds: ["quickfix"] },
      documentFormattingProvider: true,
    },
    serverInfo: { name: "dmac", version: VERSION },
  }));

  documents.onDidOpen((e) => publish(e.document.uri));
  // Opening a document also fires a content change: the open was just published.
  documents.onDidChangeContent((e) => {
    if (cache.get(e.document.uri)?.version !== e.document.version) schedule(e.document.uri);
  });
  documents.onDidClose((e) => {
    clearTimeout(timers.get(e.document.uri));
    timers.delete(e.document.uri);
    cache.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  connection.onHover((p) =>
    fenced("hover", null, () => {
      const a = analysis(p.textDocument.uri);
      return a ? hoverAt(a, toOffset(a, p.position)) : null;
    }),
  );

  connection.onDefinition((p) =>
    fenced("definition", null, () => {
      const a = analysis(p.textDocument.uri);
      if (!a) return null;
      const found = nameAt(a.symbols(), toOffset(a, p.position));
      const decl = found && ("decl" in found ? found.decl : found.use.decl);
      return decl ? { uri: a.uri, range: toRange(a, decl.nameSpan) } : null;
    }),
  );

  connection.onDocumentSymbol((p) =>
    fenced("document symbols", [], () => {
      const a = analysis(p.textDocument.uri);
      return a ? documentSymbols(a) : [];
    }),
  );

  connection.onCompletion((p) =>
    fenced("completion", [], () => {
      const a = analysis(p.textDocument.uri);
      return a ? completionsAt(a, toOffset(a, p.position)) : [];
    }),
  );

  connection.onCodeAction((p) =>
    fenced("code actions", [], () => codeActions(p.textDocument.uri, p.context.diagnostics)),
  );

  connection.onDocumentFormatting((p) =>
    fencedAsync("formatting", null, async () => {
      const doc = documents.get(p.textDocument.uri);
      return doc ? await formatDocument(doc) : null;
    }),
  );

  documents.listen(connection);
  connection.listen();
}
