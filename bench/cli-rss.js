// Runs the dmac CLI (dist/) in this process, then prints one JSON line on stderr's last line:
// {"code": exit code, "maxRssKiB": peak resident memory, "cpuMs": CPU time since start}. bench/run.js spawns it and measures
// the wall time around it, so the figures include Node start-up, as a user sees them.
//   node bench/cli-rss.js check examples/x.dmac
const { main } = await import(new URL("../dist/cli/main.js", import.meta.url).href);
// Output is swallowed (a benchmark measures work, not the terminal); errors are shown.
let errText = "";
const streams = { out: () => {}, err: (s) => void (errText += s), isTTY: false };
const code = await main(["node", "dmac", ...process.argv.slice(2)], streams);
if (code !== 0) process.stderr.write(errText);
process.stderr.write(
  `\n${JSON.stringify({
    code,
    maxRssKiB: process.resourceUsage().maxRSS,
    // CPU time of the whole process since start (user + system): robust to a busy machine.
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  })}\n`,
);
