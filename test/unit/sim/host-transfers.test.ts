// Host transfers are first-class (issue 30 item 7): `dmac sim` reports each host link's bytes
// (PCIe, per GPU and direction) beside the xGMI links, the trace names an upload `host->gpu0`
// and draws a PCIe counter, and busbw is n/a (null in JSON, empty in CSV) where it is not
// defined, everywhere: sim, sweep's table, CSV and plot. sweep takes --signal-period as sim does.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dmac, example } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-host-transfers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const UPLOAD = example("host_upload_pieces.dmac");

describe("host transfers in sim", () => {
  it("the summary lists the host link and says busbw is n/a", async () => {
    const r = await dmac("sim", UPLOAD);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^pcie +1 host link direction carries 7 KiB/m);
    expect(r.out).toMatch(/^ {2}gpu0 upload +7 KiB/m);
    expect(r.out).toMatch(/^algbw \/ busbw +n\/a/m);
  });

  it("--json: a pcie entry, and null bandwidths", async () => {
    const doc = JSON.parse((await dmac("sim", UPLOAD, "--json")).out) as Record<string, unknown>;
    expect(doc["pcie"]).toEqual([
      { gpu: 0, direction: "upload", bytes: 7168, utilisation: expect.any(Number) },
    ]);
    expect(doc["algbwGBps"]).toBeNull();
    expect(doc["busbwGBps"]).toBeNull();
    const ag = JSON.parse((await dmac("sim", example("all_gather_pcpy.dmac"), "--json")).out);
    expect(ag.pcie).toEqual([]);
    expect(ag.busbwGBps).toBeGreaterThan(0);
  });

  it("the trace names the upload host->gpu0 and has the host link's counter", async () => {
    const out = join(dir, "t.json");
    expect((await dmac("sim", UPLOAD, "-o", out)).code).toBe(0);
    const events = (
      JSON.parse(readFileSync(out, "utf8")) as {
        traceEvents: { name: string; ph: string; cat: string }[];
      }
    ).traceEvents;
    const names = new Set(events.filter((e) => e.cat === "engine").map((e) => e.name));
    expect(names).toContain("COPY_LINEAR host->gpu0");
    expect([...names].some((n) => n.includes("gpu0->gpu0"))).toBe(false);
    const counters = new Set(events.filter((e) => e.ph === "C").map((e) => e.name));
    expect(counters).toEqual(new Set(["pcie gpu0 upload"]));
  });
});

describe("host transfers in sweep", () => {
  it("n/a in the table, empty CSV cells, no empty bandwidth panel", async () => {
    const out = join(dir, "sweep");
    const r = await dmac(
      "sweep",
      UPLOAD,
      "--param",
      "total",
      "--sizes",
      "8KiB..16KiB",
      "--out",
      out,
      "--quiet",
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^ +8 KiB +[\d.]+ µs +n\/a +n\/a +14 +yes$/m);
    const csv = readFileSync(join(out, "sweep.csv"), "utf8").split("\n")[1]!;
    expect(csv).toMatch(/,8192,[\d.]+,,,,,14,true,$/);
    expect(readFileSync(join(out, "sweep.svg"), "utf8")).not.toMatch(/Bus bandwidth/);
  });

  it("--signal-period is taken, and changes what a schedule waiting on flags takes", async () => {
    const args = [
      example("pipelined_all_gather.dmac"),
      "--param",
      "chunk",
      "--sizes",
      "1MiB",
      "--json",
    ];
    const at0 = JSON.parse((await dmac("sweep", ...args)).out);
    const slow = JSON.parse((await dmac("sweep", ...args, "--signal-period", "50")).out);
    const time = (doc: { series: { points: { totalUs: number }[] }[] }) =>
      doc.series[0]!.points[0]!.totalUs;
    expect(time(slow)).toBeGreaterThan(time(at0));
  });
});
