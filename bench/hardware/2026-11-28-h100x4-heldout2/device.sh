#!/usr/bin/env bash
# The call (from the repo root; carry .dev-h2 .dev-h2x .dev-nt): the programs compiled for the
# card the lease gave (.dev-h2: target.json, H100; .dev-h2x: target-h200.json, H200), three
# repetitions, the sizes up to 16 MiB interleaved, nccl-tests once per path.
set -uo pipefail
dev=.dev-h2
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && dev=.dev-h2x
echo "programs: $dev" >"$OUT/programs.txt"
REPS=3 NCCL_REPS=1 DEV=$dev INTERLEAVE_MAX=16777216 bash bench/hardware/2026-11-28-h100x4/device.sh
