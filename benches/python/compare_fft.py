"""FFT workloads next to dask and numpy, in one run on one machine (see
`benches/src/bin/fft_report.rs` for chunked's side). Each result is summed.

- fft2 of 8192^2 complex128 in (8192, 1024) chunks, persisted first. dask's
  fft2 needs both axes in one chunk; it runs as dask users write it, `fft`
  along axis 0, a rechunk to (1024, 8192), `fft` along axis 1.
- rfft along axis 1 of 20000^2 float64 in (800, 20000) chunks, persisted.
- fft of 2^28 complex128 points: chunked under a 1 GiB memory limit in
  2^22-element chunks; numpy in memory on an array made before the clock
  starts; dask cannot (it needs the axis in one chunk).

dask: threaded scheduler, one run after a warm-up; numpy: one run after a
warm-up (pocketfft, one thread). Usage:
python benches/python/compare_fft.py [--scale S] [--only NAME]
"""
import argparse

import dask
import dask.array as da
import numpy as np

from suite import chunked_report, markdown_table, timed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--only", default="")
    a = p.parse_args()
    flags = ["--scale", str(a.scale)] + (["--only", a.only] if a.only else [])
    ours = chunked_report("fft_report", *flags)
    print(f"dask {dask.__version__}, numpy {np.__version__}")
    side = 1 << int(np.ceil(np.log2(8192 * a.scale**0.5)))
    rows_n = int(20000 * a.scale**0.5)
    long = int(2**28 * a.scale)
    rows = []
    rng = np.random.default_rng(1)
    for name, c in ours.items():
        c = c["chunked"]
        if name.startswith("fft2"):
            x = rng.standard_normal((side, side)).astype(np.complex128)
            d = da.from_array(x, chunks=(side, side // 8)).persist()
            lazy = da.fft.fft(da.fft.fft(d, axis=0).rechunk((side // 8, side)), axis=1).sum()
            dt = timed(lambda: lazy.compute(), 1)[0]
            nt = timed(lambda: np.fft.fft2(x).sum(), 1)[0]
        elif name.startswith("rfft"):
            x = rng.standard_normal((rows_n, rows_n))
            d = da.from_array(x, chunks=(800, rows_n)).persist()
            lazy = da.fft.rfft(d, axis=1).sum()
            dt = timed(lambda: lazy.compute(), 1)[0]
            nt = timed(lambda: np.fft.rfft(x, axis=1).sum(), 1)[0]
        else:
            x = rng.standard_normal(long).astype(np.complex128)
            dt = None
            nt = timed(lambda: np.fft.fft(x).sum(), 1)[0]
        del x
        rows.append([name, f"{c:.3f}", "-" if dt is None else f"{dt:.3f}", f"{nt:.3f}",
                     "-" if dt is None else f"{dt / c:.2f}", f"{nt / c:.2f}", ours[name]["note"]])
    markdown_table(["workload", "chunked s", "dask s", "numpy s", "dask / chunked", "numpy / chunked", "chunked"], rows)


if __name__ == "__main__":
    main()
