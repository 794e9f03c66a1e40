#!/usr/bin/env bash
# The GPU half of dmac_runtime (issue 33) in one device call, with one verdict line at the end:
# the runner (a client of the library) verifies a few programs byte for byte on the GPU, must
# report wrong bytes on a program whose expectation was altered, and the Python package runs
# every program through torch tensors (runtime/python/tests/gpu_check.py). Two steps:
#
#   runtime/cuda/gpu-check.sh prepare [OUT] [TARGET4]   here, from the repo root (needs Node):
#       host-copy programs for h100 (one GPU), with and without a trigger, at 1 MiB and 1 GiB;
#       the -O2 all-gather (4 KiB and 1 MiB shards) for TARGET4, a 4-GPU CUDA target (default: a
#       copy of targets/h200.json with gpus 4); the sources. OUT defaults to .dev-gpu.
#   bash OUT/gpu-check.sh                               on the GPU machine (nvcc, python3 with
#       torch): programs needing more GPUs than the machine has are skipped, and said so; with
#       4 GPUs also the PyTorch example (runtime/python/examples/all_gather.py). Writes
#       $OUT/gpu-check-log.txt and $OUT/control.txt.
set -euo pipefail

prepare() {
  local out=${1:-.dev-gpu} target=${2:-} here dmac="node bin/dmac.js"
  here=$(dirname "$0")
  rm -rf "$out"
  mkdir -p "$out/programs" "$out/cuda" "$out/python"
  if [ -z "$target" ]; then
    target="$out/h200x4.json"
    node -e 'const t = require("./targets/h200.json"); console.log(JSON.stringify({ ...t, name: "h200x4", gpus: 4 }))' >"$target"
  fi
  local up=examples/host_upload_pieces.dmac down=examples/host_download_pieces.dmac ag=examples/all_gather_b2b.dmac
  $dmac compile $up --target h100 -D queues=1 -O1 --prelaunch -D total=1MiB -o "$out/programs/upload-pl-1m" >/dev/null
  $dmac compile $up --target h100 -D queues=1 -O1 --prelaunch -D total=1GiB -o "$out/programs/upload-pl-1g" >/dev/null
  $dmac compile $down --target h100 -D queues=7 -O0 -D total=1MiB -o "$out/programs/download-1m" >/dev/null
  $dmac compile $ag --target "$target" -D engine=0 -O2 -D chunk=4KiB -o "$out/programs/all-gather-4k" >/dev/null
  $dmac compile $ag --target "$target" -D engine=0 -O2 -D chunk=1MiB -o "$out/programs/all-gather-1m" >/dev/null
  cp "$here"/{Makefile,runner.cu,byte-check.cuh,byte-check.h,pattern.h,sha256.h,dmac_runtime.h,dmac_runtime.cu,program.h,program.cc} "$out/cuda/"
  cp -r "$here/../python/dmac_runtime" "$here/../python/tests" "$here/../python/examples" "$out/python/"
  cp "$0" "$out/gpu-check.sh"
  echo "on the GPU machine: bash $out/gpu-check.sh"
}

run() {
  local root out log gpus need fails=0 p prog wrong t0 t1
  root=$(cd "$(dirname "$0")" && pwd)
  out=${OUT:-$root/out}
  mkdir -p "$out"
  log="$out/gpu-check-log.txt"
  make -j4 -C "$root/cuda" BUILD="$root/build" runner lib >>"$log" 2>&1 || {
    cat "$log"
    exit 2
  }
  gpus=$(nvidia-smi -L | grep -c '^GPU' || true)
  local runnable=()
  for p in "$root"/programs/*/; do
    prog="$p/program.txt"
    need=$(awk '$1 == "gpus" { print $2; exit }' "$prog")
    if [ "$need" -gt "$gpus" ]; then
      echo "skipped $(basename "$p"): needs $need GPUs, this machine has $gpus" | tee -a "$log"
      continue
    fi
    runnable+=("$prog")
    t0=$(date +%s.%N)
    if "$root/build/dmac-cuda-run" "$prog" --iters 6 --warmup 2 --label "$(basename "$p")" >>"$log" 2>&1; then
      t1=$(date +%s.%N)
      echo "runner: $(basename "$p") verified ($(grep -c . "$prog") lines; $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s with the check)" | tee -a "$log"
    else
      fails=$((fails + 1))
      echo "FAILED: runner $(basename "$p")" | tee -a "$log"
    fi
  done
  # The control: the first expectation moved by one byte, so the check must find wrong bytes.
  wrong="$root/wrong-program.txt"
  awk '!done && $1 == "expect" { $8 = $8 + 1; done = 1 } { print }' "${runnable[0]}" >"$wrong"
  "$root/build/dmac-cuda-run" "$wrong" --iters 1 --warmup 0 --label control >"$out/control.txt" 2>&1 || true
  cat "$out/control.txt" >>"$log"
  if grep -q 'on the GPU, [1-9][0-9]* wrong' "$out/control.txt"; then
    echo "control: the altered program was refused ($(grep -o '[0-9]* bytes on the GPU, [0-9]* wrong' "$out/control.txt"))" | tee -a "$log"
  else
    fails=$((fails + 1))
    echo "FAILED: the altered program was not refused for wrong bytes: $(tail -1 "$out/control.txt")" | tee -a "$log"
  fi
  # The Python package on the programs up to 1 MiB (it checks on the CPU).
  local small=()
  for prog in "${runnable[@]}"; do [[ "$prog" == *-1g/* ]] || small+=("$prog"); done
  if ! DMAC_RUNTIME_LIB="$root/build/libdmac_runtime.so" python3 "$root/python/tests/gpu_check.py" "${small[@]}" 2>&1 |
    grep -v '^$' | tee -a "$log" | tail -25; then
    fails=$((fails + 1))
  fi
  grep -q '^gpu_check: PASS' "$log" || fails=$((fails + 1))
  # The PyTorch example of docs/runtime.md, on four GPUs.
  if [ -f "$root/programs/all-gather-1m/program.txt" ] && [ "$gpus" -ge 4 ]; then
    PYTHONPATH="$root/python" DMAC_RUNTIME_LIB="$root/build/libdmac_runtime.so" \
      python3 "$root/python/examples/all_gather.py" "$root/programs/all-gather-1m/program.txt" 2>&1 | tee -a "$log" || true
    grep -q 'equal on every rank: True' "$log" || fails=$((fails + 1))
  fi
  echo "gpu-check: $([ $fails = 0 ] && echo PASS || echo "FAIL ($fails)")"
  exit $((fails > 0))
}

if [ "${1:-}" = prepare ]; then prepare "${2:-}" "${3:-}"; else run; fi
