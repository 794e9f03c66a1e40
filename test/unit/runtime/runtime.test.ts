// The CUDA runtime library's host half and the Python package, without a GPU (issue 33 item 5):
// g++ builds runtime/cuda/program.cc alone (the program parser and the binding checks: what
// `make -C runtime/cuda host` builds), dmac compiles two programs, the byte check's per-thread
// loop runs on them (byte-check.cc), and the package's unittest suite
// (runtime/python/tests/test_program.py) runs against both. Skipped, saying why, where g++
// or python3 is missing. The GPU half runs on a GPU machine: runtime/cuda/gpu-check.sh. Also the
// PyTorch example of docs/runtime.md: the doc's copy is the file, which compiles, and so does the
// program its first lines compile.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac, example } from "../../helpers/cli.js";

const has = (cmd: string): boolean => {
  try {
    execFileSync(cmd, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const missing = ["g++", "python3"].filter((c) => !has(c));
if (missing.length > 0) console.warn(`runtime tests skipped: ${missing.join(" and ")} not found`);

describe.skipIf(missing.length > 0)("the runtime library without a GPU", () => {
  it("parses programs, checks bindings and the Python package's arguments", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-runtime-"));
    const lib = join(dir, "libdmac_host.so");
    execFileSync(
      "g++",
      ["-O1", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"].concat([
        "-o",
        lib,
        "runtime/cuda/program.cc",
      ]),
    );
    // A 4-GPU h200 (the lent 4x H200 machines), as bench/hardware/overlap compiles for.
    const target = JSON.parse(readFileSync("targets/h200.json", "utf8"));
    writeFileSync(join(dir, "h200x4.json"), JSON.stringify({ ...target, name: "h200x4", gpus: 4 }));
    const compile = async (src: string, out: string, ...opts: string[]) => {
      const r = await dmac("compile", example(src), "-o", join(dir, out), ...opts);
      expect(r.code, r.err).toBe(0);
    };
    await compile(
      "all_gather_b2b.dmac",
      "all_gather",
      "--target",
      join(dir, "h200x4.json"),
      "-D",
      "engine=0",
      "-D",
      "chunk=4KiB",
      "-O1",
      "--prelaunch",
    );
    await compile("host_upload_pieces.dmac", "upload", "--target", "h100", "-O1", "--prelaunch");
    // The byte check's per-thread loop (what the GPU kernel runs), on the same programs.
    const check = join(dir, "byte-check");
    execFileSync(
      "g++",
      ["-O1", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", "runtime/cuda"].concat([
        "-o",
        check,
        "test/unit/runtime/byte-check.cc",
        "runtime/cuda/program.cc",
      ]),
    );
    const programs = ["all_gather", "upload"].map((p) => join(dir, p, "program.txt"));
    expect(execFileSync(check, programs, { encoding: "utf8" })).toMatch(/^byte-check: ok$/m);
    const r = spawnSync(
      "python3",
      ["-m", "unittest", "discover", "-s", "runtime/python/tests", "-p", "test_*.py"],
      {
        env: { ...process.env, DMAC_RUNTIME_LIB: lib, DMAC_TEST_PROGRAMS: dir },
        encoding: "utf8",
      },
    );
    expect(r.stderr).toMatch(/^OK$/m);
    expect(r.stderr).not.toMatch(/skipped/);
    expect(r.status).toBe(0);
  }, 60_000);

  it("the docs' PyTorch example is runtime/python/examples/all_gather.py, and its command compiles", async () => {
    const file = "runtime/python/examples/all_gather.py";
    const text = readFileSync(file, "utf8");
    expect(readFileSync("docs/runtime.md", "utf8")).toContain("```python\n" + text + "```");
    const code = text.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    expect(code.length).toBeLessThanOrEqual(16);
    const dir = mkdtempSync(join(tmpdir(), "dmac-example-"));
    execFileSync("python3", ["-m", "py_compile", file], {
      env: { ...process.env, PYTHONPYCACHEPREFIX: dir },
    });
    const command = /dmac compile (.*) -o ag$/m.exec(text)![1]!.split(" ");
    const target = JSON.parse(readFileSync("targets/h200.json", "utf8"));
    writeFileSync(join(dir, "h200x4.json"), JSON.stringify({ ...target, name: "h200x4", gpus: 4 }));
    const args = command.map((a) => (a === "h200x4.json" ? join(dir, "h200x4.json") : a));
    const r = await dmac("compile", ...args, "-o", join(dir, "ag"));
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(dir, "ag", "program.txt"), "utf8")).toMatch(/^gpus 4$/m);
  });
});
