#!/usr/bin/env python3
"""Trains the classifier examples/embed/onnx_finetune.cpp fine-tunes, and
writes what it loads:

- classifier.onnx: the MLP 784-256-256-10 (nn.Sequential of Linear, ReLU),
  trained in PyTorch and exported at opset 17 (dynamo=False), its batch
  axis dynamic;
- classifier_data.safetensors: `prototypes` [10 784], the ten classes'
  images it was trained on (a sample is its class's prototype plus
  Gaussian noise of deviation NOISE); `shifted` [10 784], the same classes
  after the world changed (each image moved 3 pixels right and 2 down,
  dimmer, with a band of glare): the host samples its fine-tuning and
  held-out data from these; and `check_x` [4 784] with `check_logits`
  [4 10], PyTorch's logits for four inputs (the host's check that the
  import computes what PyTorch does).

Needs torch and onnx; seeded, so the same files each run (byte for byte
with the same torch).

    python3 examples/embed/make_onnx_classifier.py
"""
import os
import sys

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from train_policy import save_safetensors  # noqa: E402  (torch tensors, by hand)
NOISE = 0.35  # onnx_finetune.cpp's kNoise


def prototypes(rng):
    """Ten 28x28 images, each a few soft blobs, in [0, 1]."""
    ys, xs = np.mgrid[0:28, 0:28]
    out = np.zeros((10, 28, 28), np.float32)
    for c in range(10):
        for _ in range(4):
            cy, cx = rng.uniform(5, 23, 2)
            s = rng.uniform(2.0, 4.5)
            out[c] += np.exp(-((ys - cy) ** 2 + (xs - cx) ** 2) / (2 * s * s))
        out[c] /= out[c].max()
    return out


def shift(images):
    moved = np.roll(np.roll(images, 3, axis=2), 2, axis=1) * 0.7
    moved[:, 10:13, :] += 0.5  # glare
    return moved.astype(np.float32)


def main():
    rng = np.random.default_rng(7)
    torch.manual_seed(7)
    protos = prototypes(rng).reshape(10, 784)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    base = torch.from_numpy(protos)
    for _ in range(300):
        labels = torch.randint(0, 10, (128,))
        x = base[labels] + NOISE * torch.randn(128, 784)
        loss = nn.functional.cross_entropy(model(x), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    check_x = (base[torch.arange(4)] + NOISE * torch.randn(4, 784)).float()
    with torch.no_grad():
        check_logits = model(check_x)
    torch.onnx.export(model, (check_x,), os.path.join(HERE, "classifier.onnx"), dynamo=False,
                      opset_version=17, input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    shifted = shift(protos.reshape(10, 28, 28)).reshape(10, 784)
    save_safetensors(os.path.join(HERE, "classifier_data.safetensors"),
                     {"prototypes": base, "shifted": torch.from_numpy(shifted),
                      "check_x": check_x, "check_logits": check_logits})
    with torch.no_grad():  # how the exported model does on each world, for the record
        for name, p in (("trained", base), ("shifted", torch.from_numpy(shifted))):
            labels = torch.arange(10).repeat(50)
            x = p[labels] + NOISE * torch.randn(500, 784)
            accuracy = (model(x).argmax(1) == labels).float().mean().item()
            print(f"{name} world: accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
