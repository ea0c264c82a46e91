#!/usr/bin/env bash
# The live dashboard's cost per task, in one run: chunked's overhead benchmark
# (the sum of ones(1e6, chunks=10), 233 337 tasks, and the dask-sized
# ones(20000, chunks=10)) with the dashboard off, on with no browser, on with
# an event-stream reader and on with headless Chromium on the page; then
# dask's threaded scheduler and its distributed scheduler with its dashboard
# off, on, and on with Chromium on /status.
#
#   bash benches/run_dashboard.sh
#
# Needs Chromium (scripts/test.sh installs it) and target/pyenv (scripts/setup_python.sh);
# installs distributed and bokeh there for dask's dashboard.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p chunked-benches --bin dashboard_overhead >&2
[ -x target/pyenv/bin/python ] || bash scripts/setup_python.sh >&2
dask_version=$(target/pyenv/bin/python -c 'import dask; print(dask.__version__)')
target/pyenv/bin/pip install -q "distributed==$dask_version" "bokeh>=3.1" >&2
target/release/dashboard_overhead --reps 15
target/release/dashboard_overhead --elements 20000 --chunk 10 --reps 40
target/pyenv/bin/python -W ignore benches/python/compare_dashboard.py --elements 20000 --chunk 10 --reps 5
