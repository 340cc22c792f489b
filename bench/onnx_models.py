#!/usr/bin/env python3
"""The models bench/onnx.sh runs through Engine::load_onnx and ONNX Runtime
(issue 44), exported from PyTorch at opset 17 (dynamo=False), their batch
axis dynamic (`batch`), random weights from seed 0 (nothing downloaded),
and their inputs at batch 1 and 8 as raw little-endian float32:

    python3 bench/onnx_models.py OUT_DIR

writes OUT_DIR/NAME.onnx, OUT_DIR/NAME.b{1,8}.in.bin and OUT_DIR/models.txt,
a line a model: `NAME INPUT_NAME OUTPUT_NAME INPUT_SHAPE OUTPUT_SHAPE`, the
shapes as `B,...` with B for the batch.
"""
import os
import sys

import numpy as np
import torch
from torch import nn


class GruPolicy(nn.Module):
    """A recurrent policy: 20 observations of 16 values, a GRU of hidden 32,
    and the last state's 4 action logits."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 32, batch_first=True)
        self.head = nn.Linear(32, 4)

    def forward(self, obs):
        states, _ = self.gru(obs)
        return self.head(states[:, -1])


def encoder():
    """Two post-norm encoder layers, d_model 64, 4 heads, feed-forward 256."""
    layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def calibrate(module, in_shape):
    """Batch norms' running statistics from a few random batches, so each
    layer's output is about unit scale (torchvision's initial statistics
    leave MobileNetV2's logits near 1e-9, too small to compare)."""
    norms = [m for m in module.modules() if isinstance(m, nn.BatchNorm2d)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average
    module.train()
    with torch.no_grad():
        for _ in range(4):
            module(torch.randn(8, *in_shape))


def models():
    import torchvision

    return [
        ("resnet18", lambda: torchvision.models.resnet18(weights=None), (3, 224, 224), (1000,)),
        ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), (3, 224, 224),
         (1000,)),
        ("gru_policy", GruPolicy, (20, 16), (4,)),
        ("encoder", encoder, (24, 64), (24, 64)),
        ("mlp", mlp, (784,), (10,)),
    ]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.backends.mha.set_fastpath_enabled(False)  # the fused path has no export
    lines = []
    for name, make, in_shape, out_shape in models():
        torch.manual_seed(0)
        module = make()
        calibrate(module, in_shape)
        module.eval()
        example = torch.randn(1, *in_shape)
        torch.onnx.export(module, (example,), os.path.join(out, name + ".onnx"), dynamo=False,
                          opset_version=17, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        rng = np.random.default_rng(1)
        for b in (1, 8):
            x = rng.standard_normal((b, *in_shape)).astype("<f4")
            x.tofile(os.path.join(out, f"{name}.b{b}.in.bin"))
        shape = lambda s: ",".join(["B"] + [str(d) for d in s])  # noqa: E731
        lines.append(f"{name} input output {shape(in_shape)} {shape(out_shape)}\n")
    with open(os.path.join(out, "models.txt"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
