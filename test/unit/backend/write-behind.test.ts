// The second-thread writer of big outputs: bytes land in order and whole, a caller may reuse its
// buffer at once, a write error (no space left) reaches the main thread with its code, and a big
// output directory written through it equals the one written directly.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WriteBehind } from "../../../src/backend/write-behind.js";
import { writeOutputDir } from "../../../src/backend/output.js";
import { StreamedData } from "../../../src/util/streamed-data.js";

const dirs: string[] = [];
const scratch = (): string => {
  const d = mkdtempSync(join(tmpdir(), "dmac-wb-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const pattern = (n: number, seed: number): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe("WriteBehind", () => {
  it("writes every chunk in order, from a buffer the caller reuses", () => {
    const d = scratch();
    const w = new WriteBehind();
    const a = openSync(join(d, "a"), "wx");
    const b = openSync(join(d, "b"), "wx");
    const buf = new Uint8Array(1 << 20);
    const wantA: number[] = [];
    for (let k = 0; k < 40; k++) {
      buf.fill(k); // reused at once: write() must have copied it
      w.write(k % 2 === 0 ? a : b, buf.subarray(0, 1000 + k));
      if (k % 2 === 0) wantA.push(...new Array<number>(1000 + k).fill(k));
    }
    w.close(a);
    w.close(b);
    w.drain();
    w.dispose();
    expect([...readFileSync(join(d, "a"))]).toEqual(wantA);
    expect(readFileSync(join(d, "b")).length).toBe(
      Array.from({ length: 20 }, (_, i) => 1001 + 2 * i).reduce((x, y) => x + y, 0),
    );
  });

  it("waits for the worker when its ring is full, and loses nothing", () => {
    const d = scratch();
    const w = new WriteBehind();
    const fd = openSync(join(d, "big"), "wx");
    const chunk = pattern(4 << 20, 7);
    for (let k = 0; k < 24; k++) w.write(fd, chunk); // 96 MiB through a 32 MiB ring
    w.close(fd);
    w.drain();
    w.dispose();
    const got = readFileSync(join(d, "big"));
    expect(got.length).toBe(24 * chunk.length);
    for (let k = 0; k < 24; k++)
      expect(
        got.subarray(k * chunk.length, (k + 1) * chunk.length).equals(Buffer.from(chunk)),
      ).toBe(true);
  });

  it("splits a chunk larger than a slot and keeps its order", () => {
    const d = scratch();
    const w = new WriteBehind();
    const fd = openSync(join(d, "split"), "wx");
    const whole = pattern((9 << 20) + 123, 5); // over two 4 MiB slots
    w.write(fd, whole);
    w.close(fd);
    w.drain();
    w.dispose();
    expect(readFileSync(join(d, "split")).equals(Buffer.from(whole))).toBe(true);
  });

  it.skipIf(!existsSync("/dev/full"))("raises the worker's write error with its code", () => {
    const w = new WriteBehind();
    const fd = openSync("/dev/full", "w");
    w.write(fd, pattern(4096, 1));
    w.close(fd);
    let caught: unknown;
    try {
      w.drain();
    } catch (e) {
      caught = e;
    } finally {
      w.dispose();
    }
    expect((caught as { code?: string }).code).toBe("ENOSPC");
  });
});

describe("writeOutputDir of a big output", () => {
  it("writes the same files on the second thread as a small output writes directly", () => {
    const d = scratch();
    const streams = pattern(9 << 20, 3); // past the 8 MiB the second thread starts at
    const listing = new StreamedData((write) => {
      for (let k = 0; k < 5; k++) write(pattern(3 << 20, k));
    });
    writeOutputDir(join(d, "out"), [
      { name: "gpu0.sdma0.bin", data: streams },
      { name: "dump.txt", data: listing },
      { name: "note.txt", data: "text\n" },
    ]);
    expect(readFileSync(join(d, "out", "gpu0.sdma0.bin")).equals(Buffer.from(streams))).toBe(true);
    expect(readFileSync(join(d, "out", "dump.txt")).equals(Buffer.from(listing.bytes()))).toBe(
      true,
    );
    expect(readFileSync(join(d, "out", "note.txt"), "utf8")).toBe("text\n");
  });
});

describe("the writer thread and the process's flags", () => {
  it("starts under --input-type=module (a worker inherits the flags of its process)", () => {
    const d = scratch();
    const output = join(process.cwd(), "dist/backend/output.js");
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { writeOutputDir } from ${JSON.stringify(output)};
         writeOutputDir(${JSON.stringify(join(d, "out"))}, [{ name: "a.bin", data: new Uint8Array(9 << 20).fill(7) }]);`,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out", "a.bin")).length).toBe(9 << 20);
  });
});

describe("a writer thread that cannot start", () => {
  const script = (out: string) => `import { writeOutputDir } from ${JSON.stringify(
    join(process.cwd(), "dist/backend/output.js"),
  )};
  writeOutputDir(${JSON.stringify(out)}, [{ name: "a.bin", data: new Uint8Array(9 << 20).fill(7) }]);`;

  it("starts under NODE_OPTIONS=--input-type=module (which execArgv does not override)", () => {
    const d = scratch();
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script(join(d, "out"))], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: "--input-type=module" },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out", "a.bin")).length).toBe(9 << 20);
  });

  it("is written for by the main thread, in full, and its error does not end the process", () => {
    const d = scratch();
    const hook = join(d, "no-workers.cjs");
    writeFileSync(
      hook,
      'if (!require("node:worker_threads").isMainThread) throw new Error("no workers here");\n',
    );
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script(join(d, "out"))], {
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        NODE_OPTIONS: `--require ${hook}`,
        DMAC_WRITE_BEHIND_START_MS: "200",
      },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(d, "out", "a.bin")).equals(Buffer.alloc(9 << 20, 7))).toBe(true);
  });
});
