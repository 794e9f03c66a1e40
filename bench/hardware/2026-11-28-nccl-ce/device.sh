#!/usr/bin/env bash
# One call on a lent 4-GPU machine (from the repo root; carry .dev-nt): the machine, probe.cu's
# configurations at 256 MiB and 1 GiB per rank, NCCL's copy-engine all-gather under PyTorch's
# profiler (nccl_trace.py), nccl-tests' copy-engine all-gather at the same sizes, and the
# copy-engine names in the NCCL library. $OUT gets machine.txt, probe.txt, trace.tar, nccl-*.txt.
#   bash bench/hardware/2026-11-28-nccl-ce/device.sh
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(dirname "$0")
out=${OUT:?}
{ date -u; nvidia-smi; nvidia-smi topo -m; nvcc --version | tail -1; } >"$out/machine.txt" 2>&1
lib=$(find / -name 'libnccl.so.2' -path '*site-packages*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
echo "nccl: $lib" >>"$out/machine.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/probe "$here/probe.cu" -lcuda >"$out/probe.txt" 2>&1
for chunk in 67108864 268435456; do /tmp/probe $chunk 8 >>"$out/probe.txt" 2>&1; done
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV python3 "$here/nccl_trace.py" /tmp/trace 268435456 1073741824 >"$out/trace-log.txt" 2>&1
tar -C /tmp -cf "$out/trace.tar" trace
g=$(nvidia-smi -L | wc -l)
nt() { .dev-nt/all_gather_perf -b 256M -e 1G -f 4 -g $g -w 5 -n 20 -R 2 -x 2; }
nt >"$out/nccl-ce.txt" 2>&1
# NCCL's intra-batch sync (its parameter names, nccl-strings.txt): off, and at every copy
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ENV NCCL_CE_COLL_INTRA_BATCH_SYNC_MSG_THRESHOLD=1099511627776 nt >"$out/nccl-ce-nosync.txt" 2>&1
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ENV NCCL_CE_COLL_INTRA_BATCH_SYNC_FREQ=1 nt >"$out/nccl-ce-freq1.txt" 2>&1
python3 - "$lib" >"$out/nccl-strings.txt" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
names = sorted({m.decode() for m in re.findall(rb"[\x20-\x7e]{6,}", data) if re.search(rb"NCCL_CE|CE_|[Cc]opy[ _]?[Ee]ngine|MemcpyBatch|ceColl|CeColl|ncclCe", m)})
print("\n".join(names))
PY
grep -h "median\|wrong" "$out/probe.txt" | head -40; grep "nccl-ce" "$out/trace-log.txt"; grep -E "^ +(268435456|1073741824)|set by" "$out"/nccl-ce*.txt
# the runner's interleaved mode on a few programs (carry .dev-smoke; runtime/cuda/prepare.sh)
if [ -d .dev-smoke ]; then OUT=/tmp/smoke INTERLEAVE_MAX=16777216 bash .dev-smoke/runtime/run-on-device.sh | tail -10; cp /tmp/smoke/results.json "$out/smoke-results.json"; fi
