"""The MLP 784-256-256-10 as an ONNX model built with onnx's helpers
(MatMul, Add and Relu, weights from a seeded generator), without PyTorch:
the ONNX Runtime peer of bench/mlp_peers.py and bench/latency_peers.py."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


def onnx_mlp():
    """The serialised model and the name of its output."""
    rng = np.random.default_rng(0)
    sizes = [784, 256, 256, 10]
    inits, nodes, x = [], [], "x"
    for k in range(3):
        w = (rng.standard_normal((sizes[k], sizes[k + 1])) * 0.05).astype(np.float32)
        b = np.zeros(sizes[k + 1], np.float32)
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
        nodes += [helper.make_node("MatMul", [x, f"w{k}"], [f"m{k}"]),
                  helper.make_node("Add", [f"m{k}", f"b{k}"], [f"a{k}"])]
        x = f"a{k}"
        if k < 2:
            nodes.append(helper.make_node("Relu", [x], [f"r{k}"]))
            x = f"r{k}"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 784])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["b", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString(), x
