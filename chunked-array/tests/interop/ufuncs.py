"""NumPy's ufuncs on edge values (NaN, infinities, signed zeros, subnormals,
integer extremes, zero divisors), printed for tests/it/ufuncs.rs to compare.

Usage: python ufuncs.py   one line per case: `ufunc dtype a b result`, floats
as the hex of their bits, `-` for b in unary cases."""
import warnings

import numpy as np

warnings.simplefilter("ignore")

FLOATS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -2.5e-310, 0.5, -1.5, 2.5, 7.0, -7.0, 1e308, -3.25,
                   1.0, -1.0, -0.914, 0.9999999])
UNARY_F = ["floor", "ceil", "trunc", "rint", "sign", "reciprocal", "square", "cbrt", "exp2", "expm1", "log2",
           "log10", "log1p", "degrees", "radians", "isfinite", "isinf", "signbit", "sqrt", "arcsinh",
           "arctanh"]
BINARY_F = ["floor_divide", "remainder", "fmod", "logaddexp", "logaddexp2", "hypot", "arctan2", "copysign",
            "nextafter", "fmax", "fmin", "heaviside", "maximum", "minimum"]
INTS = {
    "int8": [-128, -127, -7, -1, 0, 1, 2, 7, 127],
    "int64": [-(2**63), -7, -1, 0, 1, 3, 64, 2**63 - 1],
    "uint8": [0, 1, 2, 7, 128, 255],
}
BINARY_I = ["floor_divide", "remainder", "fmod", "left_shift", "right_shift", "gcd", "lcm", "bitwise_and",
            "bitwise_xor", "add", "multiply", "subtract"]
UNARY_I = ["negative", "absolute", "sign", "square", "invert"]


def show(v):
    v = np.asarray(v)
    if v.dtype == np.float64:
        return "%016x" % v.view(np.uint64)
    if v.dtype == np.bool_:
        return str(bool(v)).lower()
    return str(int(v))


for name in UNARY_F:
    for a in FLOATS:
        print(name, "float64", show(a), "-", show(getattr(np, name)(a)))
for name in BINARY_F:
    for a in FLOATS:
        for b in FLOATS:
            print(name, "float64", show(a), show(b), show(getattr(np, name)(a, b)))
for dtype, vals in INTS.items():
    arr = np.array(vals, dtype=dtype)
    for name in UNARY_I:
        for a in arr:
            print(name, dtype, show(a), "-", show(getattr(np, name)(a)))
    for name in BINARY_I:
        for a in arr:
            for b in arr:
                if name.endswith("shift") and b < 0:
                    continue
                print(name, dtype, show(a), show(b), show(getattr(np, name)(a, b)))
