#!/usr/bin/env python3
"""Writes tests/goldens/reference_ops.txt: inputs and expected outputs of the
reference runtime's operations, computed with numpy in float64 from float32
inputs and rounded to the result's dtype. The tests only read the file.

    pip install numpy && python3 tests/goldens/make_reference_goldens.py

Format, one case after another:
    case NAME
    op OP
    attr KEY VALUE          (any number)
    input DTYPE DIMS...     then one line of values
    output DTYPE DIMS...    then one line of values
    end
Values are decimal (repr of the exact value), inf, -inf or nan.
"""
import math
import os

import numpy as np

rng = np.random.default_rng(20261129)
out = []


def values(a):
    flat = np.asarray(a, dtype=np.float64).reshape(-1)
    return " ".join("nan" if math.isnan(v) else ("inf" if v == math.inf else ("-inf" if v == -math.inf else repr(float(v)))) for v in flat)


def bf16(a):
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return (u.astype(np.uint32)).view(np.float32)


def rounded(a, dtype):
    a = np.asarray(a, dtype=np.float64)
    if dtype == "f32":
        return a.astype(np.float32)
    if dtype == "f16":
        return a.astype(np.float16)
    if dtype == "bf16":
        return bf16(a.astype(np.float32))
    if dtype == "i32":
        return a.astype(np.int32)
    if dtype == "bool":
        return a != 0
    raise ValueError(dtype)


def case(name, op, inputs, output, out_dtype, **attrs):
    out.append("case " + name)
    out.append("op " + op)
    for key, value in attrs.items():
        out.append("attr %s %s" % (key, value))
    for dtype, a in inputs:
        a = np.asarray(a)
        out.append("input %s %s" % (dtype, " ".join(str(d) for d in a.shape)))
        out.append(values(a))
    output = rounded(output, out_dtype)
    out.append("output %s %s" % (out_dtype, " ".join(str(d) for d in np.shape(output))))
    out.append(values(output))
    out.append("end")


def f32(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def d(a):
    return np.asarray(a, dtype=np.float64)


erf = np.vectorize(math.erf)
unary = {
    "neg": (lambda x: -x, -3, 3),
    "exp": (np.exp, -5, 5),
    "log": (np.log, 0.01, 10),
    "sqrt": (np.sqrt, 0, 10),
    "abs": (np.abs, -3, 3),
    "tanh": (np.tanh, -4, 4),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), -8, 8),
    "relu": (lambda x: np.maximum(x, 0), -3, 3),
    "gelu": (lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))), -4, 4),
}
for name, (fn, lo, hi) in unary.items():
    for shape in [(1,), (7,), (1023,), (3, 7)]:
        x = f32(*shape, lo=lo, hi=hi)
        case("%s %s" % (name, shape), "unary", [("f32", x)], fn(d(x)), "f32", fn=name)

binary = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "mod": np.mod, "floordiv": np.floor_divide,
}
shapes = [((7,), (7,)), ((7, 1), (1, 5)), ((3, 1, 4), (4,)), ((), (1023,)), ((1,), (1,)), ((2, 3), (1,))]
for name, fn in binary.items():
    for sa, sb in shapes:
        a, b = f32(*sa), f32(*sb)
        if name in ("div", "mod", "floordiv"):
            b = np.where(np.abs(b) < 0.1, np.float32(0.5), b).astype(np.float32)
        case("%s %s %s" % (name, sa, sb), "binary", [("f32", a), ("f32", b)], fn(d(a), d(b)), "f32", fn=name)
for sa, sb in [((7,), (7,)), ((3, 1), (1, 4))]:
    a, b = f32(*sa, lo=0.1, hi=3), f32(*sb, lo=-2, hi=2)
    case("pow %s %s" % (sa, sb), "binary", [("f32", a), ("f32", b)], np.power(d(a), d(b)), "f32", fn="pow")
ints_a = rng.integers(-20, 20, size=(9,)).astype(np.int32)
ints_b = rng.integers(1, 7, size=(9,)).astype(np.int32) * rng.choice([-1, 1], size=9).astype(np.int32)
for name, fn in [("mod", np.mod), ("floordiv", np.floor_divide), ("add", np.add), ("mul", np.multiply)]:
    case("%s i32" % name, "binary", [("i32", ints_a), ("i32", ints_b)], fn(ints_a, ints_b), "i32", fn=name)
