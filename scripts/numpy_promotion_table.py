#!/usr/bin/env python3
"""Writes NumPy's type promotion table for chunked's element types, as
`np.result_type` gives it, to chunked-array/tests/data/numpy_promotion.txt.

Run once with the project's Python (target/pyenv/bin/python); the output is
checked in, and the promotion test compares chunked's compile-time table
(`Promote`) against it. One line per pair: `left right result`, NumPy names."""
import os
import numpy as np

TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]

out = os.path.join(os.path.dirname(__file__), "..", "chunked-array", "tests", "data", "numpy_promotion.txt")
with open(out, "w") as f:
    f.write(f"# np.result_type(left, right) and np.true_divide's output, numpy {np.__version__}\n")
    f.write("# left right result true_divide\n")
    for a in TYPES:
        for b in TYPES:
            r = np.result_type(np.dtype(a), np.dtype(b))
            try:
                d = np.true_divide(np.ones(1, a), np.ones(1, b)).dtype.name
            except TypeError:
                d = "-"
            f.write(f"{a} {b} {r.name} {d}\n")
