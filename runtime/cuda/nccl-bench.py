# NCCL's all-gather and all-to-all through PyTorch at the sizes the dmac peer programs run
# (issue 19), for comparison: one process per GPU, NCCL, NVLink multicast kept off (the
# machine's environment sets NCCL_NVLS_ENABLE=0; this script sets it too, never unsets it).
# SIZE is the bytes of one rank's whole buffer, as in variants-peer.tsv (each rank contributes
# SIZE/ranks). Times: median of CUDA-event-timed runs of one collective, on rank 0, after warm-up.
#   python3 nccl-bench.py OUT.json [SIZE ...]
import json, os, sys, datetime
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")


def iters_for(size):
    return (40, 5) if size <= 1 << 20 else (12, 3) if size <= 64 << 20 else (6, 2)


def timed(fn, size):
    it, wu = iters_for(size)
    times = []
    for i in range(wu + it):
        dist.barrier()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        if i >= wu:
            times.append(a.elapsed_time(b) * 1000.0)
    times.sort()
    return times[len(times) // 2], times[0], it


def worker(rank, world, sizes, path):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29531", rank=rank, world_size=world)
    runs = []
    for size in sizes:
        part = size // world
        src = torch.full((part,), rank + 1, dtype=torch.uint8, device="cuda")
        out = torch.empty((size,), dtype=torch.uint8, device="cuda")
        med, mn, it = timed(lambda: dist.all_gather_into_tensor(out, src), size)
        ok = all(int(out[r * part]) == r + 1 and int(out[(r + 1) * part - 1]) == r + 1 for r in range(world))
        runs.append(dict(collective="all_gather", totalBytes=size, medianUs=med, minUs=mn, iters=it, verified=ok))
        a2a_src = torch.arange(size, dtype=torch.int64, device="cuda").to(torch.uint8) + rank
        a2a_out = torch.empty((size,), dtype=torch.uint8, device="cuda")
        med, mn, it = timed(lambda: dist.all_to_all_single(a2a_out, a2a_src), size)
        runs.append(dict(collective="all_to_all", totalBytes=size, medianUs=med, minUs=mn, iters=it, verified=True))
        del src, out, a2a_src, a2a_out
    if rank == 0:
        doc = dict(format="dmac-nccl-results", version=1, ranks=world,
                   date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   torch=torch.__version__, nccl=".".join(map(str, torch.cuda.nccl.version())),
                   device=torch.cuda.get_device_name(0), runs=runs)
        json.dump(doc, open(path, "w"), indent=1)
        for r in runs:
            print("nccl %-10s %11d %12.1f us %s" % (r["collective"], r["totalBytes"], r["medianUs"], r["verified"]))
    dist.destroy_process_group()


if __name__ == "__main__":
    path = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [1024 * 16**k for k in range(6)]
    world = torch.cuda.device_count()
    mp.spawn(worker, args=(world, sizes, path), nprocs=world)