case("div i32", "binary", [("i32", ints_a), ("i32", ints_b)], d(ints_a) / d(ints_b), "f32", fn="div")
comparisons = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
               "eq": np.equal, "ne": np.not_equal}
for name, fn in comparisons.items():
    a, b = f32(4, 1), f32(5)
    b[0] = a[1, 0]  # one tie
    case("%s broadcast" % name, "binary", [("f32", a), ("f32", b)], fn(d(a), d(b)), "bool", fn=name)
pa, pb = rng.random((3, 4)) < 0.5, rng.random((4,)) < 0.5
case("logical_and", "binary", [("bool", pa), ("bool", pb)], np.logical_and(pa, pb), "bool", fn="logical_and")
case("logical_or", "binary", [("bool", pa), ("bool", pb)], np.logical_or(pa, pb), "bool", fn="logical_or")

for cshape, ashape, bshape in [((7,), (7,), (7,)), ((3, 1), (1, 4), (3, 4)), ((5,), (), (5,))]:
    c, a, b = rng.random(cshape) < 0.5, f32(*ashape), f32(*bshape)
    case("where %s %s %s" % (cshape, ashape, bshape), "where", [("bool", c), ("f32", a), ("f32", b)],
         np.where(c, d(a), d(b)), "f32")

x = np.array([-2.75, -1.5, -0.5, 0.0, 0.49, 1.5, 2.5, 3.99, 1e5, -7.0], dtype=np.float32)
case("cast f32 to i32", "cast", [("f32", x)], np.trunc(d(x)), "i32", to="i32")
case("cast i32 to f32", "cast", [("i32", ints_a)], d(ints_a), "f32", to="f32")
case("cast bool to f32", "cast", [("bool", pa)], d(pa), "f32", to="f32")
case("cast f32 to bool", "cast", [("f32", x)], x != 0, "bool", to="bool")
y = f32(1023, lo=-70000, hi=70000)
y[:5] = [65504, 65520, -65519.99, 1e-8, 6.1e-5]
case("cast f32 to f16", "cast", [("f32", y)], d(y), "f16", to="f16")
z = f32(1023)
case("cast f32 to bf16", "cast", [("f32", z)], d(z), "bf16", to="bf16")

for sa, sb in [((7, 5), (5, 3)), ((1023,), (1023,)), ((2, 3, 4), (4, 5)), ((4,), (4, 6)), ((1, 1), (1, 1))]:
    a, b = f32(*sa), f32(*sb)
    case("matmul %s %s" % (sa, sb), "matmul", [("f32", a), ("f32", b)], np.tensordot(d(a), d(b), axes=1), "f32")

reductions = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "var": np.var, "std": np.std}
for name, fn in reductions.items():
    for shape, axes in [((7,), (0,)), ((3, 5), (1,)), ((3, 5), (0,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (0, 1, 2)),
                        ((1023,), (0,))]:
        for keep in (False, True):
            x = f32(*shape)
            case("%s %s over %s keep %d" % (name, shape, axes, keep), "reduce", [("f32", x)],
                 fn(d(x), axis=axes, keepdims=keep), "f32", fn=name, axes=",".join(map(str, axes)), keep=int(keep))


def logsumexp(x, axis, keepdims):
    peak = np.max(x, axis=axis, keepdims=True)
    r = peak + np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True))
    return r if keepdims else np.squeeze(r, axis=axis)


for shape, axes in [((7,), (0,)), ((3, 5), (1,)), ((2, 3, 4), (0, 2))]:
    x = f32(*shape, lo=-30, hi=30)
    case("logsumexp %s over %s" % (shape, axes), "reduce", [("f32", x)], logsumexp(d(x), axes, False), "f32",
         fn="logsumexp", axes=",".join(map(str, axes)), keep=0)
xb = rng.random((4, 6)) < 0.5
case("sum of bool", "reduce", [("bool", xb)], np.sum(xb, axis=1), "f32", fn="sum", axes="1", keep=0)
case("mean of bool", "reduce", [("bool", xb)], np.mean(xb, axis=0), "f32", fn="mean", axes="0", keep=0)
case("sum of i32", "reduce", [("i32", ints_a)], np.sum(ints_a), "i32", fn="sum", axes="0", keep=0)

