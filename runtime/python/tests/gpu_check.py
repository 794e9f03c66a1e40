"""The library's GPU half through the Python package, on a GPU machine; prints one verdict line.

    python3 runtime/python/tests/gpu_check.py PROGRAM.txt ...

Per program: a tensor per buffer (random bytes; pinned host memory for host buffers), bound by
name; then three runs, each on fresh random data written on the callers' streams just before
the trigger (so a trigger that did not wait for that work would copy stale bytes):
run() (trigger + wait + reset), prelaunch() then trigger / wait / reset, and a third after a
host-side synchronise. After each, every byte of every buffer is compared with what the
program's `expect` lines say (here, in Python: the check of the runner is the library's other
client). Then the bindings the library must refuse on a GPU: a pageable host tensor for a host
buffer, a GPU tensor for one, a tensor on another GPU than its rank's (with 2 GPUs or more).
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dmac_runtime import HOST, DmacError, Program  # noqa: E402


def layout(path):
    """(buffers [(id, place)], expects [(at, offset, bytes, from, from_offset)]) of a program.txt."""
    buffers, expects = [], []
    place = lambda s: HOST if s == "host" else int(s)  # noqa: E731
    for line in open(path):
        f = line.split()
        if f and f[0] == "buffer":
            buffers.append((int(f[1]), place(f[2])))
        elif f and f[0] == "expect":
            expects.append(((int(f[1]), place(f[2])), int(f[3]), int(f[4]), (int(f[5]), place(f[6])), int(f[7])))
    return buffers, expects


def check(path):
    prog = Program(path)
    ids, expects = layout(path)
    streams = [torch.cuda.current_stream(g) for g in range(prog.gpus)]
    tensors = {}
    for (name, place, size), key in zip(prog.buffers, ids):
        t = torch.empty(size, dtype=torch.uint8, device="cpu" if place == HOST else "cuda:%d" % place)
        tensors[key] = t.pin_memory() if place == HOST else t
        prog.bind(name, place, tensors[key])
    prog.prepare()
    failures = []
    for mode in ("run", "prelaunch", "host-sync"):
        if mode == "prelaunch" and not prog.has_trigger:
            continue  # without a trigger, enqueueing starts the copies at once
        init = {k: torch.randint(0, 256, (t.numel(),), dtype=torch.uint8).pin_memory() for k, t in tensors.items()}
        if mode == "prelaunch":
            prog.prelaunch()
        for k, t in tensors.items():  # on the callers' streams, before the trigger
            t.copy_(init[k], non_blocking=True)
        if mode == "run":
            prog.run(streams)
        else:
            prog.trigger(streams)
            prog.wait(streams)
            if mode == "host-sync":
                for g in range(prog.gpus):
                    torch.cuda.synchronize(g)
            prog.reset()
        for g in range(prog.gpus):
            torch.cuda.synchronize(g)
        want = {k: v.clone() for k, v in init.items()}
        for at, off, n, src, soff in expects:
            want[at][off : off + n] = init[src][soff : soff + n]
        wrong = sum(int((tensors[k].cpu() != want[k]).sum()) for k in tensors)
        print("%s: %s: %d wrong bytes" % (path, mode, wrong))
        if wrong:
            failures.append("%s %s" % (path, mode))
    prog.close()
    return failures


def refusals(path):
    """Bindings the GPU half must refuse (DMAC_ERR_MEMORY at prepare)."""
    out = []
    prog0 = Program(path)
    cases = []
    for name, place, size in prog0.buffers:
        if place == HOST:
            cases.append((name, place, torch.empty(size, dtype=torch.uint8), "pageable host memory"))
            cases.append((name, place, torch.empty(size, dtype=torch.uint8, device="cuda:0"), "GPU memory for a host buffer"))
        elif torch.cuda.device_count() > 1:
            other = (place + 1) % torch.cuda.device_count()
            cases.append((name, place, torch.empty(size, dtype=torch.uint8, device="cuda:%d" % other), "another GPU"))
    prog0.close()
    for name, place, bad, why in cases:
        prog = Program(path)
        for n, p, size in prog.buffers:
            t = torch.empty(size, dtype=torch.uint8, device="cpu" if p == HOST else "cuda:%d" % p)
            prog.bind(n, p, bad if (n, p) == (name, place) else (t.pin_memory() if p == HOST else t))
        try:
            prog.prepare()
            out.append("%s: %s was accepted" % (path, why))
        except DmacError as e:
            print("%s: refused (%s): %s" % (path, why, e))
            if e.status != "DMAC_ERR_MEMORY":
                out.append("%s: %s gave %s" % (path, why, e.status))
        prog.close()
    return out


if __name__ == "__main__":
    failed = []
    for p in sys.argv[1:]:
        failed += check(p) + refusals(p)
    print("gpu_check: %s (%d programs)%s" % ("FAIL" if failed else "PASS", len(sys.argv) - 1,
                                            "".join("\n  " + f for f in failed)))
    sys.exit(1 if failed else 0)
