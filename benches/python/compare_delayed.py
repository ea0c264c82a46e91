"""delayed_report's graph in dask.delayed, next to chunked, in one run on one
machine: 10^5 trivial tasks summed in groups of 1000 and then in total, built
and computed (the build timed apart from the compute), on dask's threaded and sync
schedulers; chunked's times are medians of three, dask's one run each.

Usage: python benches/python/compare_delayed.py
Needs dask; builds and runs chunked's delayed_report. Prints a markdown table.
"""
import time

import dask
from dask import delayed

from suite import chunked_report, markdown_table

LEAVES, GROUP = 100_000, 1000
TASKS = LEAVES + LEAVES // GROUP + 1


def leaf(i):
    return i


def graph():
    leaves = [delayed(leaf)(i) for i in range(LEAVES)]
    groups = [delayed(sum)(leaves[k:k + GROUP]) for k in range(0, LEAVES, GROUP)]
    return delayed(sum)(groups)


def main():
    want = LEAVES * (LEAVES - 1) // 2
    # dask builds this graph at several hundred us per task: one timed run
    # of each (after a smaller warm-up) keeps the script to a few minutes.
    delayed(sum)([delayed(leaf)(i) for i in range(100)]).compute()
    theirs = {}
    t = time.perf_counter()
    g = graph()
    theirs["10^5 delayed tasks, build"] = time.perf_counter() - t
    for name in ["threads", "sync"]:
        g = graph()
        t = time.perf_counter()
        assert g.compute(scheduler=name) == want
        theirs[f"10^5 delayed tasks, compute, {name}"] = time.perf_counter() - t
    ours = chunked_report("delayed_report")
    print(f"dask {dask.__version__}; {TASKS} tasks per run")
    columns = ["workload", "chunked s", "dask.delayed s", "chunked us/task", "dask us/task", "dask / chunked"]
    rows = []
    for name, d in theirs.items():
        c = ours[name]["chunked"]
        rows.append([name, f"{c:.3f}", f"{d:.3f}", f"{c / TASKS * 1e6:.2f}", f"{d / TASKS * 1e6:.1f}", f"{d / c:.0f}x"])
    markdown_table(columns, rows)


if __name__ == "__main__":
    main()
