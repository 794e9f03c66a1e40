"""Overlap of an all-gather with a GEMM loop, in the shape of a tensor-parallel layer (issue 33):
every GPU runs K bf16 GEMMs per step on its compute stream while the next shard is all-gathered;
the collective starts after a small producer kernel on the compute stream and the compute stream
waits for it after the GEMMs. Methods:

  none      the GEMM loop alone (the baseline; measured in each process layout)
  dmac      the -O2 dmac program through dmac_runtime (one process drives the 4 GPUs): trigger and
            wait on the compute streams, reset + prelaunch of the next step right after
  nccl-sm   torch.distributed.all_gather_into_tensor on a side stream (one process per GPU)
  nccl-ce   the same with NCCL's copy-engine path: TORCH_SYMMMEM=NCCL, a communicator with
            NCCL_CTA_POLICY_ZERO, input and output from symm_mem.empty + rendezvous; what the
            installed torch does not support is logged and the run says which path it took

Per step and rank, CUDA events on the compute stream give the step time (producer to the end of
the wait) and the GEMM loop's time; a step's value is the slowest rank's; a run's, the median over
its steps. The collective's own time is measured the same way with no GEMMs. Every run checks the
gathered bytes of its last step on every rank.

    python3 overlap.py dmac PROGRAMS OUT.json     PROGRAMS/SIZE/program.txt (run.sh prepare)
    python3 overlap.py nccl sm|ce OUT.json
    python3 overlap.py table OUT.json ...          the summary table (markdown)
Env: OVERLAP_SIZES (bytes per rank, the gathered buffer), OVERLAP_REPS (2), OVERLAP_STEPS (20),
OVERLAP_GEMMS (8), OVERLAP_GEMM_N (4096), OVERLAP_PAD (2: untimed GEMMs before each step, so that
the host issues the step while the GPU is busy and no time measures the host).
"""

import datetime
import json
import os
import statistics
import sys
import traceback

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[k] = v  # NVLink multicast stays off (the lent machines' rule)

try:
    import torch  # noqa: E402
except ImportError:  # `table` needs no torch
    torch = None

SIZES = [int(s) for s in os.environ.get("OVERLAP_SIZES", "1048576 8388608 67108864 268435456").split()]
REPS = int(os.environ.get("OVERLAP_REPS", "2"))
STEPS = int(os.environ.get("OVERLAP_STEPS", "20"))
WARMUP = 3
GEMMS = int(os.environ.get("OVERLAP_GEMMS", "8"))
GEMM_N = int(os.environ.get("OVERLAP_GEMM_N", "4096"))
# GEMMs before each step's first event, untimed: the GPU is busy while the host issues the step,
# so no time measures Python or the host's calls (the collective alone would, otherwise).
PAD = int(os.environ.get("OVERLAP_PAD", "2"))
RANKS = 4


def log(*a):
    print(*a, flush=True)


class Step:
    """Per-rank CUDA events of one step: start, GEMMs start/end, end."""

    def __init__(self, devices):
        self.ev = [[torch.cuda.Event(enable_timing=True) for _ in range(4)] for _ in devices]


def times(steps):
    """(step us, GEMM us) of each step: the slowest rank's."""
    out = []
    for s in steps:
        step = max(e[0].elapsed_time(e[3]) for e in s.ev) * 1e3
        gemm = max(e[1].elapsed_time(e[2]) for e in s.ev) * 1e3
        out.append((step, gemm))
    return out


def summary(method, size, rep, steps, alone, ok, note=""):
    t = times(steps[WARMUP:])
    a = [x for x, _ in times(alone[WARMUP:])] if alone else []
    return dict(method=method, bytesPerRank=size, rep=rep, steps=len(t), stepUs=statistics.median(x for x, _ in t),
                gemmUs=statistics.median(g for _, g in t), collectiveUs=statistics.median(a) if a else None,
                verified=ok, note=note)


