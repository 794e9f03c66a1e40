// The helper thread's side of sim-helper.ts: builds a source's IR and sends it back, its typed
// arrays' memory transferred, not copied.

import { buildSourceModule, type SourceRequest } from "./sim-front-end.js";
import type { HelperReply } from "./sim-helper.js";

export function serveFrontEnd(
  req: SourceRequest,
  post: (reply: HelperReply, transfer: ArrayBuffer[]) => void,
): void {
  const source = buildSourceModule(req);
  post({ kind: "module", source }, buffersOf(source.module));
}

/** The ArrayBuffers under `root`'s typed arrays (plain objects and arrays walked), once each. */
function buffersOf(root: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer) out.add(v.buffer);
    } else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else for (const x of Object.values(v)) stack.push(x);
  }
  return [...out];
}
