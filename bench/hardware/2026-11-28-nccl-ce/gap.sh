#!/usr/bin/env bash
# A second call (from the repo root; carry .dev-gap, .dev-nt): where dmac-cuda-run's 1 GiB
# all-gather loses ~90 us to probe.cu's same copies. probe.cu's `host` set (the runner's way of
# starting and timing, against the probe's), dmac-cuda-run on the rotated batch and b2b at 1 GiB
# per rank (.dev-gap: runtime/cuda/prepare.sh), nccl-tests' copy-engine all-gather at 1 GiB.
#   bash bench/hardware/2026-11-28-nccl-ce/gap.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(dirname "$0")
out=${OUT:?}
{ date -u; nvidia-smi -L; } >"$out/machine.txt" 2>&1
lib=$(find / -name 'libnccl.so.2' -path '*site-packages*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/probe "$here/probe.cu" -lcuda >"$out/probe-host.txt" 2>&1
/tmp/probe 268435456 8 ${PROBE_SET:-host} >>"$out/probe-host.txt" 2>&1
OUT=/tmp/gap bash .dev-gap/runtime/run-on-device.sh | tail -4
cp /tmp/gap/results.json "$out/runner-results.json"
.dev-nt/all_gather_perf -b 1G -e 1G -g 4 -w 5 -n 20 -R 2 -x 2 >"$out/nccl-ce.txt" 2>&1
cat "$out/probe-host.txt"; grep -E "^ +1073741824" "$out/nccl-ce.txt"
# the runner's interleaved mode on a few small programs (carry .dev-smoke)
if [ -d .dev-smoke ]; then OUT=/tmp/smoke INTERLEAVE_MAX=16777216 bash .dev-smoke/runtime/run-on-device.sh | tail -10; cp /tmp/smoke/results.json "$out/smoke-results.json"; fi
