"""dask's side of the dashboard overhead benchmark: the sum of
da.ones(N, chunks=C) on the threaded scheduler (which has no dashboard), and
on a distributed LocalCluster in this process (one worker, two threads) with
the dashboard off, on with no browser, and on with headless Chromium showing
its /status page. Prints one line per mode: best and median seconds, per-task
microseconds, and the ratio to the cluster with the dashboard off.

Needs distributed and bokeh (benches/run_dashboard.sh installs them)."""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

import dask
import dask.array as da

p = argparse.ArgumentParser()
p.add_argument("--elements", type=int, default=20_000)
p.add_argument("--chunk", type=int, default=10)
p.add_argument("--reps", type=int, default=5)
args = p.parse_args()

x = da.ones(args.elements, chunks=args.chunk).sum()
tasks = len(dict(x.__dask_graph__()))


def timed(compute):
    times = []
    for _ in range(args.reps):
        t = time.perf_counter()
        total = compute()
        times.append(time.perf_counter() - t)
        assert total == args.elements
    times.sort()
    return times[0], times[len(times) // 2]


def browser(url):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    profile = tempfile.mkdtemp(prefix="dask-dashboard-bench-")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--window-size=1280,900", "--remote-debugging-port=0", f"--user-data-dir={profile}"]
    child = subprocess.Popen([exe, *flags, url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(8)  # the page loads bokeh and opens its websockets
    return child, profile


rows = {}
rows["threads"] = timed(lambda: x.compute(scheduler="threads"))
from distributed import Client, LocalCluster  # noqa: E402

for mode in ["dist-off", "dist-idle", "dist-browser"]:
    address = None if mode == "dist-off" else "127.0.0.1:0"
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=address) as cluster, \
            Client(cluster) as client:
        child = None
        if mode == "dist-browser":
            child, profile = browser(client.dashboard_link)
        x.compute()  # warm
        rows[mode] = timed(lambda: x.compute())
        if child is not None:
            child.kill()
            child.wait()
            shutil.rmtree(profile, ignore_errors=True)

print(f"dask {dask.__version__}: sum of ones({args.elements}, chunks={args.chunk}): {tasks} tasks, "
      f"{args.reps} runs per mode")
off = rows["dist-off"][0]
for mode, (best, median) in rows.items():
    print(f"{mode:12} best {best:.4f} s, median {median:.4f} s, {best / tasks * 1e6:.1f} us per task, "
          f"{best / off:.3f}x dist-off")
