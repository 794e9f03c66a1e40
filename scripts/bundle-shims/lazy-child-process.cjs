// node:child_process for commander inside the bundle (scripts/bundle.mjs), loaded on first use.
// commander requires it when it loads, for subcommands that run as executables of their own, which
// dmac has none of; loading it (and node:net, which it loads) cost ~3 ms of every `dmac` start
// (docs/performance.md, "The 65,536-copy compile"). The same module, the same values, later.
"use strict";
let childProcess;
module.exports = new Proxy(
  {},
  { get: (_, name) => (childProcess ??= require("node:child_process"))[name] },
);
