#!/usr/bin/env python3
"""Models whose sizes are used as values (issue 64's reproducers), each
with ONNX Runtime's outputs at two sizes, which tests/onnx/sizes_test.cpp
holds the import to (docs/numerics.md's `onnx` row):

    python3 tests/onnx/make_size_models.py   # needs onnx, onnxruntime, numpy, safetensors

(a) token and position embeddings, the positions sliced from a [1 128]
    buffer by Shape(ids)[1], the sum's Shape an output too (ONNX 1.12's
    shape inference crashed on the generic import's stand-in sizes);
(b) the same without the Shape;
(c) positions from Range(0, seq);
(d) three stride-2 convolutions, x2 nearest upsampling and an Add, open H
    and W (a stand-in height of 100003 gives 25006 against 25005);
(e) a Swin-style shifted-window mask, slice assignment into zeros
    (ScatterND over indices from shape arithmetic), added to attention
    scores;
(f) odd input dims: -1, `?`, an axis with neither a value nor a name, and
    `?` again on another input, each an open axis of its own.

Inputs: element i of a float input is ((i * 7919) mod 1000) / 500 - 1, of
an integer input (i * 7) mod 50. Each model's goldens are
sizes/NAME_SIZES.safetensors: the inputs and ONNX Runtime's outputs, by the
graph's names, int64 as int32."""
import os

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import save_file

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "sizes")
F, I64 = TensorProto.FLOAT, TensorProto.INT64
VOCAB, WIDTH, POSITIONS = 50, 8, 128


def pattern(shape, integer):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    if integer:
        return ((i * 7) % VOCAB).reshape(shape)
    return (((i * 7919) % 1000) / 500.0 - 1.0).astype(np.float32).reshape(shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, shape, seed):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.5, name)


def save(name, nodes, inputs, outputs, initializers, feeds_at):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(HERE, name + ".onnx")
    onnx.save(model, path)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    for sizes, feeds in feeds_at:
        outputs = session.run(None, feeds)
        golden = {k: v.astype(np.int32) if v.dtype == np.int64 else v for k, v in feeds.items()}
        for info, value in zip(session.get_outputs(), outputs):
            golden[info.name] = value.astype(np.int32) if value.dtype == np.int64 else value
        save_file(golden, os.path.join(HERE, f"{name}_{sizes}.safetensors"))
        print(name, sizes, [v.shape for v in outputs])


