#!/usr/bin/env bash
# On a GPU machine: builds the runner, runs every prepared program (prepare.sh) and writes
# $OUT/results.json (schemas/cuda-results.schema.json) and $OUT/log.txt.
#   bash .dev/runtime/run-on-device.sh [--quick]     (from the directory holding .dev)
# --quick: only 1 KiB and 1 MiB (checks that the runner works).
# INTERLEAVE_MAX=BYTES (env): the programs of each size up to BYTES run in one runner process,
# interleaved (one iteration of each in turn), so that they are compared in the same process.
# ITERS_X=N (env): N times the timed iterations of each size (40, 12 or 6 by size).
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
x=${ITERS_X:-1}
iters() { if [ "$1" -le 1048576 ]; then echo "--iters $((40 * x)) --warmup 5"; elif [ "$1" -le 67108864 ]; then echo "--iters $((12 * x)) --warmup 3"; else echo "--iters $((6 * x)) --warmup 2"; fi; }
run() {  # LABEL RUNNER-ARGUMENTS...
  local what=$1
  shift
  if ! "$runner" "$@" --json "$jsonl" >>"$log" 2>&1; then
    fails=$((fails + 1))
    echo "FAILED: $what" | tee -a "$log"
  fi
}
declare -A group
while IFS=$'\t' read -r example variant size rel; do
  if [ "$quick" = "--quick" ] && [ "$size" != 1024 ] && [ "$size" != 1048576 ]; then continue; fi
  if [ "$size" -le "${INTERLEAVE_MAX:-0}" ]; then
    group[$size]+="$dev/programs/$rel/program.txt --label $rel "
    continue
  fi
  # shellcheck disable=SC2046 # iters prints options
  run "$rel" "$dev/programs/$rel/program.txt" $(iters "$size") --label "$rel"
done <"$dev/programs/list.tsv"
for size in $(printf '%s\n' "${!group[@]}" | sort -n); do
  # shellcheck disable=SC2046,SC2086 # a group is a list of arguments (no spaces in its paths)
  run "the programs of $size bytes" ${group[$size]} $(iters "$size")
done
python3 "$dev/runtime/results.py" "$jsonl" "$out/results.json"
echo "failures: $fails"
exit $((fails > 0))
