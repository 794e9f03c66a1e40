#!/usr/bin/env bash
# Is the host-submission time of a program without prelaunch a property of the CPU the runner's
# thread lands on? (On 4x H200 the same program's median moved 33 <-> 55 us from one runner
# process to the next, while each process's own 40 runs stayed within a few percent.)
# One runner process per (program, CPU) pinned with taskset, REPS times, on every 4th CPU; then
# the same programs unpinned, UNPINNED times. Writes $OUT/machine.txt and $OUT/runs.tsv
# (mode, cpu, rep, label, median, min). From the repo root, carrying .dev-host (prepare.sh output):
#   REPS=3 UNPINNED=12 bash bench/hardware/2026-11-28-h100x2-host/device.sh
set -uo pipefail
out=${OUT:?}
dev=.dev-host
{ date -u; nvidia-smi -L; nvidia-smi topo -m; lscpu; numactl --hardware 2>/dev/null; nvidia-smi -q -d CLOCK | head -40; } >"$out/machine.txt" 2>&1
make -C $dev/runtime BUILD="$PWD/$dev/build" runner >"$out/build.txt" 2>&1 || { tail "$out/build.txt"; exit 2; }
runner=$dev/build/dmac-cuda-run
ncpu=$(nproc)
printf 'mode\tcpu\trep\tlabel\tmedianUs\tminUs\n' >"$out/runs.tsv"
one() { # mode cpu rep rel [taskset args...]
  local mode=$1 cpu=$2 rep=$3 rel=$4 j
  shift 4
  j=$(mktemp)
  "$@" "$runner" "$dev/programs/$rel/program.txt" --iters 40 --warmup 5 --label "$rel" --json "$j" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print("\t".join(sys.argv[2:]+[r["label"], "%.2f"%r["medianUs"], "%.2f"%r["minUs"], str(r["verified"])]))' "$j" "$mode" "$cpu" "$rep" >>"$out/runs.tsv" || echo "failed: $mode $cpu $rel" >&2
  rm -f "$j"
}
for rep in $(seq 1 "${REPS:-3}"); do
  for cpu in $(seq 0 4 $((ncpu - 1))); do
    while IFS=$'\t' read -r _ _ _ rel; do one pinned "$cpu" "$rep" "$rel" taskset -c "$cpu"; done <$dev/programs/list.tsv
  done
done
for rep in $(seq 1 "${UNPINNED:-12}"); do
  while IFS=$'\t' read -r _ _ _ rel; do one free - "$rep" "$rel" env; done <$dev/programs/list.tsv
done
wc -l "$out/runs.tsv"
