# A dmac all-gather of four tensors on four GPUs, triggered from each GPU's compute stream.
#   dmac compile examples/all_gather_b2b.dmac --target h200x4.json -D engine=0 -O2 -D chunk=1MiB -o ag
#   PYTHONPATH=runtime/python python3 runtime/python/examples/all_gather.py ag/program.txt
# (h200x4.json: targets/h200.json with "gpus": 4; build the library first: make -C runtime/cuda lib)
import sys, torch, dmac_runtime

prog = dmac_runtime.Program(sys.argv[1])
(name, _, size), n = prog.buffers[0], prog.gpus  # buffer `buf`: n shards, in place on every rank
shard = size // n
shards = [torch.randint(0, 256, (shard,), dtype=torch.uint8, device=f"cuda:{r}") for r in range(n)]
bufs = [torch.zeros(size, dtype=torch.uint8, device=f"cuda:{r}") for r in range(n)]
for r in range(n):
    prog.bind(name, r, bufs[r])
prog.prepare()
compute = [torch.cuda.current_stream(r) for r in range(n)]
for r in range(n):
    bufs[r][r * shard : (r + 1) * shard].copy_(shards[r])  # the producer, on rank r's compute stream
prog.run(compute)  # trigger after the producers, the copies, then the compute streams wait
# all_gather_into_tensor's result is the shards concatenated in rank order:
expected = torch.cat([s.cpu() for s in shards])
print("all-gather equal on every rank:", all(torch.equal(b.cpu(), expected) for b in bufs))
