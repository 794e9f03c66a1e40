"""What NCCL's copy-engine all-gather puts on the GPU: PyTorch's profiler (CUPTI) records every
copy, memset, kernel and CUDA call of a few all-gathers through NCCL's copy-engine path (a
communicator with NCCL_CTA_POLICY_ZERO, symmetric buffers, TORCH_SYMMMEM=NCCL, a side stream; as
../../../../shared/reference/nvidia-multi-gpu.md), in place and out of place, one process per GPU.

    python3 nccl_trace.py OUT_DIR [BYTES_PER_RANK ...]     (default 268435456 1073741824)

OUT_DIR gets, per rank and size, the GPU activity of the profiled iterations (activity-*.json:
name, category, start and duration in us, stream, bytes) and their CUDA-event times (times.json,
rank 0: median of 10 after 3 warm-up, per mode). Every gathered buffer is checked on the GPU.
"""

import json
import os
import statistics
import sys

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[k] = v  # NVLink multicast stays off (the lent machines' rule)
os.environ["TORCH_SYMMMEM"] = "NCCL"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

RANKS = torch.cuda.device_count()
KEEP = ("gpu_memcpy", "gpu_memset", "kernel", "cuda_runtime", "cuda_driver")


def worker(rank, out_dir, sizes):
    import torch.distributed._symmetric_memory as symm_mem

    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29541", rank=rank, world_size=RANKS, device_id=dev)
    opts = dist.ProcessGroupNCCL.Options()
    opts.config.cta_policy = dist.ProcessGroupNCCL.NCCL_CTA_POLICY_ZERO
    group = dist.new_group(list(range(RANKS)), backend="nccl", pg_options=opts)
    warm = torch.zeros(RANKS, device=dev)
    dist.all_reduce(warm, group=group)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()

    def alloc(n):
        t = symm_mem.empty(n, dtype=torch.uint8, device=dev)
        symm_mem.rendezvous(t, group=group.group_name)
        return t

    times = {}
    for size in sizes:
        part = size // RANKS
        out, src = alloc(size), alloc(part)
        modes = {"inplace": lambda: out[rank * part : (rank + 1) * part], "outofplace": lambda: src}
        for mode, inp in modes.items():
            inp().fill_(rank + 1)

            def once():
                with torch.cuda.stream(side):
                    dist.all_gather_into_tensor(out, inp(), group=group)

            ts = []
            for i in range(13):
                dist.barrier(group=group)
                torch.cuda.synchronize()
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record(side)
                once()
                b.record(side)
                b.synchronize()
                if i >= 3:
                    ts.append(a.elapsed_time(b) * 1e3)
            ok = all(bool((out[r * part : (r + 1) * part] == r + 1).all()) for r in range(RANKS))
            times["%s/%d" % (mode, size)] = dict(medianUs=statistics.median(ts), minUs=min(ts), verified=ok)
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(3):
                    dist.barrier(group=group)
                    torch.cuda.synchronize()
                    once()
                    torch.cuda.synchronize()
            path = os.path.join(out_dir, "raw-%d-%s-%d.json" % (rank, mode, size))
            prof.export_chrome_trace(path)
            with open(path) as f:
                events = json.load(f).get("traceEvents", [])
            os.remove(path)
            keep = [
                dict(name=e.get("name"), cat=e.get("cat"), ts=e.get("ts"), dur=e.get("dur"), tid=e.get("tid"),
                     args={k: v for k, v in (e.get("args") or {}).items() if k in ("stream", "device", "bytes", "memory bandwidth (GB/s)", "correlation", "context")})
                for e in events if e.get("cat") in KEEP
            ]
            with open(os.path.join(out_dir, "activity-%d-%s-%d.json" % (rank, mode, size)), "w") as f:
                json.dump(keep, f, indent=0)
        del out, src
        torch.cuda.synchronize()
    alltimes = [None] * RANKS
    dist.all_gather_object(alltimes, times)
    if rank == 0:
        with open(os.path.join(out_dir, "times.json"), "w") as f:
            json.dump(dict(torch=torch.__version__, nccl=".".join(map(str, torch.cuda.nccl.version())),
                           device=torch.cuda.get_device_name(0), ranks=alltimes), f, indent=1)
        for k, v in times.items():
            print("nccl-ce %-22s median %.1f us min %.1f verified %s" % (k, v["medianUs"], v["minUs"], v["verified"]), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    import torch.multiprocessing as mp

    out_dir = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [268435456, 1073741824]
    os.makedirs(out_dir, exist_ok=True)
    mp.spawn(worker, args=(out_dir, sizes), nprocs=RANKS)
