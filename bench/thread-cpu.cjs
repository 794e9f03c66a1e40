// Preload for a process's CPU by thread: `node -r ./bench/thread-cpu.cjs bin/dmac.js sim DIR`
// prints, on standard error when the process exits, the CPU time (user + system, ms) of its main
// thread, of the threads still alive with another nice value (dmac sim's helper thread runs at
// nice 10 on Linux; once it has ended it is gone from the list) and of every other thread (V8's
// compiler and collector threads, libuv's pool). Linux only (/proc/self/task); elsewhere silent.
// docs/performance.md, "Where the time goes", uses it.
"use strict";
const { readdirSync, readFileSync } = require("node:fs");
const { isMainThread } = require("node:worker_threads");

function threads() {
  const out = [];
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // Fields after the command name's closing parenthesis: state is field 3.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ticks = Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (1/100 s)
      out.push({ tid: Number(tid), ms: ticks * 10, nice: Number(f[16]) });
    } catch {
      // (A thread that ended while being read.)
    }
  }
  return out;
}

if (isMainThread && process.platform === "linux")
  process.on("exit", () => {
    const all = threads();
    const main = all.find((t) => t.tid === process.pid);
    const sum = (ts) => ts.reduce((a, t) => a + t.ms, 0);
    const niced = all.filter((t) => t.tid !== process.pid && t.nice !== main?.nice);
    const rest = all.filter((t) => t.tid !== process.pid && t.nice === main?.nice);
    process.stderr.write(
      `thread CPU (ms): main ${main?.ms ?? "?"}, other nice ${sum(niced)} (${niced.length} alive), ` +
        `other ${sum(rest)} (${rest.length} threads)\n`,
    );
  });
