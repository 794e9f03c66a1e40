#!/usr/bin/env bash
# Does the host's submission time depend on where the runner's threads run? (issue 32: processes
# of the -O2 table came in a fast and a slow mode, 32-36 against 50-75 us at 4 KiB per rank
# without prelaunch.) From the repo root; carry .dev-o2 .dev-o2x. Runs the -O2 table's programs
# of 4 KiB, 1 MiB and 16 MiB per rank (66, interleaved in one process) ROUNDS times in each of
# three placements, the placements alternating within a round:
#   free  - as before (the kernel places the threads);
#   near  - taskset to 4 CPUs of GPU 0's NUMA node (local_cpulist);
#   far   - taskset to the machine's last 4 CPUs.
# $OUT gets machine.txt and runs.tar (MODE-ROUND.jsonl, the runner's records; MODE-ROUND.psr, the
# CPUs the free runs' threads were on one second in).
#   ROUNDS=6 bash bench/hardware/2026-11-28-pinning/device.sh
set -uo pipefail
out=${OUT:?}
work=$(mktemp -d)
dev=.dev-o2
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && dev=.dev-o2x
make -C "$dev/runtime" BUILD="$work/build" runner >"$work/build.txt" 2>&1 || { cat "$work/build.txt"; exit 2; }
runner=$work/build/dmac-cuda-run
bus() { nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$1" | tr 'A-F' 'a-f' | sed 's/^0000//'; }
near=$(cut -d, -f1 <"/sys/bus/pci/devices/$(bus 0)/local_cpulist" | awk -F- '{print $1"-"$1+3}')
last=$(($(nproc) - 1))
far="$((last - 3))-$last"
{
  date -u; echo "programs: $dev near: $near far: $far"; nproc; lscpu; numactl -H 2>&1
  for g in 0 1 2 3; do b=$(bus $g); echo "gpu $g $b numa $(cat /sys/bus/pci/devices/$b/numa_node) cpus $(cat /sys/bus/pci/devices/$b/local_cpulist)"; done
  nvidia-smi topo -m; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1
  cat /sys/devices/system/cpu/cpuidle/current_driver 2>&1
} >"$out/machine.txt" 2>&1
args=()
while IFS=$'\t' read -r _ _ size rel; do
  case $size in 4096 | 1048576 | 16777216) args+=("$dev/programs/$rel/program.txt" --label "$rel") ;; esac
done <"$dev/programs/list.tsv"
mkdir -p "$work/runs"
for round in $(seq 1 "${ROUNDS:-6}"); do
  for mode in free near far; do
    pin=()
    [ "$mode" = near ] && pin=(taskset -c "$near")
    [ "$mode" = far ] && pin=(taskset -c "$far")
    "${pin[@]}" "$runner" "${args[@]}" --iters 40 --warmup 5 --json "$work/runs/$mode-$round.jsonl" >>"$work/runs/log.txt" 2>&1 &
    pid=$!
    sleep 1
    ps -L -o psr=,comm= -p "$pid" >"$work/runs/$mode-$round.psr" 2>&1
    wait "$pid" || echo "FAILED $mode $round" | tee -a "$work/runs/log.txt"
  done
done
tar -C "$work" -cf "$out/runs.tar" runs
grep -c . "$work"/runs/*.jsonl | head -3