def embeddings(name, positions, with_shape):
    """Token plus position embeddings of ids [batch seq]."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["ids_shape"], name="ids_shape"),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq"], name="seq", axis=0),
    ] + positions + [
        helper.make_node("Gather", ["tokens", "ids"], ["tok"], name="token_embedding"),
        helper.make_node("Gather", ["places", "pos"], ["place"], name="position_embedding"),
        helper.make_node("Add", ["tok", "place"], ["sum"], name="sum"),
    ]
    outputs = [helper.make_tensor_value_info("sum", F, ["batch", "seq", WIDTH])]
    if with_shape:
        nodes.append(helper.make_node("Shape", ["sum"], ["sum_shape"], name="sum_shape"))
        outputs.append(helper.make_tensor_value_info("sum_shape", I64, [3]))
    inits = [ints("one", 1), floats("tokens", [VOCAB, WIDTH], 1),
             floats("places", [POSITIONS, WIDTH], 2),
             ints("buffer", [list(range(POSITIONS))]), ints("zero1", [0]), ints("axis1", [1])]
    feeds = [(f"{b}x{s}", {"ids": pattern((b, s), True)}) for b, s in ((1, 8), (4, 32), (2, 128))]
    save(name, nodes, [helper.make_tensor_value_info("ids", I64, ["batch", "seq"])], outputs,
         inits, feeds)


def main():
    os.makedirs(HERE, exist_ok=True)
    sliced = [
        helper.make_node("Unsqueeze", ["seq", "zero1"], ["seq1"], name="seq1"),
        helper.make_node("Slice", ["buffer", "zero1", "seq1", "axis1"], ["pos"], name="positions"),
    ]
    embeddings("a_positions_shape", sliced, True)
    embeddings("b_positions_sliced", sliced, False)
    ranged = [
        helper.make_node("Constant", [], ["zero"], name="zero", value=ints("zero", 0)),
        helper.make_node("Range", ["zero", "seq", "one"], ["range"], name="range"),
        helper.make_node("Unsqueeze", ["range", "zero1"], ["pos"], name="positions"),
    ]
    embeddings("c_positions_range", ranged, False)

    # (d) a feature pyramid's top-down step: c3 upsampled x2 added to c2.
    conv = lambda i, o, name, cin: helper.make_node(  # noqa: E731
        "Conv", [i, name], [o], name=o, strides=[2, 2], pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    nodes = [conv("x", "c1", "w1", 3), conv("c1", "c2", "w2", 4), conv("c2", "c3", "w3", 4),
             helper.make_node("Resize", ["c3", "", "scales"], ["up"], name="upsample",
                              mode="nearest"),
             helper.make_node("Add", ["up", "c2"], ["y"], name="merge")]
    inits = [floats("w1", [4, 3, 3, 3], 3), floats("w2", [4, 4, 3, 3], 4),
             floats("w3", [4, 4, 3, 3], 5),
             numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")]
    feeds = [(f"{h}x{w}", {"x": pattern((1, 3, h, w), False)}) for h, w in ((64, 96), (32, 32))]
    save("d_pyramid_upsample", nodes,
         [helper.make_tensor_value_info("x", F, [1, 3, "height", "width"])],
         [helper.make_tensor_value_info("y", F, [1, 4, "h4", "w4"])], inits, feeds)

    # (e) Swin's shifted-window mask: zeros [1 8 8 1], each of 9 regions
    # assigned its number through ScatterND, the windows' pairwise
    # differences made -100 where they differ.
    nodes, inits = [], [ints("mask_shape", [1, 8, 8, 1])]
    nodes.append(helper.make_node("ConstantOfShape", ["mask_shape"], ["m0"], name="zeros",
                                  value=numpy_helper.from_array(np.zeros(1, np.float32))))
    nodes.append(helper.make_node("Range", ["r_start", "r_limit", "r_delta"], ["all"],
                                  name="rows"))
    inits += [ints("r_start", 0), ints("r_limit", 8), ints("r_delta", 1)]
    bounds = [(0, 4), (4, 6), (6, 8)]
    cnt = 0
    for hi, (h0, h1) in enumerate(bounds):
        for wi, (w0, w1) in enumerate(bounds):
            p = f"r{hi}{wi}_"
            inits += [ints(p + "hb", [h0]), ints(p + "he", [h1]), ints(p + "wb", [w0]),
                      ints(p + "we", [w1]), ints(p + "grid", [h1 - h0, w1 - w0, 1]),
                      numpy_helper.from_array(np.full((1, h1 - h0, w1 - w0, 1), float(cnt),
                                                      np.float32), p + "val")]
            nodes += [
                helper.make_node("Slice", ["all", p + "hb", p + "he"], [p + "h"], name=p + "h"),
                helper.make_node("Slice", ["all", p + "wb", p + "we"], [p + "w"], name=p + "w"),
                helper.make_node("Unsqueeze", [p + "h", "ax_1_2"], [p + "h3"], name=p + "h3"),
                helper.make_node("Unsqueeze", [p + "w", "ax_0_2"], [p + "w3"], name=p + "w3"),
                helper.make_node("Expand", [p + "h3", p + "grid"], [p + "he3"], name=p + "he3"),
                helper.make_node("Expand", [p + "w3", p + "grid"], [p + "we3"], name=p + "we3"),
                helper.make_node("Mul", [p + "he3", "zero_i"], [p + "z"], name=p + "z"),
                helper.make_node("Concat", [p + "z", p + "he3", p + "we3", p + "z"], [p + "idx"],
                                 name=p + "idx", axis=2),
                helper.make_node("Unsqueeze", [p + "idx", "zero1"], [p + "idx4"],
                                 name=p + "idx4"),
                helper.make_node("Squeeze", [p + "val", "minus1"], [p + "v"], name=p + "v"),
                helper.make_node("ScatterND", [f"m{cnt}", p + "idx4", p + "v"], [f"m{cnt + 1}"],
                                 name=p + "scatter"),
            ]
            cnt += 1
    inits += [ints("ax_1_2", [1, 2]), ints("ax_0_2", [0, 2]), ints("zero_i", 0),
              ints("zero1", [0]), ints("minus1", [-1]), ints("win_shape", [1, 2, 4, 2, 4, 1]),
              ints("win_flat", [4, 16]), ints("win_a", [1]), ints("win_b", [2])]
    nodes += [
        helper.make_node("Reshape", [f"m{cnt}", "win_shape"], ["mw6"], name="windows"),
        helper.make_node("Transpose", ["mw6"], ["mwt"], name="windows_t", perm=[0, 1, 3, 2, 4, 5]),
        helper.make_node("Reshape", ["mwt", "win_flat"], ["mw"], name="windows_flat"),
        helper.make_node("Unsqueeze", ["mw", "win_a"], ["mw_a"], name="mw_a"),
        helper.make_node("Unsqueeze", ["mw", "win_b"], ["mw_b"], name="mw_b"),
        helper.make_node("Sub", ["mw_a", "mw_b"], ["diff"], name="diff"),
        helper.make_node("Equal", ["diff", "zero_f"], ["same"], name="same"),
        helper.make_node("Where", ["same", "zero_f", "minus100"], ["mask"], name="mask"),
        helper.make_node("Add", ["scores", "mask"], ["masked"], name="masked"),
        helper.make_node("Softmax", ["masked"], ["y"], name="weights", axis=-1),
    ]
    inits += [numpy_helper.from_array(np.array(0, np.float32), "zero_f"),
              numpy_helper.from_array(np.array(-100, np.float32), "minus100")]
    feeds = [(f"{b}", {"scores": pattern((b, 4, 16, 16), False)}) for b in (1, 3)]
    save("e_shifted_window_mask", nodes,
         [helper.make_tensor_value_info("scores", F, ["batch", 4, 16, 16])],
         [helper.make_tensor_value_info("y", F, ["batch", 4, 16, 16])], inits, feeds)

    # (f) odd input dims: a classifier declaring x [-1 3 ? (neither value
    # nor name)], each open axis its own, and y [?], whose `?` is another
    # axis than x's.
    x_info = helper.make_tensor_value_info("x", F, [-1, 3, "?", None])
    y_info = helper.make_tensor_value_info("y", F, ["?"])
    nodes = [helper.make_node("ReduceMean", ["x"], ["pooled"], name="pool", axes=[2, 3],
                              keepdims=0),
             helper.make_node("MatMul", ["pooled", "head"], ["logits"], name="head"),
             helper.make_node("ReduceSum", ["y", "axis0"], ["total"], name="total", keepdims=1)]
    feeds = [(f"{n}x{h}x{w}x{l}", {"x": pattern((n, 3, h, w), False), "y": pattern((l,), False)})
             for n, h, w, l in ((1, 48, 192, 5), (2, 32, 40, 9))]
    save("f_odd_dims", nodes, [x_info, y_info],
         [helper.make_tensor_value_info("logits", F, [-1, 2]),
          helper.make_tensor_value_info("total", F, [1])],
         [floats("head", [3, 2], 6), ints("axis0", [0])], feeds)


if __name__ == "__main__":
    main()
