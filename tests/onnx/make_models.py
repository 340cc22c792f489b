#!/usr/bin/env python3
"""Writes the small ONNX models the error catalog's chapter 20 examples
import (docs/errors.md, tests/catalog copies them beside each transcript)
and tests/onnx/import_test.cpp loads:

    python3 tests/onnx/make_models.py   # needs `pip install onnx onnxruntime numpy`

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
# The batch size used as a value (x divided by it): the axis can't stay
# generic, so the import is made for a size given at load.
save("batch_value.onnx", [
    helper.make_node("Shape", ["x"], ["shape"], name="shape"),
    helper.make_node("Gather", ["shape", "zero"], ["n"], name="count", axis=0),
    helper.make_node("Cast", ["n"], ["nf"], name="as_float", to=TensorProto.FLOAT),
    helper.make_node("Div", ["x", "nf"], ["y"], name="per_example")],
     [tensor("x", F, ["batch", 3])], [tensor("y", F, ["batch", 3])],
     initializers=[helper.make_tensor("zero", TensorProto.INT64, [], vals=[0])])
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

# A small residual CNN (conv, batch norm, relu, max pool, a squeeze-and-
# excite gate, a channel concat, global pooling, a classifier), with its
# inputs and ONNX Runtime's outputs as goldens: channels last inside, one
# permutation at each edge (tests/onnx/import_test.cpp).
import numpy as np

rng = np.random.default_rng(0)


def init(name, *shape, scale=0.3):
    return onnx.numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


C = 4
weights = [
    init("w1", C, 3, 3, 3), init("b1", C),
    init("bn_scale", C, scale=1.0), init("bn_bias", C), init("bn_mean", C),
    onnx.numpy_helper.from_array(rng.uniform(0.5, 1.5, C).astype(np.float32), "bn_var"),
    init("w2", C, C, 3, 3), init("w_gate", C, 1, 1),
    init("w_fc", 10, 2 * C), init("b_fc", 10),
]
nodes = [
    helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["n1"], name="bn1"),
    helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["c2", "p1"], ["res"], name="residual"),
    helper.make_node("GlobalAveragePool", ["res"], ["squeezed"], name="squeeze"),
    helper.make_node("Mul", ["squeezed", "w_gate"], ["gate_in"], name="gate_scale"),
    helper.make_node("Sigmoid", ["gate_in"], ["gate"], name="gate"),
    helper.make_node("Mul", ["res", "gate"], ["excited"], name="excite"),
    helper.make_node("Concat", ["excited", "res"], ["joined"], name="join", axis=1),
    helper.make_node("GlobalAveragePool", ["joined"], ["pooled"], name="pool2"),
    helper.make_node("Flatten", ["pooled"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "w_fc", "b_fc"], ["logits"], name="fc", transB=1),
]
save("small_cnn.onnx", nodes, [tensor("image", F, [2, 3, 8, 8])], [tensor("logits", F, [2, 10])], weights)

import onnxruntime  # noqa: E402

image = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
session = onnxruntime.InferenceSession(os.path.join(HERE, "small_cnn.onnx"), providers=["CPUExecutionProvider"])
(logits,) = session.run(None, {"image": image})
onnx.save_tensor(onnx.numpy_helper.from_array(image, "image"), os.path.join(HERE, "small_cnn_input.pb"))
onnx.save_tensor(onnx.numpy_helper.from_array(logits, "logits"), os.path.join(HERE, "small_cnn_output.pb"))

# Einsum and CumSum in float32 (ONNX's own tests of them are float64,
# which shapescript refuses), with ONNX Runtime's outputs.
a = rng.standard_normal((3, 4)).astype(np.float32)
b = rng.standard_normal((4, 5)).astype(np.float32)
c = rng.standard_normal((2, 3, 4)).astype(np.float32)
d = rng.standard_normal((2, 4, 5)).astype(np.float32)
v = rng.standard_normal((4,)).astype(np.float32)
nodes = [
    helper.make_node("Einsum", ["a", "b"], ["matmul"], name="matmul", equation="ij,jk->ik"),
    helper.make_node("Einsum", ["c", "d"], ["batched"], name="batched", equation="bij, bjk -> bik"),
    helper.make_node("Einsum", ["v", "v"], ["inner"], name="inner", equation="i,i"),
    helper.make_node("Einsum", ["c"], ["transposed"], name="transposed", equation="...ij->...ji"),
    helper.make_node("Einsum", ["a"], ["total"], name="total", equation="ij->"),
    helper.make_node("CumSum", ["c", "axis1"], ["cumsum"], name="cumsum"),
    helper.make_node("CumSum", ["c", "axis1"], ["cumsum_exclusive"], name="cumsum_exclusive", exclusive=1),
    helper.make_node("CumSum", ["c", "axis_last"], ["cumsum_reverse"], name="cumsum_reverse", reverse=1),
    helper.make_node("CumSum", ["c", "axis_last"], ["cumsum_both"], name="cumsum_both", reverse=1, exclusive=1),
]
names = ["matmul", "batched", "inner", "transposed", "total", "cumsum", "cumsum_exclusive", "cumsum_reverse",
         "cumsum_both"]
save("einsum_cumsum.onnx", nodes,
     [tensor("a", F, [3, 4]), tensor("b", F, [4, 5]), tensor("c", F, [2, 3, 4]), tensor("d", F, [2, 4, 5]),
      tensor("v", F, [4])],
     [tensor("matmul", F, [3, 5]), tensor("batched", F, [2, 3, 5]), tensor("inner", F, []),
      tensor("transposed", F, [2, 4, 3]), tensor("total", F, []), tensor("cumsum", F, [2, 3, 4]),
      tensor("cumsum_exclusive", F, [2, 3, 4]), tensor("cumsum_reverse", F, [2, 3, 4]),
      tensor("cumsum_both", F, [2, 3, 4])],
     [helper.make_tensor("axis1", TensorProto.INT64, [], vals=[1]),
      helper.make_tensor("axis_last", TensorProto.INT64, [], vals=[-1])])
session = onnxruntime.InferenceSession(os.path.join(HERE, "einsum_cumsum.onnx"), providers=["CPUExecutionProvider"])
feeds = {"a": a, "b": b, "c": c, "d": d, "v": v}
for name, value in feeds.items():
    onnx.save_tensor(onnx.numpy_helper.from_array(value, name), os.path.join(HERE, f"einsum_cumsum_{name}.pb"))
for name, value in zip(names, session.run(None, feeds)):
    onnx.save_tensor(onnx.numpy_helper.from_array(value, name), os.path.join(HERE, f"einsum_cumsum_out_{name}.pb"))

# A bidirectional LSTM with peepholes (each direction its own scan), with
# ONNX Runtime's outputs.
H, I, T, B = 5, 3, 4, 2
lstm_inputs = {
    "x": rng.standard_normal((T, B, I)).astype(np.float32),
    "w": (rng.standard_normal((2, 4 * H, I)) * 0.5).astype(np.float32),
    "r": (rng.standard_normal((2, 4 * H, H)) * 0.5).astype(np.float32),
    "b": (rng.standard_normal((2, 8 * H)) * 0.1).astype(np.float32),
    "h0": rng.standard_normal((2, B, H)).astype(np.float32),
    "c0": rng.standard_normal((2, B, H)).astype(np.float32),
    "p": (rng.standard_normal((2, 3 * H)) * 0.1).astype(np.float32),
}
save("bilstm.onnx",
     [helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0", "p"], ["y", "y_h", "y_c"], name="lstm",
                       hidden_size=H, direction="bidirectional")],
     [tensor(n, F, list(v.shape)) for n, v in lstm_inputs.items()],
     [tensor("y", F, [T, 2, B, H]), tensor("y_h", F, [2, B, H]), tensor("y_c", F, [2, B, H])])
session = onnxruntime.InferenceSession(os.path.join(HERE, "bilstm.onnx"), providers=["CPUExecutionProvider"])
for name, value in lstm_inputs.items():
    onnx.save_tensor(onnx.numpy_helper.from_array(value, name), os.path.join(HERE, f"bilstm_{name}.pb"))
for name, value in zip(["y", "y_h", "y_c"], session.run(None, lstm_inputs)):
    onnx.save_tensor(onnx.numpy_helper.from_array(value, name), os.path.join(HERE, f"bilstm_out_{name}.pb"))

# Float arithmetic on constants folds at import (sqrt(4) / 4 to 0.5), a
# comparison of them staying a comparison: small = 0.5 < 1, big = 1 > 0.5,
# y = x * 0.5 * 0.5.
half = helper.make_tensor("half", F, [], [0.5])
save("folded_floats.onnx", [
    helper.make_node("Constant", [], ["four"], value=helper.make_tensor("v4", F, [], [4.0])),
    helper.make_node("Constant", [], ["one"], value=helper.make_tensor("v1", F, [], [1.0])),
    helper.make_node("Sqrt", ["four"], ["two"], name="sqrt"),
    helper.make_node("Div", ["two", "four"], ["quarter"], name="div"),
    helper.make_node("Less", ["quarter", "one"], ["small"], name="less"),
    helper.make_node("Greater", ["one", "quarter"], ["big"], name="greater"),
    helper.make_node("Mul", ["x", "half"], ["scaled"], name="mul"),
    helper.make_node("Mul", ["scaled", "quarter"], ["y"], name="mul2"),
], [tensor("x", F, [3])], [tensor("small", TensorProto.BOOL, []), tensor("big", TensorProto.BOOL, []),
                          tensor("y", F, [3])], [half])

# ConvTranspose whose weight a node makes with no axes (a ReduceSum of all of
# them): ONNX 1.12's shape inference indexes W's second axis unchecked and
# writes through a null pointer, so the importer infers the nodes before a
# ConvTranspose first and refuses it (E2008).
save("convtranspose_scalar_weight.onnx", [
    helper.make_node("ReduceSum", ["w4"], ["w"], keepdims=0, name="sum"),
    helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up"),
], [tensor("x", F, [1, 1, 3, 3])], [tensor("y", F, [1, 1, 5, 5])],
    [helper.make_tensor("w4", F, [1, 1, 3, 3], [1.0] * 9)])
# A graph with control flow (If's branches are subgraphs): refused as an op
# shapescript doesn't import before ONNX infers the branches' shapes.
branch = lambda name, op: helper.make_graph(
    [helper.make_node(op, ["x"], [name + "_y"])], name, [], [tensor(name + "_y", F, [2])])
save("if_branches.onnx", [
    helper.make_node("If", ["c"], ["y"], then_branch=branch("then", "Relu"),
                     else_branch=branch("else", "Neg"), name="if"),
], [tensor("c", TensorProto.BOOL, []), tensor("x", F, [2])], [tensor("y", F, [2])])
# InstanceNormalization whose scale has 3 values for 2 channels: ONNX's
# inference doesn't check it; refused, E2008.
save("instancenorm_scale_length.onnx", [
    helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], name="norm"),
], [tensor("x", F, [1, 2, 4])], [tensor("y", F, [1, 2, 4])],
    [helper.make_tensor("s", F, [3], [1.0] * 3), helper.make_tensor("b", F, [2], [0.0] * 2)])
# A Conv whose kernel takes 2 input channels for an input of 3: ONNX's
# inference doesn't check it; refused, E2008.
save("conv_channels.onnx", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
     [tensor("x", F, [1, 3, 5, 5])], [tensor("y", F, [1, 4, 3, 3])],
     [helper.make_tensor("w", F, [4, 2, 3, 3], [0.5] * 72)])
# A Transpose whose perm names an axis twice (opset 6): refused, E2008, by
# ONNX's inference once the model is converted to opset 17.
save("transpose_perm_repeats.onnx",
     [helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[1, 1])],
     [tensor("x", F, [2, 3])], [tensor("y", F, [3, 3])], opset=6, ir=3)
