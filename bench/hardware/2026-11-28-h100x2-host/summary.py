# Per program and mode (pinned with taskset to one CPU, or free): the runner processes' medians.
#   python3 bench/hardware/2026-11-28-h100x2-host/summary.py
import collections, csv, os, statistics

here = os.path.dirname(os.path.abspath(__file__))
by = collections.defaultdict(list)
for r in csv.DictReader(open(os.path.join(here, "runs.tsv")), delimiter="\t"):
    by[(r["label"], r["mode"])].append(float(r["medianUs"]))
print("| program | mode | processes | min | median | max | max/min |")
print("|---|---|---|---|---|---|---|")
for (label, mode), xs in sorted(by.items()):
    print(f"| {label} | {mode} | {len(xs)} | {min(xs):.1f} | {statistics.median(xs):.1f} | {max(xs):.1f} | {max(xs) / min(xs):.2f} |")
