const t0 = performance.now();
for (const m of process.argv.slice(2)) await import(m);
console.log(process.argv.slice(2).join(" "), (performance.now() - t0).toFixed(0), "ms");
