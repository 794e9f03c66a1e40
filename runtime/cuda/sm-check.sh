#!/usr/bin/env bash
# The full-SM check (issue 19; docs/cuda.md, "The full-SM check"): do copies stay on the copy
# engines while a kernel holds every SM of every GPU? A copy the driver runs on SMs cannot finish
# before that kernel ends, so the runner (--sm-check) records per configuration whether the copies
# completed while the kernel still held every SM, their time with and without it, and the
# kernel's own time. Two steps:
#
#   runtime/cuda/sm-check.sh prepare [OUT]    here, from the repo root (needs Node): compiles a few
#       host-copy configurations (h100 target: one GPU) into OUT/host and peer ones (the 2-GPU
#       h200 of bench/hardware/2026-11-24-h200x2) into OUT/peer, and writes the control into
#       OUT/control: a copy within one GPU, which runs on SMs (dmac refuses to compile one), so it
#       must wait for the kernel, or the check cannot see a fallback. OUT defaults to .dev-sm.
#   bash OUT/sm-check.sh                       on the GPU machine (needs nvcc, python3): builds the
#       runner, runs each configuration 20 times plain and SM_ITERS (10) times under the kernel,
#       whose limit is SM_LIMIT_MS (500); writes $OUT/sm-check-host.json, sm-check-control.json,
#       with two GPUs or more sm-check-peer.json (schemas/cuda-results.schema.json), and
#       sm-check-log.txt. About 3 minutes on two H200s (the 256 MiB peer runs verify 1 GiB twice).
#       Peer configurations are skipped on a single-GPU machine: try the method there first.
#
# Then here: dmac measure sm-check-host.json   and   dmac measure sm-check-peer.json \
#   --target bench/hardware/2026-11-24-h200x2/target.json --variants runtime/cuda/variants-peer.tsv
set -euo pipefail

# example/variant pairs and sizes checked (rows of variants.tsv and variants-peer.tsv).
HOST_ROWS="host_upload_pieces/pcpy host_upload_pieces/batch+pl host_download_pieces/batch"
HOST_SIZES="65536 16777216"
PEER_ROWS="all_gather_pcpy/pcpy all_gather_b2b/batch+pl all_to_all_pcpy/pcpy+pl all_to_all_b2b/b2b"
PEER_SIZES="65536 16777216 268435456"
PEER_TARGET=bench/hardware/2026-11-24-h200x2/target.json

# The rows of TABLE whose example/variant is in ROWS.
rows() {
  awk -F'\t' -v keep="$2" 'BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
    /^#/ || NF < 3 { next } ($1 "/" $2) in want' "$1"
}

# The control: 16 MiB from one buffer of GPU 0 to another (the line format of docs/cuda.md).
control() {
  local dir="$1/control/programs/same_gpu_copy/d2d/16777216"
  mkdir -p "$dir"
  printf '%s\n' "dmac-cuda-program 1" "gpus 1" "words 1" "buffer 0 0 16777216 src" \
    "buffer 1 0 16777216 dst" "completion 0 1" "stream 0 0 2" "copy 0 0 0 1 0 0 16777216" \
    "write 0 1" "expect 1 0 0 16777216 0 0 0" "end" >"$dir/program.txt"
  printf 'same_gpu_copy\td2d\t16777216\tsame_gpu_copy/d2d/16777216\n' >"$1/control/programs/list.tsv"
}

prepare() {
  local out=${1:-.dev-sm} here
  here=$(dirname "$0")
  mkdir -p "$out"
  rows "$here/variants.tsv" "$HOST_ROWS" >"$out/sm-host.tsv"
  rows "$here/variants-peer.tsv" "$PEER_ROWS" >"$out/sm-peer.tsv"
  SIZES=$HOST_SIZES "$here/prepare.sh" "$out/host" h100 "$out/sm-host.tsv"
  SIZES=$PEER_SIZES "$here/prepare.sh" "$out/peer" "$PEER_TARGET" "$out/sm-peer.tsv"
  control "$out"
  cp "$0" "$out/sm-check.sh"
  echo "on the GPU machine: bash $out/sm-check.sh"
}

run() {
  local root out log runner gpus fails=0 part jsonl prog need
  root=$(cd "$(dirname "$0")" && pwd)
  out=${OUT:-$root/out}
  mkdir -p "$out"
  log="$out/sm-check-log.txt"
  make -C "$root/host/runtime" BUILD="$root/build" runner >>"$log" 2>&1 || {
    cat "$log"
    exit 2
  }
  runner="$root/build/dmac-cuda-run"
  gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
  for part in host control peer; do
    [ -f "$root/$part/programs/list.tsv" ] || continue
    jsonl=$(mktemp)
    while IFS=$'\t' read -r _ _ _ rel; do
      prog="$root/$part/programs/$rel/program.txt"
      need=$(awk '$1 == "gpus" { print $2; exit }' "$prog")
      if [ "$need" -gt "$gpus" ]; then
        echo "skipped $part/$rel: needs $need GPUs, this machine has $gpus" | tee -a "$log"
        continue
      fi
      # The kernel ends by itself after SM_LIMIT_MS; timeout is the last guard around the process.
      if ! timeout 300 "$runner" "$prog" --iters 20 --warmup 3 --sm-check "${SM_ITERS:-10}" \
        --sm-limit-ms "${SM_LIMIT_MS:-500}" --label "$rel" --json "$jsonl" >>"$log" 2>&1; then
        fails=$((fails + 1))
        echo "FAILED: $part/$rel" | tee -a "$log"
      fi
    done <"$root/$part/programs/list.tsv"
    if [ -s "$jsonl" ]; then python3 "$root/host/runtime/results.py" "$jsonl" "$out/sm-check-$part.json"; fi
    rm -f "$jsonl"
  done
  if grep -q 'same_gpu_copy.*full-SM check' "$log"; then
    echo "control: the same-GPU copy waited for the kernel, as a copy on SMs must"
  else
    echo "WARNING: the control (a same-GPU copy, on SMs) did not wait for the kernel: this check cannot see a fallback here"
  fi
  grep 'full-SM check' "$log" | grep -v same_gpu_copy ||
    echo "every dmac configuration completed while the kernel held every SM: copy engines, no fallback"
  echo "failures: $fails"
  exit $((fails > 0))
}

if [ "${1:-}" = prepare ]; then prepare "${2:-}"; else run; fi
