#!/usr/bin/env python3
"""The peer of bench/mpi.sh: the same MLP (784-256-256-10, AdamW) trained
data-parallel with PyTorch DDP over Gloo, one process per rank on loopback,
started by `torchrun --nproc_per_node N`. Each rank takes its part of every
global batch of BATCH examples (one thread a process). Rank 0 prints the
milliseconds per step (after warm-up) and the milliseconds one all-reduce of
the gradients' element count takes (Gloo, alone, after a barrier).

    torchrun --nproc_per_node 2 bench/mpi_ddp.py DATA.safetensors BATCH STEPS
"""
import os
import sys
import time

import torch
import torch.distributed as dist
from safetensors.torch import load_file

torch.set_num_threads(1)
path, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
data = load_file(path)
x_all, y_all = data["pixels"], data["label"].long()
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10))
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3, weight_decay=0.01)
n = x_all.shape[0]
# Rank r's contiguous part of each global batch, as shapescript splits it.
base, extra = batch // world, batch % world
start_r = rank * base + min(rank, extra)
count_r = base + (1 if rank < extra else 0)


def step(i):
    at = (i * batch) % (n - batch + 1)
    x = x_all[at + start_r : at + start_r + count_r]
    y = y_all[at + start_r : at + start_r + count_r]
    # DDP averages gradients over ranks: a mean over the rank's part is the
    # global batch's mean when the parts are equal.
    loss = torch.nn.functional.cross_entropy(ddp(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


for i in range(5):
    step(i)
dist.barrier()
t0 = time.perf_counter()
for i in range(steps):
    step(i)
dist.barrier()
per_step = (time.perf_counter() - t0) / steps

elements = sum(p.numel() for p in model.parameters())
buf = torch.zeros(elements)
for _ in range(3):
    dist.all_reduce(buf)
dist.barrier()
t0 = time.perf_counter()
for _ in range(20):
    dist.all_reduce(buf)
reduce_ms = (time.perf_counter() - t0) / 20 * 1000
if rank == 0:
    print(f"{per_step * 1000:.3f} {reduce_ms:.3f} {elements}")
dist.destroy_process_group()
