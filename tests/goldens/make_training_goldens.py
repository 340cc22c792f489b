#!/usr/bin/env python3
"""Writes the training goldens, with PyTorch:

- tests/goldens/optimizers.txt: torch.optim's SGD (plain; momentum with
  dampening and weight decay; nesterov), Adam (with L2 weight decay) and
  AdamW, each stepped 5 times on one [2 3] parameter from gradients given by
  formulas (the C++ test evaluates them too); the parameter after each step.
- tests/goldens/tiny_checkpoint.safetensors: a two-tensor model saved by
  safetensors.torch.save_file, which the test reads and must write back
  byte for byte (so PyTorch's loader reads what shapescript writes).

    pip install torch safetensors && python3 tests/goldens/make_training_goldens.py
"""
import math
import os

import torch
from safetensors.torch import save_file

here = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def start():
    return torch.tensor([[0.5, -1.0, 0.25], [2.0, -0.75, 1.5]], dtype=torch.float32)


def gradient(step):
    # g[i][j] = sin(1.3 * step + i + 0.7 * j) + 0.1 * step, as float32
    return torch.tensor(
        [[math.sin(1.3 * step + i + 0.7 * j) + 0.1 * step for j in range(3)] for i in range(2)],
        dtype=torch.float32,
    )


cases = {
    "sgd lr=0.1": lambda p: torch.optim.SGD([p], lr=0.1),
    "sgd lr=0.1 momentum=0.9 dampening=0.1 weight_decay=0.01": lambda p: torch.optim.SGD(
        [p], lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01
    ),
    "sgd lr=0.05 momentum=0.8 nesterov=1": lambda p: torch.optim.SGD(
        [p], lr=0.05, momentum=0.8, nesterov=True
    ),
    "adam lr=0.01 weight_decay=0.1": lambda p: torch.optim.Adam([p], lr=0.01, weight_decay=0.1),
    "adamw lr=0.01": lambda p: torch.optim.AdamW([p], lr=0.01),
    "adamw lr=0.003 beta1=0.8 beta2=0.99 eps=1e-6 weight_decay=0.05": lambda p: torch.optim.AdamW(
        [p], lr=0.003, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05
    ),
}

lines = ["# optimiser settings; step k: the parameter after k steps, row-major (float32)"]
for name, make in cases.items():
    p = torch.nn.Parameter(start())
    opt = make(p)
    lines.append(name)
    for step in range(1, 6):
        p.grad = gradient(step)
        opt.step()
        lines.append(f"{step}: " + " ".join(repr(float(v)) for v in p.detach().flatten()))
with open(os.path.join(here, "optimizers.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")

save_file(
    {
        "w": torch.arange(6, dtype=torch.float32).reshape(2, 3) * 0.5,
        "b": torch.tensor([1.0, -2.0, 3.0], dtype=torch.float32),
    },
    os.path.join(here, "tiny_checkpoint.safetensors"),
    metadata={"model": "Tiny"},
)