def gemm_operands(device):
    g = torch.Generator(device=device).manual_seed(1)
    a = torch.randn(GEMM_N, GEMM_N, device=device, dtype=torch.bfloat16, generator=g)
    b = torch.randn(GEMM_N, GEMM_N, device=device, dtype=torch.bfloat16, generator=g)
    return a, b, torch.empty_like(a)


def gemms(ops, k):
    a, b, c = ops
    for _ in range(k):
        torch.matmul(a, b, out=c)


# ---- dmac: one process, every GPU ---------------------------------------------------------------


def run_dmac(programs, path):
    sys.path.insert(0, os.environ.get("DMAC_PYTHON", os.path.join(os.path.dirname(os.path.abspath(__file__)), "python")))
    import dmac_runtime

    devs = list(range(RANKS))
    compute = [torch.cuda.current_stream(d) for d in devs]
    ops = [gemm_operands(d) for d in devs]
    runs = []

    def loop(k, collective=None):
        steps = []
        for i in range(WARMUP + STEPS):
            s = Step(devs)
            for d in devs:
                with torch.cuda.device(d):
                    gemms(ops[d], PAD)
                    s.ev[d][0].record(compute[d])
                    if collective:
                        collective.produce(d, i)
                    s.ev[d][1].record(compute[d])
            if collective:
                collective.start()
            for d in devs:
                with torch.cuda.device(d):
                    gemms(ops[d], k)
                    s.ev[d][2].record(compute[d])
            if collective:
                collective.finish(i == WARMUP + STEPS - 1)
            for d in devs:
                with torch.cuda.device(d):
                    s.ev[d][3].record(compute[d])
            steps.append(s)
        for d in devs:
            torch.cuda.synchronize(d)
        return steps

    class Dmac:
        def __init__(self, prog_path, size):
            self.prog = dmac_runtime.Program(prog_path)
            name, _, n = self.prog.buffers[0]
            assert n == size, (n, size)
            self.shard = size // RANKS
            self.bufs = [torch.zeros(size, dtype=torch.uint8, device="cuda:%d" % d) for d in devs]
            for d in devs:
                self.prog.bind(name, d, self.bufs[d])
            self.prog.prepare()
            self.step = 0

        def produce(self, d, i):  # the shard this step gathers, written on the compute stream
            self.bufs[d][d * self.shard : (d + 1) * self.shard].fill_((d * 7 + i) % 251)
            self.step = i

        def start(self):
            self.prog.trigger(compute)

        def finish(self, last):
            self.prog.wait(compute)
            self.prog.reset()
            if self.prog.has_trigger and not last:
                self.prog.prelaunch()  # the next step's copies wait behind the trigger already

        def verified(self):
            for d in devs:
                for r in devs:
                    want = (r * 7 + self.step) % 251
                    if not bool((self.bufs[d][r * self.shard : (r + 1) * self.shard] == want).all()):
                        return False
            return True

    gemms(ops[0], 20)  # clocks up
    for rep in range(REPS):
        base = loop(GEMMS)
        runs.append(summary("none", 0, rep, base, None, True, "one process, 4 GPUs"))
        baseline = runs[-1]["gemmUs"]
        log("dmac process: none rep %d: GEMM loop %.1f us" % (rep, baseline))
        for size in SIZES:
            c = Dmac(os.path.join(programs, str(size), "program.txt"), size)
            alone = loop(0, c)
            steps = loop(GEMMS, c)
            r = summary("dmac", size, rep, steps, alone, c.verified(), "prelaunched" if c.prog.has_trigger else "no trigger: enqueued behind the producers")
            r["baselineGemmUs"] = baseline
            runs.append(r)
            log("dmac %d rep %d: step %.1f us, GEMM %.1f us, alone %.1f us, verified %s" % (size, rep, r["stepUs"], r["gemmUs"], r["collectiveUs"], r["verified"]))
            for d in devs:
                torch.cuda.synchronize(d)
            c.prog.close()
    write(path, runs, "dmac")


