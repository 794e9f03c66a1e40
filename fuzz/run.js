// Launcher for `npm run fuzz`: the fuzzers are TypeScript (fuzz/*.ts), compiled by
// `tsc -p fuzz/tsconfig.json` into dist/fuzz/, and drive the compiled compiler in dist/.
import "../dist/fuzz/fuzz/cli.js";
