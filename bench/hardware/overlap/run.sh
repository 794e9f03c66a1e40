#!/usr/bin/env bash
# The overlap benchmark (issue 33; overlap.py says what it measures): dmac's -O2 all-gather vs
# NCCL's SM and copy-engine paths vs no communication, beside a GEMM loop on 4 GPUs. Two steps:
#
#   bench/hardware/overlap/run.sh prepare [OUT] [TARGET4]    here, from the repo root (needs Node):
#       compiles examples/all_gather_pcpy.dmac at -O2 for TARGET4 (a 4-GPU CUDA target; default
#       a copy of targets/h200.json with gpus 4) at each size (bytes per rank: the gathered
#       buffer, -D chunk=SIZE/4B) into OUT/programs/SIZE/, and copies the library's sources, the
#       Python package and overlap.py beside them: OUT is all the GPU machine needs (it has no
#       Node). OUT defaults to .dev-overlap.
#   bash OUT/run.sh                                          on a 4-GPU machine (nvcc, torch):
#       builds libdmac_runtime.so, runs dmac (one process), NCCL SM and NCCL CE (4 processes
#       each), writes $OUT/overlap-{dmac,nccl-sm,nccl-ce}.json and $OUT/overlap-log.txt, prints
#       the table last. About 2-3 minutes (most of it process and NCCL start-up).
set -uo pipefail
SIZES=${OVERLAP_SIZES:-"1048576 8388608 67108864 268435456"}

prepare() {
  local out=${1:-.dev-overlap} target=${2:-} here size
  here=$(dirname "$0")
  rm -rf "$out"
  mkdir -p "$out/programs" "$out/cuda" "$out/python"
  if [ -z "$target" ]; then
    target="$out/h200x4.json"
    node -e 'const t = require("./targets/h200.json"); console.log(JSON.stringify({ ...t, name: "h200x4", gpus: 4 }))' >"$target"
  else
    cp "$target" "$out/target.json"
  fi
  for size in $SIZES; do
    node bin/dmac.js compile examples/all_gather_pcpy.dmac --target "$target" -O2 -D "chunk=$((size / 4))B" \
      -o "$out/programs/$size" >/dev/null || exit 2
  done
  cp "$here"/../../../runtime/cuda/{Makefile,dmac_runtime.h,dmac_runtime.cu,program.h,program.cc,sha256.h} "$out/cuda/"
  cp -r "$here/../../../runtime/python/dmac_runtime" "$out/python/"
  cp "$here/overlap.py" "$0" "$out/"
  echo "prepared $(ls "$out/programs" | wc -l) programs; on the 4-GPU machine: bash $out/run.sh"
}

run() {
  local root out log fails=0
  root=$(cd "$(dirname "$0")" && pwd)
  out=${OUT:-$root/out}
  mkdir -p "$out"
  log="$out/overlap-log.txt"
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  export OVERLAP_SIZES="$SIZES" DMAC_RUNTIME_LIB="$root/build/libdmac_runtime.so" DMAC_PYTHON="$root/python"
  { nvidia-smi -L; nvidia-smi topo -m; } >>"$log" 2>&1
  make -j4 -C "$root/cuda" BUILD="$root/build" lib >>"$log" 2>&1 || {
    cat "$log"
    exit 2
  }
  timeout 150 python3 "$root/overlap.py" dmac "$root/programs" "$out/overlap-dmac.json" 2>&1 | tee -a "$log" || fails=$((fails + 1))
  timeout 120 python3 "$root/overlap.py" nccl sm "$out/overlap-nccl-sm.json" 2>&1 | tee -a "$log" || fails=$((fails + 1))
  # NCCL logs `Init CE` when the copy-engine path is set up (../shared/reference/nvidia-multi-gpu.md).
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT timeout 120 python3 "$root/overlap.py" nccl ce "$out/overlap-nccl-ce.json" 2>&1 |
    tee -a "$log" | grep -v 'NCCL INFO' || fails=$((fails + 1))
  echo "NCCL copy-engine path: 'Init CE' logged $(grep -c 'Init CE' "$log") times" | tee -a "$log"
  python3 "$root/overlap.py" table "$out"/overlap-{dmac,nccl-sm,nccl-ce}.json 2>&1 | tee -a "$log"
  echo "failures: $fails"
  exit $((fails > 0))
}

if [ "${1:-}" = prepare ]; then prepare "${2:-}" "${3:-}"; else run; fi
