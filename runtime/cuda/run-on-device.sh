#!/usr/bin/env bash
# On a GPU machine: builds the runner, runs every prepared program (prepare.sh) and writes
# $OUT/results.json (schemas/cuda-results.schema.json) and $OUT/log.txt.
#   bash .dev/runtime/run-on-device.sh [--quick]     (from the directory holding .dev)
# --quick: only 1 KiB and 1 MiB (checks that the runner works).
set -uo pipefail
dev=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$dev/out}
mkdir -p "$out"
log="$out/log.txt"
quick=${1:-}
make -C "$dev/runtime" BUILD="$dev/build" runner >>"$log" 2>&1 || { cat "$log"; exit 2; }
runner="$dev/build/dmac-cuda-run"
jsonl="$out/runs.jsonl"
: >"$jsonl"
fails=0
while IFS=$'\t' read -r example variant size rel; do
  if [ "$quick" = "--quick" ] && [ "$size" != 1024 ] && [ "$size" != 1048576 ]; then continue; fi
  if [ "$size" -le 1048576 ]; then it=40; wu=5; elif [ "$size" -le 67108864 ]; then it=12; wu=3; else it=6; wu=2; fi
  if ! "$runner" "$dev/programs/$rel/program.txt" --iters $it --warmup $wu --label "$rel" --json "$jsonl" >>"$log" 2>&1; then
    fails=$((fails + 1))
    echo "FAILED: $rel" | tee -a "$log"
  fi
done <"$dev/programs/list.tsv"
python3 "$dev/runtime/results.py" "$jsonl" "$out/results.json"
echo "failures: $fails"
exit $((fails > 0))
