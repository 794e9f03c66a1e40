#!/usr/bin/env bash
# One call on a lent 4-GPU machine (from the repo root; carry .dev, .dev-nt, .dev-ntsrc):
# the machine's description, the runner over .dev/programs (prepare.sh) REPS times, then
# nccl-tests' all-gather and all-to-all on the SM path and the copy-engine path (-R 2 -x 2)
# NCCL_REPS times. nccl-tests: the sm_90 binaries in .dev-nt (built against torch's NCCL by an
# earlier call) when they run here, else built from .dev-ntsrc (../shared/tools/nccl-tests).
# $OUT gets machine.txt, results-repN.json, nccl.tar (nccl-*-repN.txt) and logs.tar.
#   REPS=1 NCCL_REPS=1 [NCCL_MIN=1K] [DEV=.dev] bash bench/hardware/2026-11-28-h100x4/device.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
out=${OUT:?}
work=$(mktemp -d)
{ date -u; nvidia-smi; nvidia-smi topo -m; lscpu | head -20; nvcc --version | tail -1; env | grep -E 'NVLS|MULTICAST' | sort; } >"$out/machine.txt" 2>&1
lib=$(find / -name 'libnccl.so.2' -path '*site-packages*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
echo "nccl: $lib" >>"$out/machine.txt"
nt=.dev-nt
if ! $nt/all_gather_perf -b 1K -e 1K -g 4 -w 1 -n 1 >/dev/null 2>&1; then
  NH=$work/nccl-home
  mkdir -p "$NH/lib" && ln -sf "$lib" "$NH/lib/libnccl.so" && ln -sfn "$(dirname "$(dirname "$lib")")/include" "$NH/include"
  make -C .dev-ntsrc/src -j16 BUILDDIR="$work/nt" NCCL_HOME="$NH" CUDA_HOME=/usr/local/cuda \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BIN_FILES_LIST="all_gather alltoall" >"$out/nccl-build.txt" 2>&1
  nt=$work/nt
fi
echo "nccl-tests: $nt" >>"$out/machine.txt"
for rep in $(seq 1 "${REPS:-1}"); do
  OUT=$work/rep$rep bash "${DEV:-.dev}/runtime/run-on-device.sh" | tail -1
  cp "$work/rep$rep/results.json" "$out/results-rep$rep.json"
done
mkdir -p "$work/nccl"
for rep in $(seq 1 "${NCCL_REPS:-1}"); do
  for t in all_gather alltoall; do
    $nt/${t}_perf -b "${NCCL_MIN:-1K}" -e 1G -f 4 -g 4 -w 5 -n 20 >"$work/nccl/nccl-$t-sm-rep$rep.txt" 2>&1
    $nt/${t}_perf -b "${NCCL_MIN:-1K}" -e 1G -f 4 -g 4 -w 5 -n 20 -R 2 -x 2 >"$work/nccl/nccl-$t-ce-rep$rep.txt" 2>&1
  done
done
tar -C "$work" -cf "$out/nccl.tar" nccl
tar -C "$work" -cf "$out/logs.tar" $(cd "$work" && ls -d rep*/log.txt)
grep -h "Out of bounds\|Avg bus" "$work"/nccl/*.txt | sort | uniq -c
