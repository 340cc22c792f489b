#!/usr/bin/env python3
"""Seeds of fuzz_onnx_models (tests/fuzz/README.md): real exports cut to at
most 50 nodes, and issue 64's reproducers whole, written to
tests/fuzz/onnx_model_corpus:

    python3 tests/fuzz/make_onnx_model_seeds.py   # needs onnx

A cut keeps a run of at most 50 consecutive nodes of a model (its start
every 25 nodes), the initializers and graph inputs they read, and as
outputs every value they make that none of them reads (at most 4), typed
by ONNX's shape inference; the fuzzer mutates them from there."""
import glob
import os

import onnx
from onnx import helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "onnx", "models")
OUT = os.path.join(HERE, "onnx_model_corpus")
CUT, STEP = 50, 25


def cut(model, start):
    g = model.graph
    nodes = list(g.node[start:start + CUT])
    made = {o for n in nodes for o in n.output if o}
    read = {i for n in nodes for i in n.input if i}
    inits = [t for t in g.initializer if t.name in read]
    init_names = {t.name for t in inits}
    types = {v.name: v for v in list(g.value_info) + list(g.input) + list(g.output)}
    inputs = []
    for name in sorted(read - made - init_names):
        if name not in types:
            return None
        inputs.append(types[name])
    outs = [o for n in nodes for o in n.output if o and o not in read][-4:]
    outputs = []
    for name in outs:
        v = types.get(name)
        if v is None or not v.type.tensor_type.elem_type:
            return None
        outputs.append(v)
    if not outputs:
        return None
    graph = helper.make_graph(nodes, f"{g.name}_cut{start}", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=model.opset_import)
    m.ir_version = model.ir_version
    try:
        onnx.checker.check_model(m)
    except Exception:
        return None
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in glob.glob(os.path.join(OUT, "*.onnx")):
        os.remove(f)
    exports = sorted(glob.glob(os.path.join(MODELS, "transformers", "*.onnx")) +
                     glob.glob(os.path.join(MODELS, "torch", "*.onnx")))
    written = 0
    for path in exports:
        model = shape_inference.infer_shapes(onnx.load(path))
        name = os.path.splitext(os.path.basename(path))[0]
        for start in range(0, max(1, len(model.graph.node) - 1), STEP):
            m = cut(model, start)
            if m is None:
                continue
            onnx.save(m, os.path.join(OUT, f"{name}_{start}.onnx"))
            written += 1
    for path in sorted(glob.glob(os.path.join(MODELS, "sizes", "*.onnx"))):
        onnx.save(onnx.load(path), os.path.join(OUT, os.path.basename(path)))
        written += 1
    print(written, "seeds in", OUT)


if __name__ == "__main__":
    main()
