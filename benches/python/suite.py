"""The benchmark suite: the same workloads in chunked, dask and numpy, one after
the other on the same machine, with times, peak RSS, ratios and the physical
limit.

Usage (the README's command does the set-up first):
    bash scripts/setup_python.sh
    target/pyenv/bin/python benches/python/suite.py [--scale S] [--repeat R] [--only a,b] [--json FILE]

Every workload runs in its own process per library (so the peak RSS, from
getrusage / VmHWM, is that workload's), once to warm up and then R times; the
table shows medians. Sizes scale with S (1.0 = the issues' sizes: 20000^2 f64,
the seed's 100000 x 1000, ...). Fair settings: chunked and dask get the same
number of worker threads (all cores), dask's BLAS one thread per worker (its best
setting here), numpy's BLAS all cores. The limit column is the workload's bytes
at the machine's streaming-read bandwidth, or its flops at faer's gemm rate, both
measured in the same run.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "target", "release", "suite")
THREADS = os.cpu_count() or 1
WORKLOADS = ["overhead", "random_sum", "elementwise_reduction", "rechunk", "take_scattered", "matmul", "stacked_matmul", "tril_sum", "argwhere", "vindex", "vindex_grid",
             "einsum_rowdot", "einsum_chain", "laplacian", "weighted_laplacian", "tsqr", "seed_svd",
             "svd_compressed", "zarr_write", "zarr_read", "out_of_core_sum"]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def side(n, scale):
    return max(1, int(n * scale ** 0.5))


def scattered(scale):
    """Rows of the take_scattered workload and its indices: every row once, in
    the order i * 7919 mod rows (7919 is prime, so a permutation)."""
    import numpy as np

    rows = max(1000, int(100_000 * scale))
    while rows % 7919 == 0:
        rows += 1
    return rows, (np.arange(rows, dtype=np.int64) * 7919) % rows


def points(scale):
    """The vindex workload's side and its scattered points (p * 7919 mod n,
    p * 104729 mod n)."""
    import numpy as np

    n = side(10_000, scale)
    p = np.arange(max(1000, int(1_000_000 * scale)), dtype=np.int64)
    return n, (p * 7919) % n, (p * 104729) % n


def grid_points(scale):
    """The vindex_grid workload's side and its m x m index arrays (the flat
    point p at p * 7919 mod n, p * 104729 mod n)."""
    import numpy as np

    n = side(6_000, scale)
    m = max(32, int(1000 * scale ** 0.5))
    p = np.arange(m * m, dtype=np.int64).reshape(m, m)
    return n, (p * 7919) % n, (p * 104729) % n


def laplacian(b):
    """The five-point Laplacian on the interior of a block, zero on its rim
    (the halo that map_overlap trims)."""
    import numpy as np

    out = np.zeros_like(b)
    out[1:-1, 1:-1] = 4 * b[1:-1, 1:-1] - b[:-2, 1:-1] - b[2:, 1:-1] - b[1:-1, :-2] - b[1:-1, 2:]
    return out


def setup(lib, name, scale, work_dir):
    """Returns one run of `name` in `lib` ("dask" or "numpy"), or None when the
    library has no such workload."""
    import numpy as np

    rows = max(1000, int(100_000 * scale))
    if lib == "dask":
        import dask
        import dask.array as da

        dask.config.set(scheduler="threads", num_workers=THREADS)
        if name == "overhead":
            n = max(1000, int(1_000_000 * scale))
            return lambda: da.ones((n,), chunks=100).sum().compute()
        if name == "random_sum":
            return lambda: da.random.random((rows, 1000), chunks=(1000, 1000)).sum().compute()
        if name == "elementwise_reduction":
            n = side(20_000, scale)
            x = da.random.random((n, n), chunks=(2000, 2000))
            return lambda: ((x - x.mean(axis=0)) ** 2).sum().compute()
        if name in ("rechunk", "out_of_core_sum"):
            n = side(20_000 if name == "rechunk" else 8_000, scale)
            x = da.random.random((n, n), chunks=(n, 100))
            return lambda: (x * 1.0).rechunk((100, n)).sum().compute()
        if name == "take_scattered":
            rows, idx = scattered(scale)
            x = da.random.random((rows, 1000), chunks=(1000, 1000))
            return lambda: x[idx].sum().compute()
        if name == "matmul":
            n = max(100, int(10_000 * scale ** (1 / 3)))
            x = da.random.random((n, n), chunks=(2000, 2000))
            return lambda: (x @ x).sum().compute()
        if name == "stacked_matmul":
            b = max(1, int(256 * scale))
            x = da.random.random((b, 500, 500), chunks=(32, 500, 500))
            return lambda: (x @ x).sum().compute()
        if name == "tril_sum":
            n = side(20_000, scale)
            x = da.random.random((n, n), chunks=(2000, 2000))
            return lambda: da.tril(x).sum().compute()
        if name == "argwhere":
            n = side(20_000, scale)
            x = da.random.random((n, n // 4), chunks=(2000, n // 4))
            return lambda: da.argwhere(x > 0.99).compute()
        if name == "vindex":
            n, i, j = points(scale)
            x = da.random.random((n, n), chunks=(2000, 2000))
            return lambda: x.vindex[i, j].sum().compute()
        if name == "vindex_grid":
            n, i, j = grid_points(scale)
            x = da.random.random((4, n, n), chunks=(1, 2000, 2000))
            return lambda: x.vindex[:, i, j].sum().compute()
        if name == "einsum_rowdot":
            m = max(10_000, int(1_000_000 * scale))
            x = da.random.random((m, 100), chunks=(100_000, 100))
            return lambda: da.einsum("ij,ij->i", x, x).sum().compute()
        if name == "einsum_chain":
            n = side(8_000, scale)
            a = da.random.random((n, n), chunks=(2000, 2000))
            b = da.random.random((n, n), chunks=(2000, 2000))
            v = da.random.random((n,), chunks=2000)
            return lambda: da.einsum("ij,jk,k->i", a, b, v, optimize="greedy").sum().compute()
        if name == "laplacian":
            n = side(10_000, scale)
            x = da.random.random((n, n), chunks=(2000, 2000))
            return lambda: x.map_overlap(laplacian, depth=1, boundary="nearest").sum().compute()
        if name == "weighted_laplacian":
            n = side(10_000, scale)
            x = da.random.random((n, n), chunks=(2000, 2000))
            w = da.random.random((n,), chunks=2000)
            return lambda: da.map_overlap(lambda b, v: laplacian(b) * v, x, w, depth=1, boundary="nearest").sum().compute()
        if name == "tsqr":
            m = max(10_000, int(1_000_000 * scale))
            a = da.random.random((m, 100), chunks=(10_000, 100))
            q, r = da.linalg.tsqr(a)
            return lambda: dask.compute(q, r)
        if name == "seed_svd":
            x = da.random.random((rows, 1000), chunks=(1000, 1000))
            u, s, v = da.linalg.svd(x)
            return lambda: dask.compute(u, s, v)
        if name == "svd_compressed":
            a = da.random.random((rows, 1000), chunks=(10_000, 1000)).persist()
            u, s, v = da.linalg.svd_compressed(a, 10, seed=0)
            return lambda: dask.compute(u, s, v)
        if name in ("zarr_write", "zarr_read"):
            n = side(20_000, scale)
            path = os.path.join(work_dir, "dask.zarr")
            x = da.random.random((n, n), chunks=(1000, 1000))
            x.to_zarr(path, overwrite=True)
            if name == "zarr_write":
                return lambda: x.to_zarr(path, overwrite=True)
            return lambda: da.from_zarr(path).sum().compute()
        return None
    # numpy: in-memory arrays, generation included as in the lazy versions.
    rng = np.random.default_rng(0)
    if name == "random_sum":
        return lambda: rng.random((rows, 1000)).sum()
    if name == "elementwise_reduction":
        n = side(20_000, scale)
        return lambda: (lambda y: ((y - y.mean(axis=0)) ** 2).sum())(rng.random((n, n)))
    if name in ("rechunk", "out_of_core_sum"):
        # numpy's counterpart of a tall-to-wide rechunk: a copy in the other order.
        n = side(20_000 if name == "rechunk" else 8_000, scale)
        return lambda: np.asfortranarray(rng.random((n, n))).sum()
    if name == "take_scattered":
        rows, idx = scattered(scale)
        return lambda: rng.random((rows, 1000))[idx].sum()
    if name == "matmul":
        n = max(100, int(10_000 * scale ** (1 / 3)))
        return lambda: (lambda y: (y @ y).sum())(rng.random((n, n)))
    if name == "stacked_matmul":
        b = max(1, int(256 * scale))
        return lambda: (lambda y: (y @ y).sum())(rng.random((b, 500, 500)))
    if name == "tril_sum":
        n = side(20_000, scale)
        return lambda: np.tril(rng.random((n, n))).sum()
    if name == "argwhere":
        n = side(20_000, scale)
        return lambda: np.argwhere(rng.random((n, n // 4)) > 0.99)
    if name == "vindex":
        n, i, j = points(scale)
        return lambda: rng.random((n, n))[i, j].sum()
    if name == "vindex_grid":
        n, i, j = grid_points(scale)
        return lambda: rng.random((4, n, n))[:, i, j].sum()
    if name == "einsum_rowdot":
        m = max(10_000, int(1_000_000 * scale))
        return lambda: (lambda y: np.einsum("ij,ij->i", y, y).sum())(rng.random((m, 100)))
    if name == "einsum_chain":
        n = side(8_000, scale)
        return lambda: np.einsum("ij,jk,k->i", rng.random((n, n)), rng.random((n, n)), rng.random(n), optimize="greedy").sum()
    if name == "laplacian":
        n = side(10_000, scale)
        return lambda: laplacian(np.pad(rng.random((n, n)), 1, mode="edge"))[1:-1, 1:-1].sum()
    if name == "weighted_laplacian":
        n = side(10_000, scale)
        return lambda: (laplacian(np.pad(rng.random((n, n)), 1, mode="edge")) * np.pad(rng.random(n), 1, mode="edge"))[1:-1, 1:-1].sum()
    if name == "tsqr":
        m = max(10_000, int(1_000_000 * scale))
        return lambda: np.linalg.qr(rng.random((m, 100)))
    if name == "seed_svd":
        return lambda: np.linalg.svd(rng.random((rows, 1000)), full_matrices=False)
    if name in ("zarr_write", "zarr_read"):
        import zarr

        n = side(20_000, scale)
        path = os.path.join(work_dir, "np.zarr")
        a = rng.random((n, n))

        def write():
            z = zarr.create_array(store=path, shape=a.shape, chunks=(1000, 1000), dtype=a.dtype, overwrite=True)
            z[...] = a

        write()
        if name == "zarr_write":
            return write
        return lambda: zarr.open_array(path, mode="r")[...].sum()
    return None


def chunked_report(binary, *flags):
    """The rows chunked's report `binary` prints with --json (built in release), by name."""
    args = ["cargo", "run", "--release", "-q", "-p", "chunked-benches", "--bin", binary, "--", "--json", *flags]
    out = subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    return json.loads(out.stdout)


