#!/usr/bin/env python3
"""cnn.ss's twin in PyTorch: the same data, model (channels last, PyTorch's
default initialisation), AdamW(lr=3e-3, weight_decay=0.01), batch 64
(the last partial batch kept), 20 epochs shuffled by epoch. Prints each
seed's test accuracy after the last epoch and their mean, for seeds 0, 1, 2.
The initial draws and shuffles are PyTorch's, not ours, so the figures to
compare are the means over seeds (examples/cnn/README.md).

    pip install torch safetensors && python3 examples/cnn/cnn_twin.py
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file

here = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)
train = load_file(os.path.join(here, "../digits/digits-train.safetensors"))
test = load_file(os.path.join(here, "../digits/digits-test.safetensors"))


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.out = nn.Linear(128, 10)

    def forward(self, pixels):
        x = pixels.reshape(-1, 1, 8, 8).contiguous(memory_format=torch.channels_last)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.out(x.permute(0, 2, 3, 1).reshape(x.shape[0], -1))  # (h w c), as ours


def run(seed):
    torch.manual_seed(seed)
    m = Cnn().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
    n = train["label"].shape[0]
    for epoch in range(20):
        order = torch.randperm(n, generator=torch.Generator().manual_seed(1000 * seed + epoch))
        for start in range(0, n, 64):
            at = order[start:start + 64]
            loss = F.cross_entropy(m(train["pixels"][at]), train["label"][at].long())
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return (m(test["pixels"]).argmax(-1) == test["label"].long()).float().mean().item()


accuracies = [run(seed) for seed in (0, 1, 2)]
for seed, a in enumerate(accuracies):
    print("seed %d accuracy %.4f" % (seed, a))
print("mean accuracy %.4f" % (sum(accuracies) / 3))
