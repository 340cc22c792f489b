#!/usr/bin/env python3
"""Writes tests/goldens/digits_mlp.txt: the digits program's logits, loss and
accuracy at batch sizes 1, 64 and 1000, computed with numpy in float64 from
float32 parameters and inputs. Parameters and inputs come from formulas that
the C++ test evaluates too (tests/runtime/digits_graph_test.cpp), so only the
results are stored.

    pip install numpy && python3 tests/goldens/make_digits_goldens.py
"""
import os

import numpy as np

D, H, C = 64, 128, 10


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


i, j = np.meshgrid(np.arange(D), np.arange(H), indexing="ij")
w1 = f32(0.1 * np.sin(0.37 * i + 0.11 * j + 0.5))
b1 = f32(0.01 * np.cos(0.3 * np.arange(H)))
i, j = np.meshgrid(np.arange(H), np.arange(C), indexing="ij")
w2 = f32(0.1 * np.sin(0.23 * i - 0.17 * j))
b2 = f32(0.02 * np.cos(0.7 * np.arange(C)))

lines = []
for b in (1, 64, 1000):
    n, d = np.meshgrid(np.arange(b), np.arange(D), indexing="ij")
    x = f32(8 * np.sin(0.013 * n + 0.07 * d) + 8)
    labels = (np.arange(b) * 7) % C
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    peak = logits.max(axis=1, keepdims=True)
    log_p = logits - (peak + np.log(np.exp(logits - peak).sum(axis=1, keepdims=True)))
    loss = -log_p[np.arange(b), labels].mean()
    accuracy = (logits.argmax(axis=1) == labels).mean()
    lines.append("logits %d %s" % (b, " ".join(repr(float(v)) for v in f32(logits).reshape(-1))))
    lines.append("loss %d %r" % (b, float(f32(loss))))
    lines.append("accuracy %d %r" % (b, float(f32(accuracy))))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits_mlp.txt")
with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", path)
