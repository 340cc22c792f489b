#!/usr/bin/env python3
"""Writes the models with external data that tests/onnx/external_data_test.cpp
loads from folders it lays out itself (a link, a folder link, a FIFO, a
Hugging Face cache's blobs):

    python3 tests/onnx/make_external_data.py   # needs `pip install onnx`

Each adds `x` [3] to an initializer `w` [3] whose 12 bytes lie in
`weights.bin`; they differ in the external data's keys. Committed, so the
test command needs no Python package."""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
F = TensorProto.FLOAT


def save(name, keys):
    w = TensorProto(name="w", data_type=F, dims=[3])
    w.data_location = TensorProto.EXTERNAL
    for key, value in keys:
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                              name.replace(".onnx", ""),
                              [helper.make_tensor_value_info("x", F, [3])],
                              [helper.make_tensor_value_info("y", F, [3])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, name))


save("external_data.onnx", [("location", "weights.bin"), ("offset", "0"), ("length", "12")])
# No length: the tensor's declared 12 bytes.
save("external_unsized.onnx", [("location", "weights.bin"), ("offset", "4")])
# A negative offset, and a length that isn't the tensor's 12 bytes.
save("external_negative_offset.onnx", [("location", "weights.bin"), ("offset", "-8")])
save("external_wrong_length.onnx", [("location", "weights.bin"), ("length", "16")])
save("external_bad_number.onnx", [("location", "weights.bin"), ("offset", "twelve")])
# In a subfolder: a folder link there can't lead outside either.
save("external_subfolder.onnx", [("location", "data/weights.bin")])
