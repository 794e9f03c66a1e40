#!/usr/bin/env bash
# The call (from the repo root; carry .dev-o2 .dev-o2x .dev-nt): the programs compiled for the
# card the lease gave (.dev-o2: target-h100.json; .dev-o2x: target-h200.json), every size from
# 1 KiB to 1 GiB per rank as one runner process with its 22 programs interleaved, two
# repetitions, nccl-tests once per path.
set -uo pipefail
dev=.dev-o2
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && dev=.dev-o2x
echo "programs: $dev" >"$OUT/programs.txt"
REPS=${REPS:-2} NCCL_REPS=1 DEV=$dev INTERLEAVE_MAX=1073741824 bash bench/hardware/2026-11-28-h100x4/device.sh
