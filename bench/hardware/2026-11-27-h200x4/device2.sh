#!/usr/bin/env bash
# The held-out call on a lent 4-GPU machine (from the repo root; carry .dev, .dev-nt, .dev-overlap):
# the runner over .dev/programs (prepare.sh, the held-out sizes) REPS times, nccl-tests' all-gather
# and all-to-all (binaries built by the smoke call for sm_90, in .dev-nt) on the SM path and the
# copy-engine path (-R 2 -x 2) REPS times, then the overlap benchmark (bench/hardware/overlap).
# $OUT gets few files (the lease brings back only a handful): machine.txt, results-repN.json,
# nccl.tar, overlap.tar, logs.tar.
#   REPS=2 bash bench/hardware/2026-11-27-h200x4/device2.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
out=${OUT:?}
work=$(mktemp -d)
{ date -u; nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -1; env | grep -E 'NVLS|MULTICAST' | sort; } >"$out/machine.txt" 2>&1
lib=$(find / -name 'libnccl.so.2' -path '*site-packages*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
echo "nccl: $lib" >>"$out/machine.txt"
for rep in $(seq 1 "${REPS:-2}"); do
  OUT=$work/rep$rep bash .dev/runtime/run-on-device.sh | tail -1
  cp "$work/rep$rep/results.json" "$out/results-rep$rep.json"
done
mkdir -p "$work/nccl"
for rep in $(seq 1 "${REPS:-2}"); do
  for t in all_gather alltoall; do
    .dev-nt/${t}_perf -b 1K -e 1G -f 4 -g 4 -w 5 -n 20 >"$work/nccl/nccl-$t-sm-rep$rep.txt" 2>&1
    .dev-nt/${t}_perf -b 1K -e 1G -f 4 -g 4 -w 5 -n 20 -R 2 -x 2 >"$work/nccl/nccl-$t-ce-rep$rep.txt" 2>&1
  done
done
tar -C "$work" -cf "$out/nccl.tar" nccl
OUT=$work/overlap bash .dev-overlap/run.sh 2>&1 | tail -22
tar -C "$work" -cf "$out/overlap.tar" overlap
tar -C "$work" -cf "$out/logs.tar" rep1/log.txt $(seq -f 'rep%g/log.txt' 2 "${REPS:-2}")
grep -h "Out of bounds\|Avg bus" "$work"/nccl/*.txt | sort | uniq -c
