#!/usr/bin/env python3
"""bench_attention's peer: the same causal self-attention block (batch 8,
seq 128, d_model 64, 4 heads, no biases) in eager PyTorch on THREADS threads
(the first argument, 1 by default):
forward, the output's sum of squares, backward, an Adam step. Prints
`attention_step microseconds`, the best of 5 rounds."""
import sys
import time

import torch

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
torch.manual_seed(0)
B, T, E, H = 8, 128, 64, 4
K = E // H
w = [torch.nn.Parameter(torch.randn(E, E) * 0.125) for _ in range(4)]
opt = torch.optim.Adam(w, lr=1e-3)
x = torch.randn(B, T, E)
mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)


def attend():
    q, k, v = (
        (x @ wi).view(B, T, H, K).transpose(1, 2) for wi in w[:3])
    scores = (q @ k.transpose(-1, -2)) / K ** 0.5
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return (weights @ v).transpose(1, 2).reshape(B, T, E) @ w[3]


def step():
    opt.zero_grad()
    y = attend()
    (y * y).sum().backward()
    opt.step()


for _ in range(3):
    step()
best = float("inf")
for _ in range(5):
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.3:
        step()
        calls += 1
    best = min(best, (time.perf_counter() - start) / calls)
print(f"attention_step {best * 1e6:.1f}")
