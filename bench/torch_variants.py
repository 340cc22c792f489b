#!/usr/bin/env python3
"""PyTorch's other CPU modes beside its eager figures (mlp_peers.py,
attention_torch.py), on THREADS threads (the first argument, 1 by
default): bf16 autocast (torch.autocast("cpu", torch.bfloat16): bf16
contractions, f32 weights and optimiser) and torch.compile (inductor,
default mode) for the MLP 784-256-256-10's forward at batch 64 and its
AdamW training step at batch 64 and 256, and the attention block's
training call. Prints `autocast name us` and `compile name us` lines, the
best of 5 rounds; a mode that fails prints a `#` line instead."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import best_us  # noqa: E402

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
torch.manual_seed(0)


def mlp():
    return torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10))


def mlp_cases(mode):
    model = mlp()
    run = torch.compile(model) if mode == "compile" else model
    autocast = mode == "autocast"
    x = torch.randn(64, 784)

    def forward():
        with torch.no_grad(), torch.autocast("cpu", torch.bfloat16, enabled=autocast):
            return run(x)

    yield "forward_b64", forward
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    for b in (64, 256):
        xb, yb = torch.randn(b, 784), torch.randint(0, 10, (b,))

        def step(xb=xb, yb=yb):
            opt.zero_grad()
            with torch.autocast("cpu", torch.bfloat16, enabled=autocast):
                loss = F.cross_entropy(run(xb), yb)
            loss.backward()
            opt.step()

        yield f"train_b{b}", step


def attention_case(mode):
    B, T, E, H = 8, 128, 64, 4
    K = E // H
    w = [torch.nn.Parameter(torch.randn(E, E) * 0.125) for _ in range(4)]
    opt = torch.optim.Adam(w, lr=1e-3)
    x = torch.randn(B, T, E)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)

    def attend(x):
        q, k, v = ((x @ wi).view(B, T, H, K).transpose(1, 2) for wi in w[:3])
        scores = (q @ k.transpose(-1, -2)) / K ** 0.5
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return (weights @ v).transpose(1, 2).reshape(B, T, E) @ w[3]

    run = torch.compile(attend) if mode == "compile" else attend

    def step():
        opt.zero_grad()
        with torch.autocast("cpu", torch.bfloat16, enabled=mode == "autocast"):
            y = run(x).float()
        (y * y).sum().backward()
        opt.step()

    yield "attention_step", step


for mode in ("autocast", "compile"):
    for cases in (mlp_cases, attention_case):
        try:
            for name, f in cases(mode):
                print(f"{mode} {name} {best_us(f):.1f}", flush=True)
        except Exception as e:  # noqa: BLE001 (a mode this PyTorch can't run here)
            print(f"# {mode}: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
