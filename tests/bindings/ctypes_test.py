#!/usr/bin/env python3
"""The C ABI from another language: Python through ctypes, with Debian's
numpy. Loads a model from a safetensors file Python writes itself (with
nn.Sequential's numbered keys, renamed by a name map), calls it on a numpy
array, and compares with what numpy computes; then trains it in place and
checks the version and the loss. Exit 0: passed; 77: skipped (no numpy);
anything else: failed.

    ctypes_test.py path/to/libshapescript.so SCRATCH_DIR
"""
import ctypes as C
import json
import struct
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: this Python has no numpy (Debian's python3-numpy)")
    sys.exit(77)

PROGRAM = b"""dim D = 5
dim H = 7
dim A = 3

data Step:
    obs: [D]
    target: [A]

model Policy:
    param w1: [H D] = glorot
    param b1: [H] = zeros
    param w2: [A H] = glorot
    param b2: [A] = zeros

fn act(m: Policy, x: [n D]) -> [n A]:
    h = relu(einsum(x, m.w1, n d, h d -> n h) + m.b1)   # nn.Linear's [out in] layout
    return einsum(h, m.w2, n h, a h -> n a) + m.b2

fn loss(m: Policy, batch: [n] Step) -> []:
    d = act(m, batch.obs) - batch.target
    return mean(mean(d * d, over=A), over=n)

fn train_step(mut m: Policy, mut opt: Adam[Policy], batch: [n] Step) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l
"""


class Arg(C.Structure):
    _fields_ = [("kind", C.c_int), ("value", C.c_void_p), ("tensor", C.c_void_p),
                ("number", C.c_double)]


SS_F32 = 0
SS_ARG_VALUE, SS_ARG_MUT, SS_ARG_TENSOR = 0, 1, 2
SS_KIND_MODEL = 4


def bind(lib):
    p = C.c_void_p
    sigs = {
        "ss_engine_new": (p, [p, C.POINTER(p)]),
        "ss_engine_load_source": (p, [p, C.c_char_p, C.c_char_p, p, C.POINTER(p)]),
        "ss_module_load_value": (p, [p, C.c_char_p, C.c_char_p, C.c_size_t,
                                     C.POINTER(C.c_char_p), C.POINTER(C.c_char_p), C.POINTER(p)]),
        "ss_module_make_optimizer": (p, [p, C.c_char_p, p, C.c_size_t, C.POINTER(C.c_char_p),
                                         C.POINTER(C.c_double), C.POINTER(p)]),
        "ss_module_batch": (p, [p, C.c_char_p, C.c_size_t, C.POINTER(C.c_char_p),
                                C.POINTER(p), C.POINTER(p)]),
        "ss_module_call_values": (p, [p, C.c_char_p, C.POINTER(Arg), C.c_size_t, C.POINTER(p)]),
        "ss_call_result_value": (p, [p, C.c_size_t]),
        "ss_call_result_value_count": (C.c_size_t, [p]),
        "ss_call_result_free": (None, [p]),
        "ss_value_kind_of": (C.c_int, [p]),
        "ss_value_version": (C.c_uint64, [p]),
        "ss_value_number": (C.c_double, [p]),
        "ss_value_tensor": (p, [p]),
        "ss_value_field": (p, [p, C.c_char_p]),
        "ss_value_free": (None, [p]),
        "ss_tensor_view": (p, [C.c_int, p, C.POINTER(C.c_int64), C.c_size_t]),
        "ss_tensor_rank": (C.c_size_t, [p]),
        "ss_tensor_dim": (C.c_int64, [p, C.c_size_t]),
        "ss_tensor_data": (p, [p]),
        "ss_tensor_free": (None, [p]),
        "ss_status_code": (C.c_char_p, [p]),
        "ss_status_render": (C.c_char_p, [p]),
        "ss_status_free": (None, [p]),
        "ss_module_free": (None, [p]),
        "ss_engine_free": (None, [p]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


class Failed(Exception):
    pass


def ok(lib, status):
    if status:
        text = lib.ss_status_render(status).decode()
        lib.ss_status_free(status)
        raise Failed(text)


def as_array(lib, tensor):
    """A library tensor's f32 elements as a numpy array (copied)."""
    shape = [lib.ss_tensor_dim(tensor, k) for k in range(lib.ss_tensor_rank(tensor))]
    n = int(np.prod(shape)) if shape else 1
    data = (C.c_float * n).from_address(lib.ss_tensor_data(tensor))
    return np.array(data, dtype=np.float32).reshape(shape)


def view(lib, array):
    shape = (C.c_int64 * array.ndim)(*array.shape)
    return lib.ss_tensor_view(SS_F32, array.ctypes.data, shape, array.ndim)


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    lib = bind(C.CDLL(sys.argv[1]))
    scratch = sys.argv[2]
    rng = np.random.default_rng(0)
    # What torch.nn.Sequential(Linear(5, 7), ReLU(), Linear(7, 3)).state_dict() names.
    state = {"0.weight": rng.standard_normal((7, 5)).astype(np.float32) * 0.5,
             "0.bias": rng.standard_normal(7).astype(np.float32) * 0.1,
             "2.weight": rng.standard_normal((3, 7)).astype(np.float32) * 0.5,
             "2.bias": rng.standard_normal(3).astype(np.float32) * 0.1}
    path = scratch + "/ctypes_policy.safetensors"
    write_safetensors(path, state)

    status = C.c_void_p()
    engine = lib.ss_engine_new(None, C.byref(status))
    ok(lib, status.value)
    module = lib.ss_engine_load_source(engine, PROGRAM, b"policy.ss", None, C.byref(status))
    ok(lib, status.value)

    policy = C.c_void_p()
    names_from = (C.c_char_p * 4)(b"0.weight", b"0.bias", b"2.weight", b"2.bias")
    names_to = (C.c_char_p * 4)(b"w1", b"b1", b"w2", b"b2")
    ok(lib, lib.ss_module_load_value(module, b"Policy", path.encode(), 4, names_from, names_to,
                                     C.byref(policy)))
    assert lib.ss_value_kind_of(policy) == SS_KIND_MODEL

    x = rng.standard_normal((4, 5)).astype(np.float32)
    x_view = view(lib, x)
    result = C.c_void_p()
    args = (Arg * 2)(Arg(SS_ARG_VALUE, policy.value, None, 0), Arg(SS_ARG_TENSOR, None, x_view, 0))
    ok(lib, lib.ss_module_call_values(module, b"act", args, 2, C.byref(result)))
    assert lib.ss_call_result_value_count(result) == 1
    y_value = lib.ss_call_result_value(result, 0)
    y_tensor = lib.ss_value_tensor(y_value)
    got = as_array(lib, y_tensor)
    h = np.maximum(x @ state["0.weight"].T + state["0.bias"], 0)
    want = h @ state["2.weight"].T + state["2.bias"]
    if got.shape != (4, 3) or not np.allclose(got, want, rtol=1e-5, atol=1e-5):
        raise Failed(f"act gave\n{got}\nnumpy computes\n{want}")
    for t in (y_tensor,):
        lib.ss_tensor_free(t)
    lib.ss_value_free(y_value)
    lib.ss_call_result_free(result)

    # Fine-tune in place on a batch of host arrays.
    opt = C.c_void_p()
    lr_name = (C.c_char_p * 1)(b"lr")
    lr = (C.c_double * 1)(0.01)
    ok(lib, lib.ss_module_make_optimizer(module, b"Adam", policy, 1, lr_name, lr, C.byref(opt)))
    obs = rng.standard_normal((8, 5)).astype(np.float32)
    target = rng.standard_normal((8, 3)).astype(np.float32)
    views = (C.c_void_p * 2)(view(lib, obs), view(lib, target))
    fields = (C.c_char_p * 2)(b"obs", b"target")
    batch = C.c_void_p()
    ok(lib, lib.ss_module_batch(module, b"Step", 2, fields, views, C.byref(batch)))
    losses = []
    for _ in range(30):
        args = (Arg * 3)(Arg(SS_ARG_MUT, policy.value, None, 0), Arg(SS_ARG_MUT, opt.value, None, 0),
                         Arg(SS_ARG_VALUE, batch.value, None, 0))
        ok(lib, lib.ss_module_call_values(module, b"train_step", args, 3, C.byref(result)))
        l_value = lib.ss_call_result_value(result, 0)
        losses.append(lib.ss_value_number(l_value))
        lib.ss_value_free(l_value)
        lib.ss_call_result_free(result)
    if not losses[-1] < losses[0]:
        raise Failed(f"training didn't lower the loss: {losses[0]} -> {losses[-1]}")
    if lib.ss_value_version(policy) != 31:
        raise Failed(f"version {lib.ss_value_version(policy)} after 30 steps, not 31")
    # The loss the first step reported is numpy's for the loaded weights.
    d = (np.maximum(obs @ state["0.weight"].T + state["0.bias"], 0) @ state["2.weight"].T
         + state["2.bias"]) - target
    if abs(losses[0] - float(np.mean(d * d))) > 1e-5 * max(1.0, abs(losses[0])):
        raise Failed(f"first loss {losses[0]}, numpy computes {float(np.mean(d * d))}")
    w1 = lib.ss_value_field(policy, b"w1")
    if np.array_equal(as_array(lib, w1), state["0.weight"]):
        raise Failed("w1 didn't change in place")
    lib.ss_tensor_free(w1)

    for t in list(views) + [x_view]:
        lib.ss_tensor_free(t)
    for v in (policy, opt, batch):
        lib.ss_value_free(v)
    lib.ss_module_free(module)
    lib.ss_engine_free(engine)
    print("ctypes: a Python host loaded, called and trained a model: every check passed")


if __name__ == "__main__":
    try:
        main()
    except (Failed, AssertionError) as e:
        print("FAILED:", e)
        sys.exit(1)
