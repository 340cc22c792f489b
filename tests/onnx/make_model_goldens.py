#!/usr/bin/env python3
"""ONNX Runtime's outputs for the models issue 43 imports (the list of
tests/onnx/model_ops.py), the goldens tests/onnx/model_goldens_test.cpp
holds the import to (docs/numerics.md's `onnx` row):

    python3 tests/onnx/make_model_goldens.py    # needs torch, torchvision, onnx, onnxruntime, safetensors

Each model is exported as model_ops.py exports it (opset 17, dynamo=False,
eval mode, its batch axis dynamic as `batch`), weights drawn from seed 0
(a weight that torchvision initialises to zeros, as ViT's head, drawn
instead, so every output depends on the input). The torch.nn modules are
small and committed (tests/onnx/models/torch/); the torchvision models
(10-350 MB) go to $SS_ONNX_MODELS, else ~/.cache/shapescript/onnx-models,
where the test finds them (and reports them skipped without them).

Inputs aren't stored: element i of a float input is
((i * 7919) mod 1000) / 500 - 1, of an integer input i mod 100, which the
test computes too. goldens/manifest.txt lists each model, its file and its
batch size; goldens/NAME.safetensors holds its outputs by the graph's names.
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime
import torch
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_ops  # noqa: E402

SMALL = os.path.join(HERE, "models", "torch")
GOLDENS = os.path.join(HERE, "goldens")
LARGE = os.environ.get("SS_ONNX_MODELS", os.path.expanduser("~/.cache/shapescript/onnx-models"))


def pattern(shape, integer):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    if integer:
        return (i % 100).reshape(shape)
    return (((i * 7919) % 1000) / 500.0 - 1.0).astype(np.float32).reshape(shape)


def file_name(name):
    return name.replace("nn.", "nn_") + ".onnx"


def main():
    os.makedirs(SMALL, exist_ok=True)
    os.makedirs(GOLDENS, exist_ok=True)
    os.makedirs(LARGE, exist_ok=True)
    torch.manual_seed(0)
    torch.backends.mha.set_fastpath_enabled(False)
    rows = []
    for name, module, inputs, names in model_ops.models():
        with torch.no_grad():
            for p in module.parameters():
                if p.numel() > 1 and float(p.abs().sum()) == 0:
                    torch.nn.init.normal_(p, std=0.02)
        feeds = {}
        for n, t in zip(names, inputs):
            integer = not t.is_floating_point()
            feeds[n] = pattern(tuple(t.shape), integer)
        torch_inputs = tuple(torch.from_numpy(feeds[n]) for n in names)
        model = model_ops.exported(module, torch_inputs, names)
        small = name.startswith("nn.")
        folder = SMALL if small else LARGE
        path = os.path.join(folder, file_name(name))
        onnx.save(model, path)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        outputs = session.run(None, feeds)
        golden = {}
        for info, value in zip(session.get_outputs(), outputs):
            golden[info.name] = value.astype(np.int32) if value.dtype == np.int64 else value
        save_file(golden, os.path.join(GOLDENS, file_name(name).replace(".onnx", ".safetensors")))
        batch = feeds[names[0]].shape[0]
        rows.append(f"{name}\t{'torch/' if small else ''}{file_name(name)}\t{batch}")
        print(name, [v.shape for v in outputs], flush=True)
    with open(os.path.join(GOLDENS, "manifest.txt"), "w") as f:
        f.write("# model <tab> its file (torch/: committed, else in $SS_ONNX_MODELS) <tab> batch size;\n")
        f.write(f"# written by tests/onnx/make_model_goldens.py: torch {torch.__version__}, "
                f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