for shape, axis in [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), 1)]:
    x = f32(*shape)
    x.reshape(-1)[1] = x.reshape(-1)[0]  # a tie: the first index wins
    case("argmax %s axis %d" % (shape, axis), "argmax", [("f32", x)], np.argmax(x, axis=axis), "i32", axis=axis, keep=0)
    e = np.exp(d(x) - np.max(d(x), axis=axis, keepdims=True))
    case("softmax %s axis %d" % (shape, axis), "softmax", [("f32", x)], e / e.sum(axis=axis, keepdims=True), "f32",
         axis=axis)
    case("log_softmax %s axis %d" % (shape, axis), "log_softmax", [("f32", x)],
         d(x) - logsumexp(d(x), (axis,), True), "f32", axis=axis)

for shape, axis in [((7, 5), 1), ((1, 3), 1), ((2, 3, 5), 2), ((2, 5, 3), 1), ((1023, 10), 1)]:
    logits = f32(*shape, lo=-6, hi=6)
    rest = tuple(s for k, s in enumerate(shape) if k != axis)
    labels = rng.integers(0, shape[axis], size=rest).astype(np.int32)
    lp = d(logits) - logsumexp(d(logits), (axis,), True)
    picked = np.take_along_axis(lp, np.expand_dims(labels, axis), axis=axis)
    case("cross_entropy %s axis %d" % (shape, axis), "cross_entropy", [("f32", logits), ("i32", labels)],
         -np.mean(picked), "f32", axis=axis)

for shape in [(4, 4), (3, 5, 5), (1, 1)]:
    x = f32(*shape)
    mask = np.triu(np.ones(shape[-2:], dtype=bool), k=1)
    case("causal %s" % (shape,), "causal", [("f32", x)], np.where(mask, -np.inf, d(x)), "f32")

table = f32(7, 3)
for ids_shape in [(5,), (2, 4), ()]:
    ids = rng.integers(0, 7, size=ids_shape).astype(np.int32)
    case("gather %s" % (ids_shape,), "gather", [("f32", table), ("i32", ids)], d(table)[ids], "f32")

# einops by names: `in` a.b.c ("_" for a size-1 axis), `out` groups split by
# "/" (a "-" group is a size-1 axis), `sizes` a:2.b:3.
def einops_case(name, x, in_names, out_groups, sizes, op=None, expected=None):
    attrs = {"in": ".".join(n or "_" for n in in_names),
             "out": "/".join(".".join(g) if g else "-" for g in out_groups),
             "sizes": ".".join("%s:%d" % kv for kv in sizes.items()), "reduce": op or "none"}
    case(name, "einops", [("f32", x)], expected, "f32", **attrs)


x = f32(2, 6)
einops_case("rearrange split b (h w) -> b h w", x, ["b", "h", "w"], [["b"], ["h"], ["w"]], {"b": 2, "h": 2, "w": 3},
            expected=d(x).reshape(2, 2, 3))
x = f32(2, 3, 4)
einops_case("rearrange transpose b h w -> w b h", x, ["b", "h", "w"], [["w"], ["b"], ["h"]], {"b": 2, "h": 3, "w": 4},
            expected=d(x).transpose(2, 0, 1))
einops_case("rearrange group b h w -> b (w h)", x, ["b", "h", "w"], [["b"], ["w", "h"]], {"b": 2, "h": 3, "w": 4},
            expected=d(x).transpose(0, 2, 1).reshape(2, 12))
einops_case("rearrange unit b h w -> b 1 h w", x, ["b", "h", "w"], [["b"], [], ["h"], ["w"]], {"b": 2, "h": 3, "w": 4},
            expected=d(x).reshape(2, 1, 3, 4))
for op, fn in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)]:
    einops_case("reduce %s b h w -> b w" % op, x, ["b", "h", "w"], [["b"], ["w"]], {"b": 2, "h": 3, "w": 4}, op,
                expected=fn(d(x), axis=1))
x = f32(3, 4)
einops_case("repeat d e -> d r e", x, ["d", "e"], [["d"], ["r"], ["e"]], {"d": 3, "e": 4, "r": 5},
            expected=np.repeat(d(x)[:, None, :], 5, axis=1))


