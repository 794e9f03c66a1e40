// Regenerates docs/diagnostics.md from the diagnostic catalogue. Runs on the built output
// (Node 20 cannot import TypeScript): `npm run build && node scripts/gen-diagnostic-docs.mjs`.
// test/unit/diagnostics/docs.test.ts fails while the committed file is out of date
// (`npx vitest run test/unit/diagnostics/docs.test.ts -u` rewrites it as well).

import { writeFileSync } from "node:fs";
import { renderDiagnosticDocs } from "../dist/diagnostics/docs.js";

const target = new URL("../docs/diagnostics.md", import.meta.url);
writeFileSync(target, renderDiagnosticDocs());
console.log("wrote docs/diagnostics.md");
