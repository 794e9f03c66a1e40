// Preload for whole-process measurements: `node --import ./bench/usage-at-exit.js PROGRAM ...`
// prints, as the last line on standard error when the process exits, one JSON line
// {"code": exit code, "cpuMs": user + system CPU time, "maxRssKiB": peak resident memory}.
// It adds one small module to the process it measures (< 1 ms), the same for every command
// compared (bench/run.js's start-up pairs, test/unit/perf/startup-ratio.test.ts).
process.on("exit", (code) => {
  const u = process.cpuUsage();
  const usage = {
    code,
    cpuMs: (u.user + u.system) / 1000,
    maxRssKiB: process.resourceUsage().maxRSS,
  };
  process.stderr.write(`\n${JSON.stringify(usage)}\n`);
});
