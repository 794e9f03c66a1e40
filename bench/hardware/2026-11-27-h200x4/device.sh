#!/usr/bin/env bash
# One call on a lent 4-GPU machine (from the repo root, .dev carried): the machine's description,
# nccl-tests built against the NCCL in torch's wheel, the runner over .dev/programs (prepare.sh),
# then nccl-tests' all-gather and all-to-all on the SM path and the copy-engine path (-R 2 -x 2).
# Everything lands in $OUT: machine.txt, log.txt, results.json (the runner), nccl-*.txt.
#   REPS=2 NCCL_MAX=1G bash bench/hardware/2026-11-27-h200x4/device.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
out=${OUT:?}
dev=$PWD/.dev
{ date -u; nvidia-smi; nvidia-smi topo -m; nvcc --version | tail -2; env | grep -E 'NVLS|MULTICAST' | sort; } >"$out/machine.txt" 2>&1
lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null ||
  find / -name 'libnccl.so.2' -path '*site-packages*' 2>/dev/null | head -1)
NH=$(dirname "$(dirname "$lib")")
mkdir -p "$dev/nccl-home/lib" && ln -sf "$lib" "$dev/nccl-home/lib/libnccl.so" && ln -sfn "$NH/include" "$dev/nccl-home/include"
echo "nccl: $lib" >>"$out/machine.txt"
(time make -C "$dev/nccl-tests/src" -j16 BUILDDIR="$dev/nt-build" NCCL_HOME="$dev/nccl-home" CUDA_HOME=/usr/local/cuda) >"$out/nccl-build.txt" 2>&1
export LD_LIBRARY_PATH="$NH/lib:${LD_LIBRARY_PATH:-}"
for rep in $(seq 1 "${REPS:-1}"); do
  OUT=$out/rep$rep bash "$dev/runtime/run-on-device.sh" | tail -3
done
for rep in $(seq 1 "${REPS:-1}"); do
  for t in all_gather alltoall; do
    "$dev/nt-build/${t}_perf" -b 1K -e "${NCCL_MAX:-1G}" -f 4 -g 4 -w 5 -n 20 >"$out/nccl-$t-sm-rep$rep.txt" 2>&1
    "$dev/nt-build/${t}_perf" -b 1K -e "${NCCL_MAX:-1G}" -f 4 -g 4 -w 5 -n 20 -R 2 -x 2 >"$out/nccl-$t-ce-rep$rep.txt" 2>&1
  done
done
tail -n 18 "$out"/nccl-all_gather-ce-rep1.txt
