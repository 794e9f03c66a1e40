// The version printed by `dmac --version` and written into manifests. Keep in step with package.json
// (a unit test checks it).
export const VERSION = "0.1.0";
