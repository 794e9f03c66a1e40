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
make -C "$dev/runtime" BUILD="$dev/build" >>"$log" 2>&1 || { cat "$log"; exit 2; }
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
python3 - "$jsonl" "$out/results.json" <<'PY'
import json, subprocess, sys, datetime
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception: return ""
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in runs:
    ex, var, size = r["label"].split("/")
    r.update(example=ex, variant=var, totalBytes=int(size))
doc = {
  "format": "dmac-cuda-results", "version": 1,
  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
  "device": sh("nvidia-smi --query-gpu=name --format=csv,noheader | head -1"),
  "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1"),
  "cuda": sh("nvcc --version | tail -1"),
  "runs": runs,
}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
print("%d runs, %d verified" % (len(runs), sum(r["verified"] for r in runs)))
for r in runs:
    print("%-42s %12.1f us %s" % (r["label"], r["medianUs"], "ok" if r["verified"] else "WRONG"))
PY
echo "failures: $fails"
exit $((fails > 0))