def markdown_table(columns, rows):
    """A markdown table of `columns` and `rows` (lists of cells)."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


def timed(run, repeat):
    """Seconds of `repeat` runs of `run` after one warm-up run."""
    run()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return times


def child(lib, name, scale, repeat, work_dir):
    import resource

    run = setup(lib, name, scale, work_dir)
    if run is None:
        print(json.dumps({"workload": name, "times": None}))
        return
    times = timed(run, repeat)
    print(json.dumps({"workload": name, "times": times, "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


def run_child(cmd, env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}\n")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt_s(t):
    return "-" if t is None else (f"{t:.3f}" if t < 10 else f"{t:.1f}")


def fmt_mib(kib):
    return "-" if kib is None else f"{kib / 1024:.0f}"


def main():
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
        return
    scale = float(arg("--scale", "1.0"))
    repeat = int(arg("--repeat", "3"))
    only = arg("--only", None)
    names = only.split(",") if only else WORKLOADS
    work_dir = os.path.join(ROOT, "target", "suite-work")
    os.makedirs(work_dir, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "chunked-benches", "--bin", "suite"], cwd=ROOT, check=True)
    limits = json.loads(subprocess.run([SUITE, "--limits"], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    results = {"machine": {"threads": THREADS, **limits, "uname": " ".join(os.uname())}, "scale": scale, "repeat": repeat, "workloads": {}}
    one_thread = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    all_threads = {k: str(THREADS) for k in one_thread}
    for name in names:
        row = {}
        ours = run_child([SUITE, "--workload", name, "--scale", str(scale), "--repeat", str(repeat)], {})
        row["chunked"] = ours
        for lib, env in (("dask", one_thread), ("numpy", all_threads)):
            row[lib] = run_child([sys.executable, __file__, "--child", lib, name, str(scale), str(repeat), work_dir], env)
        results["workloads"][name] = row
        sys.stderr.write(f"{name}: done\n")
    print_table(results)
    out = arg("--json", os.path.join(ROOT, "target", "suite.json"))
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
    sys.stderr.write(f"results: {out}\n")


def print_table(results):
    m = results["machine"]
    print(f"Machine: {m['threads']} threads; streaming read {m['read_gbs']} GB/s; faer gemm {m['gemm_gflops']} GFLOP/s; "
          f"scale {results['scale']}; medians of {results['repeat']} runs after a warm-up.\n")
    print("| workload | chunked s | dask s | numpy s | chunked/dask | chunked/numpy | limit s | chunked RSS MiB | dask RSS MiB | numpy RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, row in results["workloads"].items():
        med = {lib: (statistics.median(r["times"]) if r and r.get("times") else None) for lib, r in row.items()}
        rss = {lib: (r.get("peak_rss_kib") if r and r.get("times") else None) for lib, r in row.items()}
        ours = row.get("chunked") or {}
        limit = None
        if ours.get("work_kind") == "bytes":
            limit = ours["work"] / (m["read_gbs"] * 1e9)
        elif ours.get("work_kind") == "flops":
            limit = ours["work"] / (m["gemm_gflops"] * 1e9)
        ratio = lambda o: "-" if med["chunked"] is None or o is None else f"{med['chunked'] / o:.2f}"
        print(f"| {name} | {fmt_s(med['chunked'])} | {fmt_s(med['dask'])} | {fmt_s(med['numpy'])} | {ratio(med['dask'])} | "
              f"{ratio(med['numpy'])} | {fmt_s(limit)} | {fmt_mib(rss['chunked'])} | {fmt_mib(rss['dask'])} | {fmt_mib(rss['numpy'])} |")


if __name__ == "__main__":
    main()
