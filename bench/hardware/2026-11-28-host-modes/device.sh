#!/usr/bin/env bash
# On a lent 4-GPU machine, from the repo root: builds probe.cu and runs it in PROCS processes.
# $OUT/probe.txt: one line per process (probe.cu says what the numbers are).
#   PROCS=12 bash bench/hardware/2026-11-28-host-modes/device.sh
set -uo pipefail
out=${OUT:?}
here=bench/hardware/2026-11-28-host-modes
work=$(mktemp -d)
nvcc -O2 -arch=sm_90 -o "$work/probe" $here/probe.cu -lcuda >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 2; }
{ date -u; nvidia-smi --query-gpu=name,pci.bus_id --format=csv,noheader; } >"$out/machine.txt"
for i in $(seq 1 "${PROCS:-12}"); do "$work/probe" 200 6 >>"$out/probe.txt" 2>&1; done
cat "$out/probe.txt"
