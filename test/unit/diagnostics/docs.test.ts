import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { DIAGNOSTICS } from "../../../src/diagnostics/codes.js";
import {
  DIAGNOSTIC_DOCS_BANNER,
  explainCode,
  normalizeCode,
  renderDiagnosticDocs,
} from "../../../src/diagnostics/docs.js";

const DOCS = fileURLToPath(new URL("../../../docs/diagnostics.md", import.meta.url));

describe("diagnostic docs", () => {
  it("docs/diagnostics.md is up to date (regenerate: npx vitest run test/unit/diagnostics/docs.test.ts -u)", async () => {
    await expect(renderDiagnosticDocs()).toMatchFileSnapshot(DOCS);
  });

  it("has a banner and one section per code", () => {
    const md = renderDiagnosticDocs();
    expect(md.startsWith(DIAGNOSTIC_DOCS_BANNER)).toBe(true);
    for (const code of Object.keys(DIAGNOSTICS)) expect(md).toContain(`\n## ${code}: `);
  });

  it("normalizes codes", () => {
    expect(normalizeCode("DMAC2004")).toBe("DMAC2004");
    expect(normalizeCode(" dmac2004 ")).toBe("DMAC2004");
    expect(normalizeCode("2004")).toBe("DMAC2004");
    expect(normalizeCode("9999")).toBeUndefined();
    expect(normalizeCode("DMAC")).toBeUndefined();
    expect(normalizeCode("toString")).toBeUndefined();
  });

  it("explains a code with title, severity, phase and doc", () => {
    const text = explainCode("DMAC2008");
    expect(text).toMatch(/^DMAC2008: unused name\nseverity: warning, phase: check\n\n/);
    expect(text).toContain(DIAGNOSTICS.DMAC2008.doc);
  });
});
