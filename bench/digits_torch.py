#!/usr/bin/env python3
"""The digits demo in PyTorch, as the peer of `shapescript run
examples/digits/digits.ss`: the same MLP (64-128-10, normal(0.1) weights,
zero biases), the same data files, 30 epochs of AdamW (lr 1e-3, weight
decay 0.01) on shuffled batches of 64, test accuracy after each epoch.
Prints the final accuracy and the seconds it took, one thread (as the
reference runtime runs), after imports and loading.

    pip install torch safetensors && python3 bench/digits_torch.py
"""
import os
import sys
import time

import torch
from safetensors.torch import load_file

torch.set_num_threads(1)
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "digits")
train = load_file(os.path.join(here, "digits-train.safetensors"))
test = load_file(os.path.join(here, "digits-test.safetensors"))
torch.manual_seed(0)
w1 = (torch.randn(64, 128) * 0.1).requires_grad_()
b1 = torch.zeros(128, requires_grad=True)
w2 = (torch.randn(128, 10) * 0.1).requires_grad_()
b2 = torch.zeros(10, requires_grad=True)
params = [w1, b1, w2, b2]
opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01)


def logits(x):
    return torch.relu(x @ w1 + b1) @ w2 + b2


start = time.perf_counter()
n = train["pixels"].shape[0]
for epoch in range(30):
    order = torch.randperm(n, generator=torch.Generator().manual_seed(epoch))
    for i in range(0, n, 64):
        rows = order[i : i + 64]
        loss = torch.nn.functional.cross_entropy(logits(train["pixels"][rows]), train["label"][rows].long())
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        accuracy = (logits(test["pixels"]).argmax(1) == test["label"].long()).float().mean().item()
seconds = time.perf_counter() - start
print(f"{accuracy:.4f} {seconds:.3f}")
sys.stdout.flush()
