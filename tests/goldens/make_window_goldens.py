#!/usr/bin/env python3
"""Writes tests/goldens/windows.txt: conv in 1, 2 and 3 dimensions (stride,
padding, dilation, groups, depthwise, padding=same), max_pool and avg_pool,
their outputs and gradients, computed by PyTorch in float64 from float32
inputs. Our layout is channels last; PyTorch's is channels first, so each
case permutes in and out. Inputs are normal draws: no ties in a max.

For each case, the loss sum(y * r) with r given: its gradients with respect
to x and k are the goldens gx and gk (tests/runtime/conv_pool_test.cpp).

    pip install torch numpy && python3 tests/goldens/make_window_goldens.py
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(20)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def first(x):  # channels last -> channels first
    return x.permute(0, x.dim() - 1, *range(1, x.dim() - 1))


def last(y):  # channels first -> channels last
    return y.permute(0, *range(2, y.dim()), 1)


def kernel(k):  # ours [K.. Ci Co] -> PyTorch's [Co Ci K..]
    n = k.dim() - 2
    return k.permute(n + 1, n, *range(n))


CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


def spaced(v):
    return "[%s]" % " ".join(str(a) for a in v) if isinstance(v, (list, tuple)) else str(v)


cases = []


def conv(name, x_shape, k_shape, stride=1, padding=0, dilation=1, groups=1):
    n = len(x_shape) - 2
    x, k = f32(*x_shape), f32(*k_shape)
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tk = torch.tensor(k, dtype=torch.float64, requires_grad=True)
    y = last(CONV[n](first(tx), kernel(tk), stride=stride, padding=padding, dilation=dilation, groups=groups))
    out = list(y.shape[1:1 + n])
    args = ["over=[%s]" % " ".join(str(i + 1) for i in range(n))]
    if stride != 1:
        args.append("stride=" + spaced(stride))
    if padding != 0:
        args.append("padding=" + spaced(padding))
    if dilation != 1:
        args.append("dilation=" + spaced(dilation))
    if groups != 1:
        args.append("groups=%d" % groups)
    if out != list(x_shape[1:1 + n]):
        args.append("out=" + spaced(out))
    call = "conv(x, k, %s)" % ", ".join(args)
    finish(name, call, [("x", x, tx), ("k", k, tk)], y)


def pool(name, kind, x_shape, window, stride=None, padding=0):
    n = len(x_shape) - 2
    x = f32(*x_shape)
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    fn = MAX[n] if kind == "max_pool" else AVG[n]
    y = last(fn(first(tx), window, stride=stride, padding=padding))
    out = list(y.shape[1:1 + n])
    args = ["over=[%s]" % " ".join(str(i + 1) for i in range(n)), "window=" + spaced(window)]
    if stride is not None:
        args.append("stride=" + spaced(stride))
    if padding != 0:
        args.append("padding=" + spaced(padding))
    if out != list(x_shape[1:1 + n]):
        args.append("out=" + spaced(out))
    finish(name, "%s(x, %s)" % (kind, ", ".join(args)), [("x", x, tx)], y)


def finish(name, call, inputs, y):
    r = f32(*y.shape)
    (y * torch.tensor(r, dtype=torch.float64)).sum().backward()
    tensors = [(n, v) for n, v, _ in inputs] + [("r", r), ("y", y.detach().numpy())]
    tensors += [("g" + n, t.grad.numpy()) for n, _, t in inputs]
    cases.append((name, call, tensors))


conv("conv1d stride 2 padding 1", (2, 9, 3), (3, 3, 4), stride=2, padding=1)
conv("conv1d dilation 3", (2, 9, 3), (2, 3, 4), dilation=3)
conv("conv2d stride, padding and dilation per axis", (2, 6, 5, 3), (3, 3, 3, 4), stride=[2, 1], padding=[1, 0],
     dilation=[1, 2])
conv("conv2d padding same, an even kernel", (2, 5, 6, 4), (3, 2, 4, 6), padding="same")
conv("conv2d groups 2", (2, 5, 5, 4), (3, 3, 2, 6), padding=1, groups=2)
conv("conv2d depthwise, stride 2", (1, 4, 4, 3), (3, 3, 1, 3), stride=2, padding=1, groups=3)
conv("conv3d", (1, 4, 5, 4, 2), (2, 3, 2, 2, 3), stride=[1, 2, 1], padding=[0, 1, 1])
pool("max_pool1d", "max_pool", (2, 8, 3), 2)
pool("max_pool2d window 2", "max_pool", (2, 6, 5, 3), 2)
pool("max_pool2d window 3 stride 2 padding 1", "max_pool", (1, 7, 6, 2), 3, stride=2, padding=1)
pool("avg_pool2d window [2 3] stride 2 padding [0 1]", "avg_pool", (2, 6, 5, 3), [2, 3], stride=[2, 2],
     padding=[0, 1])
pool("avg_pool3d window 2", "avg_pool", (1, 4, 4, 4, 2), 2)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "windows.txt")
with open(path, "w") as f:
    f.write("# made by make_window_goldens.py (PyTorch %s); channels last\n" % torch.__version__.split("+")[0])
    for name, call, tensors in cases:
        f.write("case %s\ncall %s\n" % (name, call))
        for n, v in tensors:
            f.write("%s %s : %s\n" % (n, " ".join(str(d) for d in v.shape),
                                      " ".join(repr(float(np.float32(a))) for a in v.reshape(-1))))
print("wrote", len(cases), "cases to", path)
