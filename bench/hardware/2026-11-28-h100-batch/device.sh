#!/usr/bin/env bash
# One H100 (carry .dev-hb): the seven-piece upload and download, one call per copy against one
# batch, with and without prelaunch, each size's programs interleaved in one runner process,
# three repetitions. $OUT gets machine.txt and results-repN.json.
set -uo pipefail
out=${OUT:?}
{ date -u; nvidia-smi -L; } >"$out/machine.txt"
for rep in 1 2 3; do
  OUT=/tmp/hb$rep INTERLEAVE_MAX=16777216 bash .dev-hb/runtime/run-on-device.sh | tail -1
  cp /tmp/hb$rep/results.json "$out/results-rep$rep.json"
done
