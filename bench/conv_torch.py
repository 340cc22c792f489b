#!/usr/bin/env python3
"""PyTorch's figures for bench/conv.sh, channels last (its fast CPU
layout), best microseconds per call on THREADS threads: the CNN of
examples/cnn's training step (AdamW) at batch 64 and 256, and a conv layer
(batch 8, 32x32, 64 to 64 channels, 3x3, padding 1) forward, and forward
with backward of sum(y * y). Prints `name us`."""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import best_us  # noqa: E402


def best(f):
    return best_us(f, 0.1)

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1)
        self.out = nn.Linear(128, 10)

    def forward(self, pixels):
        x = pixels.reshape(-1, 1, 8, 8).contiguous(memory_format=torch.channels_last)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.out(x.permute(0, 2, 3, 1).reshape(x.shape[0], -1))


for b in (64, 256):
    m = Cnn().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
    x, y = torch.randn(b, 64), torch.arange(b) % 10

    def step():
        loss = F.cross_entropy(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    print("cnn_step_b%d %.1f" % (b, best(step)))

x = torch.randn(8, 64, 32, 32).contiguous(memory_format=torch.channels_last)
k = (torch.randn(64, 64, 3, 3) * 0.05).contiguous(memory_format=torch.channels_last).requires_grad_()
with torch.no_grad():
    print("conv_forward %.1f" % best(lambda: F.conv2d(x, k, padding=1)))


def backward():
    k.grad = None
    y = F.conv2d(x, k, padding=1)
    (y * y).sum().backward()


print("conv_gradient %.1f" % best(backward))
