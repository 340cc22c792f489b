#!/usr/bin/env python3
"""The peers of bench_latency: the MLP 784-256-256-10 in ONNX Runtime
(its C library through the Python wheel, THREADS intra-op threads, the
first argument, 1 by default), forward at batch 1 and 64, each of 10,000
calls timed, input and output bound once (IOBinding: the wheel's nearest
to handing over output buffers); the wheel's own overhead per call,
measured the same way on a model that negates one float; and a PyTorch
training step (forward, cross-entropy, backward, AdamW) at batch 64, 1,000
calls. Prints `peer name p50 p99 mean first cold` lines, in microseconds
(`first`: the session's first call; `cold`: a warm call after the caches
are flushed, the mean of 20, as bench_latency measures its own).

    pip install onnx onnxruntime torch && python3 bench/latency_peers.py
"""
import os
import sys
import time

import numpy as np

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 1


JUNK = np.zeros(64 << 20, np.uint8)  # 64 MB: pushes the model out of the caches


def timed(f, calls, warm=100):
    clock = time.perf_counter
    start = clock()
    f()
    first = (clock() - start) * 1e6
    for _ in range(warm):
        f()
    us = np.empty(calls)
    for i in range(calls):
        start = clock()
        f()
        us[i] = (clock() - start) * 1e6
    cold = 0.0
    for _ in range(20):
        JUNK[::64] += 1
        start = clock()
        f()
        cold += (clock() - start) * 1e6 / 20
    return np.percentile(us, 50), np.percentile(us, 99), us.mean(), first, cold


def identity():
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])], "neg",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def ort_rows():
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1

    def bound(model, output, x, shape):
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        y = np.empty(shape, np.float32)
        binding = session.io_binding()
        binding.bind_cpu_input("x", x)
        binding.bind_output(output, "cpu", 0, np.float32, list(shape), y.ctypes.data)
        return lambda: session.run_with_iobinding(binding) or y  # y lives as long as the call

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from onnx_mlp import onnx_mlp
    model, output = onnx_mlp()
    for b in (1, 64):
        x = np.random.default_rng(1).standard_normal((b, 784)).astype(np.float32)
        print("ort forward_b%d %.1f %.1f %.1f %.1f %.1f" %
              ((b,) + timed(bound(model, output, x, (b, 10)), 10000)))
    one = np.ones(1, np.float32)
    print("ort overhead %.1f %.1f %.1f %.1f %.1f" % timed(bound(identity(), "y", one, (1,)), 10000))


def torch_rows():
    import torch
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    print("torch train_b64 %.1f %.1f %.1f %.1f %.1f" % timed(step, 1000))


for rows in (ort_rows, torch_rows):
    try:
        rows()
    except ImportError as e:
        print(f"# {rows.__name__}: {e}")
