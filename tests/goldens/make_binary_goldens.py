"""Writes binary_functions.txt: numpy's value of each function of two values
(types/binary.def's rows) at pairs of float32 values, in float64, and at
pairs of int32 values, for tests/ir/binary_functions_test.cpp.

Each line: `row kind x y result`, kind `f` (floats) or `i` (integers),
numbers as Python's float.hex(). Run: python3 make_binary_goldens.py
"""
import itertools
import math
import os
import warnings

import numpy as np

FLOATS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.1, -0.1, 0.5, 2.5, -2.5,
                   3.0, -3.0, 7.0, -7.0, 1e-38, -1e-45, 1e30, -1e30, 5.75, 0.3, 1e-3, 123456.0],
                  dtype=np.float32).astype(np.float64)
INTS = np.array([0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 2147483647, -2147483647],
                dtype=np.int32)



def c_pow(x, y):
    """C's pow, as the row computes it: numpy's power takes shortcuts (sqrt
    for 0.5, so (-0) ** 0.5 is -0) and SIMD approximations within an ulp."""
    try:
        return math.pow(x, y)
    except ValueError:  # zero to a negative power (C's pole), a negative base to a fraction
        if x == 0:
            odd = y == int(y) and int(y) % 2 == 1
            return math.copysign(math.inf, x) if odd else math.inf
        return math.nan
    except OverflowError:
        return math.copysign(math.inf, x) if y == int(y) and int(y) % 2 else math.inf


FLOAT_ROWS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "pow": c_pow, "mod": np.remainder, "floordiv": np.floor_divide,
    "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
    "and": np.logical_and, "or": np.logical_or,
}
# pow of integers is left out: numpy refuses negative integer powers.
INT_ROWS = {k: v for k, v in FLOAT_ROWS.items() if k != "pow"}


def main():
    out = []
    warnings.simplefilter("ignore")
    with np.errstate(all="ignore"):
        for (name, f), (x, y) in itertools.product(FLOAT_ROWS.items(),
                                                   itertools.product(FLOATS, FLOATS)):
            r = float(f(np.float64(x), np.float64(y)))
            out.append(f"{name} f {float(x).hex()} {float(y).hex()} {r.hex()}")
        for (name, f), (x, y) in itertools.product(INT_ROWS.items(),
                                                   itertools.product(INTS, INTS)):
            r = float(f(np.int64(x), np.int64(y)))  # int64: no overflow past int32
            out.append(f"{name} i {float(x).hex()} {float(y).hex()} {r.hex()}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "binary_functions.txt")
    with open(path, "w") as f:
        f.write(f"# numpy {np.__version__}: tests/goldens/make_binary_goldens.py\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