def einsum_case(name, xs, ins, out, expected):
    case(name, "einsum", [("f32", x) for x in xs], expected, "f32",
         **{"in": "/".join(".".join(i) for i in ins), "out": ".".join(out) or "-"})


a, b = f32(3, 4), f32(4, 5)
einsum_case("einsum b d, d c -> b c", [a, b], [["b", "d"], ["d", "c"]], ["b", "c"], d(a) @ d(b))
q, k = f32(2, 3, 5, 4), f32(2, 3, 7, 4)
einsum_case("einsum b h i d, b h j d -> b h i j", [q, k], [["b", "h", "i", "d"], ["b", "h", "j", "d"]],
            ["b", "h", "i", "j"], np.einsum("bhid,bhjd->bhij", d(q), d(k)))
v = f32(7)
einsum_case("einsum i, i ->", [v, v], [["i"], ["i"]], [], np.dot(d(v), d(v)))
einsum_case("einsum b d, b e -> d e", [a, a], [["b", "d"], ["b", "e"]], ["d", "e"], d(a).T @ d(a))

for shape, axis in [((7,), 0), ((3, 5), 1), ((4, 3), 0)]:
    x = np.round(f32(*shape), 1).astype(np.float32)  # ties, so stability shows
    case("sort %s axis %d" % (shape, axis), "sort", [("f32", x)], np.sort(d(x), axis=axis, kind="stable"), "f32",
         axis=axis)
    case("argsort %s axis %d" % (shape, axis), "argsort", [("f32", x)], np.argsort(d(x), axis=axis, kind="stable"),
         "i32", axis=axis)
    mean = d(x).mean(axis=axis, keepdims=True)
    case("layer_norm %s axis %d" % (shape, axis), "layer_norm", [("f32", x)],
         (d(x) - mean) / np.sqrt(((d(x) - mean) ** 2).mean(axis=axis, keepdims=True) + 1e-5), "f32", axis=axis)
    case("rms_norm %s axis %d" % (shape, axis), "rms_norm", [("f32", x)],
         d(x) / np.sqrt((d(x) ** 2).mean(axis=axis, keepdims=True) + 1e-5), "f32", axis=axis)
    # eps= (a large one, so a wrong eps shows)
    case("layer_norm %s axis %d eps 0.5" % (shape, axis), "layer_norm", [("f32", x)],
         (d(x) - mean) / np.sqrt(((d(x) - mean) ** 2).mean(axis=axis, keepdims=True) + 0.5), "f32", axis=axis,
         eps=0.5)
    case("rms_norm %s axis %d eps 0.5" % (shape, axis), "rms_norm", [("f32", x)],
         d(x) / np.sqrt((d(x) ** 2).mean(axis=axis, keepdims=True) + 0.5), "f32", axis=axis, eps=0.5)

a, b, c = f32(2, 3), f32(2, 1), f32(2, 4)
case("concat axis 1", "concat", [("f32", a), ("f32", b), ("f32", c)], np.concatenate([d(a), d(b), d(c)], axis=1), "f32",
     axis=1)
a2 = f32(5, 3)
case("concat axis 0", "concat", [("f32", a), ("f32", a2)], np.concatenate([d(a), d(a2)], axis=0), "f32", axis=0)
case("stack", "stack", [("f32", a), ("f32", a)], np.stack([d(a), d(a)]), "f32")
x = f32(3, 4)
case("pad axis 1", "pad", [("f32", x)], np.pad(d(x), ((0, 0), (1, 2)), constant_values=-1.5), "f32", axis=1, before=1,
     after=2, value=-1.5)
case("pad axis 0", "pad", [("f32", x)], np.pad(d(x), ((2, 0), (0, 0))), "f32", axis=0, before=2, after=0, value=0)
case("slice axis 1", "slice", [("f32", x)], d(x)[:, 1:3], "f32", axis=1, start=1, end=3)
case("slice axis 0 empty", "slice", [("f32", x)], d(x)[2:2, :], "f32", axis=0, start=2, end=2)
case("take axis 1", "take", [("f32", x)], d(x)[:, -1], "f32", axis=1, index=-1)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_ops.txt")
with open(path, "w") as f:
    f.write("\n".join(out) + "\n")
print("wrote %d cases to %s" % (sum(1 for line in out if line.startswith("case ")), path))
