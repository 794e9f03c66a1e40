// The page `dmac sim --html FILE` / `--open` writes: one self-contained HTML file holding the
// trace, which opens Perfetto UI (https://ui.perfetto.dev) in a new window and hands it the trace
// through the UI's documented postMessage API: PING every 50 ms until the window answers PONG,
// then `{ perfetto: { buffer, title } }` with the trace's bytes as an ArrayBuffer. Nothing is
// fetched to make the page and the trace goes to no server; viewing needs the UI itself to load.
// The trace is streamed into the page (a big run's is longer than a string can be).
// Browsers block a window opened without a click, so the page also has a button for it, and a
// link that saves the trace as JSON (for an offline Perfetto or chrome://tracing).

import { StreamedData } from "../../util/streamed-data.js";

/** Where Perfetto UI lives; the page talks to this origin only. */
export const PERFETTO_ORIGIN = "https://ui.perfetto.dev";

/** How long the page pings a window that does not answer (Perfetto UI not loaded). */
const PING_FOR_MS = 30_000;

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * JSON text that can sit inside a <script> element: `<` only occurs in JSON strings, where `\u003c`
 * means the same, so no `</script>` or `<!--` can end or change the element early.
 */
const scriptSafe = (json: string): string => json.replace(/</g, "\\u003c");

/** scriptSafe for a chunk of UTF-8 (`<` is one byte there, never part of another character). */
function scriptSafeBytes(chunk: Uint8Array): Uint8Array {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (!bytes.includes(0x3c)) return chunk;
  return Buffer.from(scriptSafe(bytes.toString("latin1")), "latin1");
}

/** The page for `traceJson` (the trace's JSON text), titled `title`, saving as `fileName`. */
export function perfettoPage(traceJson: string, title: string, fileName: string): string {
  const trace = new StreamedData((write) => write(Buffer.from(traceJson)));
  return Buffer.from(perfettoPageData(trace, title, fileName).bytes()).toString();
}

/** perfettoPage of a trace produced while it is written (a big run's: chrome-trace.ts). */
export function perfettoPageData(
  trace: StreamedData,
  title: string,
  fileName: string,
): StreamedData {
  const [head, tail] = pageAround(title, fileName);
  return new StreamedData((write) => {
    write(Buffer.from(head));
    trace.writeTo((chunk) => write(scriptSafeBytes(chunk)));
    write(Buffer.from(tail));
  });
}

/** The page's text before and after the trace. */
function pageAround(title: string, fileName: string): [string, string] {
  const script = `(() => {
  const ORIGIN = ${JSON.stringify(PERFETTO_ORIGIN)};
  const title = ${scriptSafe(JSON.stringify(title))};
  const text = document.getElementById("trace").textContent;
  const status = (s) => { document.getElementById("status").textContent = s; };
  document.getElementById("save").href = URL.createObjectURL(
    new Blob([text], { type: "application/json" }),
  );
  function open() {
    const win = window.open(ORIGIN);
    if (!win) {
      status("The browser kept the window from opening: press the button.");
      return;
    }
    status("Waiting for Perfetto UI to load...");
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - started > ${PING_FOR_MS}) {
        clearInterval(timer);
        status("Perfetto UI did not answer; save the trace and open it there yourself.");
        return;
      }
      win.postMessage("PING", ORIGIN);
    }, 50);
    function onMessage(e) {
      if (e.origin !== ORIGIN || e.data !== "PONG") return;
      clearInterval(timer);
      window.removeEventListener("message", onMessage);
      const buffer = new TextEncoder().encode(text).buffer;
      win.postMessage({ perfetto: { buffer, title } }, ORIGIN);
      status("Sent to Perfetto UI.");
    }
    window.addEventListener("message", onMessage);
  }
  document.getElementById("open").addEventListener("click", open);
  open();
})();`;
  return [
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>body { font: 15px system-ui, sans-serif; margin: 2em; max-width: 46em; }</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>A <code>dmac sim</code> trace. Opening it starts Perfetto UI (${PERFETTO_ORIGIN}) in a new
window and hands it the trace from this page; the trace is sent nowhere else.
<a href="https://perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui">How this works.</a></p>
<p><button id="open">Open in Perfetto UI</button>
<a id="save" download="${escapeHtml(fileName)}">Save the trace (JSON)</a></p>
<p id="status"></p>
<script type="application/json" id="trace">`,
    `</script>
<script>
${script}
</script>
</body>
</html>
`,
  ];
}
