#!/usr/bin/env python3
"""Writes the small ONNX models the error catalog's chapter 20 examples
import (docs/errors.md, tests/catalog copies them beside each transcript)
and tests/onnx/import_test.cpp loads:

    python3 tests/onnx/make_models.py   # needs `pip install onnx`

Each is the least model that shows its code. They are committed, so the
test command needs no Python package."""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def save(name, nodes, inputs, outputs, initializers=(), opset=17, ir=8):
    graph = helper.make_graph(nodes, name.replace(".onnx", ""), inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    onnx.save(model, os.path.join(HERE, name))


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


F = TensorProto.FLOAT
os.makedirs(HERE, exist_ok=True)

# A model every example can import: y = relu(x).
save("relu.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])])
# A batch axis left open (`batch`), sized at load.
save("relu_batch.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [tensor("x", F, ["batch", 3])], [tensor("y", F, ["batch", 3])])
# E2003: opset 18, newer than ONNX 1.12 reads.
save("opset18.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])], opset=18)
# E2004: an op shapescript has no translation for (a determinant).
save("determinant.onnx", [helper.make_node("Det", ["x"], ["y"], name="det")],
     [tensor("x", F, [2, 3, 3])], [tensor("y", F, [2])])
# E2005: ArgMax taking the last of equal maxima.
save("argmax_last.onnx",
     [helper.make_node("ArgMax", ["x"], ["y"], name="pick", axis=1, select_last_index=1)],
     [tensor("x", F, [2, 3])], [tensor("y", TensorProto.INT64, [2, 1])])
# E2006: float64 elements.
save("float64.onnx", [helper.make_node("Relu", ["x"], ["y"], name="relu")],
     [tensor("x", TensorProto.DOUBLE, [2, 3])], [tensor("y", TensorProto.DOUBLE, [2, 3])])
# E2007: a Reshape to a shape the model's input gives.
save("reshape_input.onnx", [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
     [tensor("x", F, [2, 3]), tensor("shape", TensorProto.INT64, [2])], [tensor("y", F, [3, 2])])
# E2008: [2 3] + [4] don't broadcast.
save("add_mismatch.onnx", [helper.make_node("Add", ["a", "b"], ["y"], name="add")],
     [tensor("a", F, [2, 3]), tensor("b", F, [4])], [tensor("y", F, [2, 3])])
# E2009: an initializer whose data lies outside the model's folder.
w = TensorProto(name="w", data_type=F, dims=[3])
w.data_location = TensorProto.EXTERNAL
for key, value in (("location", "../weights.bin"), ("offset", "0"), ("length", "12")):
    entry = w.external_data.add()
    entry.key, entry.value = key, value
save("outside_data.onnx", [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
     [tensor("x", F, [3])], [tensor("y", F, [3])], initializers=[w])
# E2010: an int64 constant past int32's range.
big = helper.make_tensor("big", TensorProto.INT64, [1], vals=[1 << 40])
save("int64_big.onnx", [helper.make_node("Add", ["x", "big"], ["y"], name="add")],
     [tensor("x", TensorProto.INT64, [2])], [tensor("y", TensorProto.INT64, [2])],
     initializers=[big])
