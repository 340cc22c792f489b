#!/usr/bin/env python3
"""Writes tests/goldens/tinylm.txt: the loss of tests/programs/valid/tinylm_one_block.ss
(embedding, causal self-attention with einsum and rearrange, layer_norm,
cross_entropy) at batch sizes 1 and 3, computed with numpy in float64 from
float32 parameters given by formulas the C++ test evaluates too.

    pip install numpy && python3 tests/goldens/make_tinylm_goldens.py
"""
import os

import numpy as np

V, T, E, H, K = 64, 32, 32, 4, 8


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def param(rows, cols, a, b, c, scale):
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return f32(scale * np.sin(a * i + b * j + c))


embed = param(V, E, 0.31, 0.17, 0.2, 0.5)
position = param(T, E, 0.11, 0.29, 1.0, 0.1)
wq, wk, wv = param(E, E, 0.13, 0.07, 0.3, 0.2), param(E, E, 0.05, 0.19, 0.6, 0.2), param(E, E, 0.23, 0.03, 0.9, 0.2)
wo = param(H * K, E, 0.17, 0.11, 1.2, 0.2)
unembed = param(E, V, 0.07, 0.13, 1.5, 0.3)


def layer_norm(x):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-5)


def loss(b):
    n, t = np.meshgrid(np.arange(b), np.arange(T), indexing="ij")
    tokens, nxt = (n * 7 + t * 3) % V, (n * 5 + t * 11) % V
    x = embed[tokens] + position
    heads = lambda y: y.reshape(b, T, H, K).transpose(0, 2, 1, 3)
    q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
    scores = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(np.float32(K))
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    mixed = np.einsum("bhij,bhjd->bhid", weights, v).transpose(0, 2, 1, 3).reshape(b, T, H * K)
    x = layer_norm(x + mixed @ wo)
    logits = x @ unembed
    peak = logits.max(axis=-1, keepdims=True)
    log_p = logits - (peak + np.log(np.exp(logits - peak).sum(axis=-1, keepdims=True)))
    return -np.take_along_axis(log_p, nxt[..., None], axis=-1).mean()


path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tinylm.txt")
with open(path, "w") as f:
    for b in (1, 3):
        f.write("loss %d %r\n" % (b, float(f32(loss(b)))))
print("wrote", path)
