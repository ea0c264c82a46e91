"""NumPy's result dtype of each named ufunc on each element type (both
operands of that type for binary ones), or TypeError where NumPy has no loop.

Usage: python dynamic.py UNARY,NAMES BINARY,NAMES -> lines `name dtype result`."""
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
          "complex64", "complex128"]
unary, binary = sys.argv[1].split(","), sys.argv[2].split(",")
for d in DTYPES:
    x = np.ones(2, dtype=d)
    for name, args in [(n, (x,)) for n in unary] + [(n, (x, x)) for n in binary]:
        try:
            out = np.asarray(getattr(np, name)(*args)).dtype.name
        except TypeError:
            out = "TypeError"
        print(name, d, out)
