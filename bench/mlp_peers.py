#!/usr/bin/env python3
"""The peers of bench_mlp: the same MLP 784-256-256-10 in PyTorch (eager,
on THREADS threads, the first argument, 1 by default) and ONNX Runtime (its
C library through the Python wheel, as many threads, the model exported
from PyTorch): forward at batch 1 and 64, and a
PyTorch training step (forward, cross-entropy, backward, AdamW) at batch 64
and 256. Prints `peer name microseconds` lines, the best of 5 rounds. Without
PyTorch, ONNX Runtime's rows alone, the model built with onnx's helpers.

    pip install torch onnx onnxruntime && python3 bench/mlp_peers.py
"""
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import best_us  # noqa: E402

THREADS = int(sys.argv[1]) if len(sys.argv) > 1 else 1
try:
    import torch
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
except ImportError:
    torch = None


if torch is None:
    print("# no PyTorch: ONNX Runtime's forward rows only")
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from onnx_mlp import onnx_mlp
    session = ort.InferenceSession(onnx_mlp()[0], options, providers=["CPUExecutionProvider"])
    for b in (1, 64):
        x = np.random.default_rng(1).standard_normal((b, 784)).astype(np.float32)
        print(f"ort forward_b{b} {best_us(lambda: session.run(None, {'x': x})):.1f}")
    sys.exit(0)

model = torch.nn.Sequential(
    torch.nn.Linear(784, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10))

for b in (1, 64):
    x = torch.randn(b, 784)
    with torch.no_grad():
        print(f"torch forward_b{b} {best_us(lambda: model(x)):.1f}")

try:
    import onnxruntime as ort
    buffer = io.BytesIO()
    torch.onnx.export(model, torch.randn(1, 784), buffer, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "b"}, "y": {0: "b"}},
                      dynamo=False)
    options = ort.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
    for b in (1, 64):
        x = torch.randn(b, 784).numpy()
        print(f"ort forward_b{b} {best_us(lambda: session.run(None, {'x': x})):.1f}")
except Exception as e:  # no onnxruntime: only PyTorch's rows
    print(f"# ONNX Runtime: {e}")

opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
for b in (64, 256):
    x, y = torch.randn(b, 784), torch.randint(0, 10, (b,))

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    print(f"torch train_b{b} {best_us(step):.1f}")
