# Writes a results document (schemas/cuda-results.schema.json) from the runner's JSON lines:
#   python3 results.py RUNS.jsonl RESULTS.json
# Each line is one dmac-cuda-run --json record, labelled EXAMPLE/VARIANT/SIZE; the device, driver
# and CUDA version come from nvidia-smi and nvcc. Used by run-on-device.sh and sm-check.sh.
import datetime
import json
import subprocess
import sys


def sh(c):
    try:
        return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return ""


runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
for r in runs:
    ex, var, size = r["label"].split("/")
    r.update(example=ex, variant=var, totalBytes=int(size))
doc = {
    "format": "dmac-cuda-results",
    "version": 1,
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "device": sh("nvidia-smi --query-gpu=name --format=csv,noheader | head -1"),
    "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1"),
    "cuda": sh("nvcc --version | tail -1"),
    "runs": runs,
}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
print("%d runs, %d verified" % (len(runs), sum(r["verified"] for r in runs)))
for r in runs:
    line = "%-42s %12.1f us %s" % (r["label"], r["medianUs"], "ok" if r["verified"] else "WRONG")
    c = r.get("smCheck")
    if c:
        verdict = "copy engines" if c["onCopyEngines"] else "WAITED FOR THE KERNEL (SMs?)"
        line += "  full-SM: %.1f us, %d/%d while held, %s" % (
            c["withKernelUs"], c["completedWhileOccupied"], c["iterations"], verdict)
    print(line)
