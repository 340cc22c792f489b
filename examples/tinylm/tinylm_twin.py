#!/usr/bin/env python3
"""tinylm.ss's twin in PyTorch: the same model (embedding and positions, two
post-norm transformer blocks of 4-head causal attention and a relu MLP,
unembedding), the same initial values, the same data split and batches
(shapescript's counter-based generator, Philox-4x32-10, replicated below),
Adam with clip_grad_norm_ 1.0, lr 3e-3 then 1e-3, 300 steps of 16 windows.
It prints the test loss at the same steps as tinylm.ss and writes the last
to twin_loss.txt, which the test of the example compares with ours.

    pip install torch numpy safetensors && python3 examples/tinylm/tinylm_twin.py
"""
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file

here = os.path.dirname(os.path.abspath(__file__))
M32 = 0xFFFFFFFF


def philox(counter, key):
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c3 ^ k1) & M32, p0 & M32
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return c0, c1, c2, c3


def words(seed, stream, index):
    return philox((index & M32, index >> 32, stream, 0), (seed & M32, seed >> 32))


def unit(bits):  # 24 bits to [0, 1), a float32
    return np.float32(bits >> 8) * np.float32(1.0 / 16777216.0)


def uniform(seed, stream, index):
    return unit(words(seed, stream, index)[0])


def normal(seed, stream, index):
    w = words(seed, stream, index)
    u1 = 1.0 - float(unit(w[0]))
    u2 = float(unit(w[1]))
    return np.float32(math.sqrt(-2.0 * math.log(u1)) * math.cos(6.283185307179586 * u2))


def shuffled(rows, seed):  # Fisher-Yates, each swap's draw the generator's at its position
    rows = list(rows)
    for i in range(len(rows) - 1, 0, -1):
        j = int(float(uniform(seed, 0x73687566, i)) * (i + 1))
        rows[i], rows[j] = rows[j], rows[i]
    return rows


V, T, H, K, L = 64, 32, 4, 8, 2
E, Fw = H * K, 4 * H * K
# Declaration order, as Lm(seed=1) draws them: parameter k reads stream k.
layout = [("embed", (V, E), "normal"), ("position", (T, E), "normal")]
for layer in range(L):
    for name, i, o in [("q", E, E), ("k", E, E), ("v", E, E), ("o", E, E), ("up", E, Fw), ("down", Fw, E)]:
        layout += [(f"blocks.{layer}.{name}.w", (i, o), "glorot"), (f"blocks.{layer}.{name}.b", (o,), "zeros")]
layout.append(("unembed", (E, V), "normal"))


def initial(seed):
    params = {}
    for stream, (name, shape, kind) in enumerate(layout):
        n = int(np.prod(shape))
        if kind == "zeros":
            v = np.zeros(n, np.float32)
        elif kind == "normal":
            v = np.array([np.float32(0.02 * float(normal(seed, stream, at))) for at in range(n)], np.float32)
        else:
            high = math.sqrt(6.0 / (int(np.prod(shape[:-1])) + shape[-1]))
            v = np.array([np.float32(-high + 2 * high * float(uniform(seed, stream, at))) for at in range(n)],
                         np.float32)
        params[name] = torch.tensor(v.reshape(shape), requires_grad=True)
    return params


def forward(p, tokens):
    b = tokens.shape[0]
    x = p["embed"][tokens] + p["position"]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    lin = lambda name, h: h @ p[name + ".w"] + p[name + ".b"]
    for layer in range(L):
        at = f"blocks.{layer}."
        heads = lambda h: h.reshape(b, T, H, K).transpose(1, 2)
        q, k, v = (heads(lin(at + n, x)) for n in "qkv")
        scores = (q @ k.transpose(-1, -2) / math.sqrt(K)).masked_fill(mask, float("-inf"))
        mixed = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, T, E)
        x = F.layer_norm(x + lin(at + "o", mixed), (E,))
        x = F.layer_norm(x + lin(at + "down", F.relu(lin(at + "up", x))), (E,))
    return x @ p["unembed"]


def loss(p, rows):
    logits = forward(p, tokens[rows])
    return F.cross_entropy(logits.reshape(-1, V), following[rows].reshape(-1))


data = load_file(os.path.join(here, "windows.safetensors"))
tokens = torch.tensor(data["tokens"].astype(np.int64))
following = torch.tensor(data["next"].astype(np.int64))
mixed = shuffled(range(tokens.shape[0]), 0)
first = round(0.9 * len(mixed))
train, test = mixed[:first], mixed[first:]

p = initial(1)
opt = torch.optim.Adam(p.values(), lr=3e-3)
for i in range(75):
    order = shuffled(train, i)
    for start in range(0, 64, 16):
        l = loss(p, order[start:start + 16])
        opt.zero_grad()
        l.backward()
        torch.nn.utils.clip_grad_norm_(p.values(), 1.0)
        opt.step()
    if i % 15 == 14:
        with torch.no_grad():
            t = loss(p, test).item()
        print(f"step {4 * (i + 1)}: loss {l.item():.4f}, test {t:.4f}")
    if i == 50:
        for group in opt.param_groups:
            group["lr"] = 1e-3
with open(os.path.join(here, "twin_loss.txt"), "w") as f:
    f.write("# tinylm_twin.py (PyTorch %s): the test loss after 300 steps\n" % torch.__version__.split("+")[0])
    f.write("test loss %.4f\n" % t)
print("wrote twin_loss.txt")
