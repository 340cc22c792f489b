#!/usr/bin/env python3
"""The ONNX op types the importer must cover (issue 43): PyTorch's exports,
at opset 17 with the TorchScript exporter (dynamo=False, as every export
script here), of torchvision's image models and of the torch.nn modules
the issue names. Writes tests/onnx/model_ops.txt, which a test holds
against the importer's supported list.

    python3 tests/onnx/model_ops.py      # needs torch, torchvision, onnx (PyPI)

Weights are random (no download): the op types don't depend on them. Each
model is exported in eval mode (BatchNorm as inference), its batch axis
dynamic, as a host would export it for loading at run time.
"""
import io
import os
import sys

import onnx
import torch
import torchvision

OPSET = 17


class Transformer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


class Recurrent(torch.nn.Module):
    """A recurrent layer's outputs and final state(s)."""

    def __init__(self, kind):
        super().__init__()
        self.layer = getattr(torch.nn, kind)(16, 24, num_layers=2, batch_first=True)

    def forward(self, x):
        out, state = self.layer(x)
        return (out,) + (tuple(state) if isinstance(state, tuple) else (state,))


class Embedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(100, 16)

    def forward(self, ids):
        return self.table(ids)


def models():
    """(name, module, example inputs, input names)"""
    image = (torch.randn(1, 3, 224, 224),)
    for name in ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
                 "shufflenet_v2_x1_0", "convnext_tiny", "vit_b_16"]:
        yield name, getattr(torchvision.models, name)(weights=None), image, ["image"]
    tokens = (torch.randn(2, 10, 32),)
    yield "nn.TransformerEncoder", Transformer(), tokens, ["x"]
    yield "nn.MultiheadAttention", Attention(), tokens, ["x"]
    for kind in ["GRU", "LSTM", "RNN"]:
        yield "nn." + kind, Recurrent(kind), (torch.randn(2, 7, 16),), ["x"]
    yield "nn.LayerNorm", torch.nn.LayerNorm(32), tokens, ["x"]
    yield "nn.BatchNorm1d", torch.nn.BatchNorm1d(16), (torch.randn(4, 16, 9),), ["x"]
    yield "nn.BatchNorm2d", torch.nn.BatchNorm2d(8), (torch.randn(2, 8, 5, 5),), ["x"]
    yield "nn.BatchNorm3d", torch.nn.BatchNorm3d(4), (torch.randn(2, 4, 3, 5, 5),), ["x"]
    yield "nn.Embedding", Embedding(), (torch.randint(0, 100, (2, 10)),), ["ids"]
    yield ("nn.ConvTranspose2d", torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1,
                                                          output_padding=1),
           (torch.randn(2, 8, 7, 7),), ["x"])


def exported(module, inputs, names):
    module.eval()
    buffer = io.BytesIO()
    kwargs = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
    with torch.no_grad():
        torch.onnx.export(module, inputs, buffer, opset_version=OPSET, input_names=names,
                          dynamic_axes={n: {0: "batch"} for n in names}, **kwargs)
    model = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(model)
    return model


def nodes(graph):
    """Every node, subgraphs' (a Loop's, an If's) included."""
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield from nodes(attribute.g)
            for g in attribute.graphs:
                yield from nodes(g)


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_ops.txt")
    torch.manual_seed(0)
    # Attention's fused inference path (aten::_native_multi_head_attention)
    # has no ONNX export: the modules' own ops instead, as a host exports them.
    torch.backends.mha.set_fastpath_enabled(False)
    per_model, attributes = [], {}
    for name, module, inputs, names in models():
        model = exported(module, inputs, names)
        ops = set()
        for node in nodes(model.graph):
            op = node.op_type if node.domain in ("", "ai.onnx") else node.domain + "." + node.op_type
            ops.add(op)
            attributes.setdefault(op, set()).update(a.name for a in node.attribute)
        per_model.append((name, sorted(ops)))
        print(f"{name}: {len(ops)} op types", file=sys.stderr)
    with open(out, "w") as f:
        f.write("# The ONNX op types of the models issue 43 imports, written by\n"
                "# tests/onnx/model_ops.py: torch %s, torchvision %s, onnx %s, opset %d,\n"
                "# the TorchScript exporter (dynamo=False), eval mode.\n"
                "# model <tab> its op types; then `attributes` lines: an op <tab> the\n"
                "# attributes its nodes set here.\n"
                % (torch.__version__, torchvision.__version__, onnx.__version__, OPSET))
        for name, ops in per_model:
            f.write(f"{name}\t{' '.join(ops)}\n")
        for op in sorted(attributes):
            f.write(f"attributes {op}\t{' '.join(sorted(attributes[op]))}\n")
    every = sorted({op for _, ops in per_model for op in ops})
    print(f"{len(every)} op types in all: {' '.join(every)}", file=sys.stderr)


if __name__ == "__main__":
    main()