# ---- NCCL: one process per GPU --------------------------------------------------------------------


def nccl_worker(rank, path_mode):
    path, mode = path_mode
    import torch.distributed as dist

    notes = []
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29533", rank=rank, world_size=RANKS, device_id=dev)
    group, symm = None, None  # the world's communicator, plain tensors: the SM path
    if mode == "ce":  # as ../shared/reference/nvidia-multi-gpu.md, "NCCL's copy-engine collectives"
        try:
            opts = dist.ProcessGroupNCCL.Options()
            opts.config.cta_policy = getattr(dist.ProcessGroupNCCL, "NCCL_CTA_POLICY_ZERO", 2)
            group = dist.new_group(list(range(RANKS)), backend="nccl", pg_options=opts)
            notes.append("a communicator with NCCL_CTA_POLICY_ZERO")
        except Exception as e:  # noqa: BLE001
            notes.append("no zero-CTA communicator (%s): the world's" % str(e).splitlines()[0][:200])
        try:
            import torch.distributed._symmetric_memory as symm_mem

            # TORCH_SYMMMEM=NCCL (run_nccl) picks the backend; set_backend("NCCL") on top of it
            # was refused on the 4x H200 machine ("does not find allocation backend NCCL").
            if os.environ.get("TORCH_SYMMMEM") != "NCCL" and hasattr(symm_mem, "set_backend"):
                symm_mem.set_backend("NCCL")
            symm = symm_mem
        except Exception as e:  # noqa: BLE001
            notes.append("no symmetric memory (%s): plain tensors" % str(e).splitlines()[0][:200])
        warm = torch.zeros(RANKS, device=dev)  # one collective on the new communicator first
        dist.all_reduce(warm, group=group)
        torch.cuda.synchronize()
    side = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    ops = gemm_operands(dev)

    def alloc(n):
        nonlocal symm
        if symm is not None:
            try:
                t = symm.empty(n, dtype=torch.uint8, device=dev)
                symm.rendezvous(t, group=(group or dist.group.WORLD).group_name)
                return t
            except Exception as e:  # noqa: BLE001
                notes.append("symmetric buffers failed (%s): plain tensors" % str(e).splitlines()[0][:200])
                symm = None
        return torch.empty(n, dtype=torch.uint8, device=dev)

    def loop(k, inp=None, out=None):
        steps = []
        for i in range(WARMUP + STEPS):
            s = Step([0])
            e = s.ev[0]
            gemms(ops, PAD)
            e[0].record(compute)
            if inp is not None:
                inp.fill_((rank * 7 + i) % 251)
            e[1].record(compute)
            if inp is not None:
                side.wait_stream(compute)
                with torch.cuda.stream(side):
                    dist.all_gather_into_tensor(out, inp, group=group)
            gemms(ops, k)
            e[2].record(compute)
            if inp is not None:
                compute.wait_stream(side)
            e[3].record(compute)
            steps.append(s)
        torch.cuda.synchronize()
        return steps

    def gathered(steps):
        """Every rank's per-step (step, gemm) ms, so rank 0 takes the slowest rank per step."""
        mine = [[(e[0].elapsed_time(e[3]), e[1].elapsed_time(e[2])) for e in [s.ev[0]]][0] for s in steps]
        allr = [None] * RANKS
        dist.all_gather_object(allr, mine)
        return allr

    def summ(method, size, rep, allr, alone, ok):
        per = [max(r[i][0] for r in allr) * 1e3 for i in range(WARMUP, len(allr[0]))]
        gem = [max(r[i][1] for r in allr) * 1e3 for i in range(WARMUP, len(allr[0]))]
        al = [max(r[i][0] for r in alone) * 1e3 for i in range(WARMUP, len(alone[0]))] if alone else []
        return dict(method=method, bytesPerRank=size, rep=rep, steps=len(per), stepUs=statistics.median(per),
                    gemmUs=statistics.median(gem), collectiveUs=statistics.median(al) if al else None,
                    verified=ok, note="; ".join(dict.fromkeys(notes)))

    method = "nccl-" + mode
    runs = []
    gemms(ops, 20)
    for rep in range(REPS):
        base = gathered(loop(GEMMS))
        runs.append(summ("none", 0, rep, base, None, True))
        runs[-1]["note"] = "one process per GPU"
        baseline = runs[-1]["gemmUs"]
        for size in SIZES:
            inp, out = alloc(size // RANKS), alloc(size)
            alone = gathered(loop(0, inp, out))
            steps = gathered(loop(GEMMS, inp, out))
            last = WARMUP + STEPS - 1
            ok = all(bool((out[r * (size // RANKS) : (r + 1) * (size // RANKS)] == (r * 7 + last) % 251).all()) for r in range(RANKS))
            oks = [None] * RANKS
            dist.all_gather_object(oks, ok)
            r = summ(method, size, rep, steps, alone, all(oks))
            r["baselineGemmUs"] = baseline
            runs.append(r)
            if rank == 0:
                log("%s %d rep %d: step %.1f us, GEMM %.1f us, alone %.1f us, verified %s %s" % (method, size, rep, r["stepUs"], r["gemmUs"], r["collectiveUs"], r["verified"], r["note"]))
            del inp, out
            torch.cuda.synchronize()
    if rank == 0:
        write(path, [x for x in runs if x["method"] != "none"] + [dict(x, method="none-" + mode) for x in runs if x["method"] == "none"], method)
    dist.destroy_process_group()


def run_nccl(mode, path):
    import torch.multiprocessing as mp

    if mode == "ce":
        os.environ["TORCH_SYMMMEM"] = "NCCL"
        os.environ.setdefault("NCCL_CTA_POLICY", "2")
    mp.spawn(nccl_worker, args=((path, mode),), nprocs=RANKS)


# ---- results ---------------------------------------------------------------------------------------


def write(path, runs, method):
    doc = dict(format="dmac-overlap-results", version=1, method=method,
               date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               device=torch.cuda.get_device_name(0), gpus=torch.cuda.device_count(), torch=torch.__version__,
               nccl=".".join(map(str, torch.cuda.nccl.version())),
               gemm=dict(n=GEMM_N, dtype="bfloat16", perStep=GEMMS), steps=STEPS, warmup=WARMUP, runs=runs)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def table(paths):
    runs = []
    for p in paths:
        try:
            with open(p) as f:
                runs += json.load(f)["runs"]
        except (OSError, ValueError) as e:
            log("(no results from %s: %s)" % (p, e))
    log("\n| bytes/rank | method | step us (reps) | GEMM slowdown (reps) | collective alone us (reps) | verified |")
    log("|---|---|---|---|---|---|")
    for m in sorted({r["method"] for r in runs if r["method"].startswith("none")}):
        rs = [r for r in runs if r["method"] == m]
        log("| - | %s | %s | - | - | - |" % (m, " / ".join("%.0f" % r["stepUs"] for r in rs)))
    for size in sorted({r["bytesPerRank"] for r in runs if r["bytesPerRank"]}):
        for m in ("dmac", "nccl-sm", "nccl-ce"):
            rs = [r for r in runs if r["method"] == m and r["bytesPerRank"] == size]
            if not rs:
                continue
            slow = " / ".join("%+.1f%%" % (100 * (r["gemmUs"] / r["baselineGemmUs"] - 1)) for r in rs)
            log("| %d | %s | %s | %s | %s | %s |" % (size, m, " / ".join("%.0f" % r["stepUs"] for r in rs), slow,
                                                  " / ".join("%.1f" % r["collectiveUs"] for r in rs),
                                                  "yes" if all(r["verified"] for r in rs) else "NO"))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "dmac":
            run_dmac(sys.argv[2], sys.argv[3])
        elif sys.argv[1] == "nccl":
            run_nccl(sys.argv[2], sys.argv[3])
        else:
            table(sys.argv[2:])
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        sys.exit(1)
