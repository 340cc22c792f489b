#!/usr/bin/env python3
"""bench_gpu's peer on the same GPU: PyTorch (eager, CUDA) for the MLP
784-256-256-10 training step at batch 256 (AdamW) and the causal
self-attention block (batch 8, seq 512, d_model 256, 8 heads; forward, the
output's sum of squares, backward, Adam), and examples/cnn's training step
at batch 256. Its state and inputs stay on the GPU: bench_gpu's
`_resident` rows are the like-for-like ones. The first argument picks the
contractions' precision as bench_gpu's does: f32 (TF32 off), tf32, or bf16
(autocast). Prints `name microseconds` lines, the best of 5 rounds, each
timed to a synchronised end."""
import sys
import time

import torch

precision = sys.argv[1] if len(sys.argv) > 1 else "f32"
torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
dev = torch.device("cuda:0")
torch.manual_seed(0)


def best_us(step):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.3:
            step()
            calls += 1
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def autocast():
    return torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "bf16")


mlp = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                          torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(dev)
opt = torch.optim.AdamW(mlp.parameters(), lr=1e-3, weight_decay=0.01)
x = torch.randn(256, 784, device=dev)
y = torch.randint(0, 10, (256,), device=dev)


def mlp_step():
    opt.zero_grad()
    with autocast():
        loss = torch.nn.functional.cross_entropy(mlp(x), y)
    loss.backward()
    opt.step()


print(f"mlp_train_b256 {best_us(mlp_step):.1f}")

B, T, E, H = 8, 512, 256, 8
K = E // H
w = [torch.nn.Parameter(torch.randn(E, E, device=dev) / E ** 0.5) for _ in range(4)]
adam = torch.optim.Adam(w, lr=1e-3)
xa = torch.randn(B, T, E, device=dev)
mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=dev), 1)


def attend():
    q, k, v = ((xa @ wi).view(B, T, H, K).transpose(1, 2) for wi in w[:3])
    scores = (q @ k.transpose(-1, -2)) / K ** 0.5
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    return (weights @ v).transpose(1, 2).reshape(B, T, E) @ w[3]


def attention_step():
    adam.zero_grad()
    with autocast():
        out = attend()
        loss = (out.float() * out.float()).sum()
    loss.backward()
    adam.step()


print(f"attention_step {best_us(attention_step):.1f}")


class Cnn(torch.nn.Module):
    """examples/cnn's model: conv 1->16, pool, conv 16->32, pool, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.out = torch.nn.Linear(128, 10)

    def forward(self, pixels):
        x = pixels.reshape(-1, 1, 8, 8)
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.out(x.permute(0, 2, 3, 1).reshape(x.shape[0], -1))


cnn = Cnn().to(dev)
cnn_opt = torch.optim.AdamW(cnn.parameters(), lr=3e-3, weight_decay=0.01)
pixels = torch.rand(256, 64, device=dev)
digits = torch.arange(256, device=dev) % 10


def cnn_step():
    cnn_opt.zero_grad()
    with autocast():
        loss = torch.nn.functional.cross_entropy(cnn(pixels), digits)
    loss.backward()
    cnn_opt.step()


print(f"cnn_step_b256 {best_us(cnn_step):.1f}")
