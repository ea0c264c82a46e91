"""The GPU rows of the suite: the same workloads in chunked (on the first CUDA
device) and in dask + CuPy (dask-cuda's model: CuPy-backed blocks), one after
the other on the same machine.

Usage (run_suite.sh calls it where `nvidia-smi` finds a GPU):
    target/pyenv/bin/python benches/python/gpu_suite.py [--scale S] [--repeat R]

Workloads (sizes scale with S):
    random_sum  random (100000, 1000) in (1000, 1000) blocks, made on the GPU, summed
    matmul      x @ x of a random 10000^2 in 2000^2 blocks, summed
    seed_svd    the seed SVD of a random (100000, 1000) in (1000, 1000) blocks (u, s, v)
    ufunc_cheap, ufunc_trig
                the ufunc issue's two five-ufunc chains over that random array,
                persisted on the GPU, summed
    complex_chain
                z = x + 1j*y (complex128, (100000, 1000) in (1000, 1000) blocks,
                persisted on the GPU): abs((z * conj(z) + z) / (z + 1.5j)), summed
    complex_matmul
                (z @ z).sum() of a complex128 4000^2 in 2000^2 blocks

chunked's side is `target/release/gpu_report --suite` (JSON on stdout). Each
time is the median of R runs after a warm-up. Without CuPy or a GPU the script
says why and prints chunked's rows alone (or nothing).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

from suite import timed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(ROOT, "target", "release", "gpu_report")
WORKLOADS = ["random_sum", "matmul", "seed_svd", "ufunc_cheap", "ufunc_trig", "complex_chain", "complex_matmul"]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def dask_cupy(scale, repeat):
    """Median seconds per workload in dask + CuPy, or the reason it cannot run."""
    try:
        import cupy as cp
        import dask
        import dask.array as da
        import numpy as np

        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, or no device for it
        return None, f"dask + CuPy unavailable: {e}"
    rs = da.random.RandomState(RandomState=cp.random.RandomState, seed=12)
    rows = max(1000, int(100_000 * scale))
    n = max(100, int(10_000 * scale ** (1 / 3)))

    def sync(x):
        cp.cuda.Device().synchronize()
        return x

    work = {
        "random_sum": lambda: sync(rs.random((rows, 1000), chunks=(1000, 1000)).sum().compute()),
        "matmul": lambda: sync(
            (lambda x: (x @ x).sum().compute())(rs.random((n, n), chunks=(2000, 2000)))
        ),
        "seed_svd": lambda: sync(dask.compute(*da.linalg.svd(rs.random((rows, 1000), chunks=(1000, 1000))))),
    }
    # The ufunc issue's chains over an array persisted on the GPU; NumPy's
    # ufuncs dispatch to CuPy's on CuPy-backed blocks.
    xs = rs.random((rows, 1000), chunks=(1000, 1000)).persist()
    work["ufunc_cheap"] = lambda: sync(
        np.heaviside(np.fmax(np.copysign(np.square(np.floor(xs)), xs), 0.25), 0.5).sum().compute()
    )
    work["ufunc_trig"] = lambda: sync(np.cbrt(np.log1p(np.hypot(np.expm1(np.rint(xs)), xs))).sum().compute())
    zs = (xs + 1j * rs.random((rows, 1000), chunks=(1000, 1000))).persist()
    work["complex_chain"] = lambda: sync(np.abs((zs * np.conj(zs) + zs) / (zs + 1.5j)).sum().compute())
    nc = max(100, int(4000 * scale ** (1 / 3)))
    zm = (rs.random((nc, nc), chunks=(2000, 2000)) + 1j * rs.random((nc, nc), chunks=(2000, 2000))).persist()
    work["complex_matmul"] = lambda: sync((zm @ zm).sum().compute())
    out = {}
    for name, run in work.items():
        out[name] = statistics.median(timed(run, repeat))
    return out, None


def main():
    scale = float(arg("--scale", "1.0"))
    repeat = int(arg("--repeat", "3"))
    # A GPU machine without Rust runs a gpu_report built elsewhere and copied
    # to target/release.
    if shutil.which("cargo"):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-benches", "--bin", "gpu_report"], cwd=ROOT, check=True)
    ours = json.loads(
        subprocess.run([REPORT, "--suite", "--scale", str(scale), "--repeat", str(repeat)], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    )
    if "skipped" in ours:
        print(f"GPU rows skipped: {ours['skipped']}")
        return
    theirs, why = dask_cupy(scale, repeat)
    print(f"GPU rows on {ours['device']} (scale {scale}, medians of {repeat}):")
    print()
    print("| workload | chunked s | dask + CuPy s | dask + CuPy / chunked |")
    print("|---|---|---|---|")
    for name in WORKLOADS:
        t = ours[name]
        d = theirs[name] if theirs else None
        print(f"| {name} | {t:.3f} | {'-' if d is None else f'{d:.3f}'} | {'-' if d is None else f'{d / t:.1f}x'} |")
    if why:
        print(f"\n{why}")


if __name__ == "__main__":
    main()
