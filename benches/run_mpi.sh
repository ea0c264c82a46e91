#!/usr/bin/env bash
# The MPI scaling rows: TSQR and the seed SVD under mpirun -np 1, 2 and 4, with
# fixed total work (strong scaling) and fixed work per rank (weak scaling), one
# worker thread per rank; bytes sent per rank against the TSQR lower bound; and
# the modeled traffic and time of 16 and 64 ranks from the real placement.
#
#   bash benches/run_mpi.sh [--quick] [--tsqr-only]
#
# Prints markdown tables (BENCHMARKS.md keeps the latest). Needs Open MPI
# (scripts/test.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p chunked-benches --bin mpi_report >&2
bin=target/release/mpi_report
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run() { mpirun --bind-to none -np "$1" "$bin" "${@:2}"; }
tsqr_rows=1000000; svd_rows=100000; repeat=3; tsqr_only=""
for a in "$@"; do
    case "$a" in
        --quick) tsqr_rows=200000; svd_rows=20000; repeat=1 ;;
        --tsqr-only) tsqr_only=1 ;;
        *) echo "unknown option $a" >&2; exit 2 ;;
    esac
done

echo "| workload | ranks | shape | chunk rows | threads/rank | median s | GFLOP/s | max MB sent by a rank | MB sent in all | lower bound MB | tasks per rank |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
echo "| **strong scaling** | | | | | | | | | | |"
for np in 1 2 4; do run $np --workload tsqr --rows $tsqr_rows --cols 100 --chunk-rows 10000 --repeat $repeat --threads 1; done
[ -z "$tsqr_only" ] && for np in 1 2 4; do run $np --workload svd --rows $svd_rows --cols 1000 --chunk-rows 1000 --repeat 1 --threads 1; done
echo "| **weak scaling** | | | | | | | | | | |"
for np in 1 2 4; do run $np --workload tsqr --rows $((tsqr_rows / 4 * np)) --cols 100 --chunk-rows 10000 --repeat $repeat --threads 1; done
[ -n "$tsqr_only" ] && exit 0
for np in 1 2 4; do run $np --workload svd --rows $((svd_rows / 4 * np)) --cols 1000 --chunk-rows 1000 --repeat 1 --threads 1; done

# T1: the one-rank, one-thread time, for the model.
t1_of() { run 1 "$@" --threads 1 | awk -F'|' '{gsub(/ /, "", $7); print $7}'; }
t1_tsqr=$(t1_of --workload tsqr --rows $tsqr_rows --cols 100 --chunk-rows 10000 --repeat 1)
t1_svd=$(t1_of --workload svd --rows $svd_rows --cols 1000 --chunk-rows 1000 --repeat 1)
echo
echo "| workload | ranks | shape | chunk rows | most tasks on a rank | modeled s | max MB sent by a rank | MB sent in all | lower bound MB |"
echo "|---|---|---|---|---|---|---|---|---|"
"$bin" --workload tsqr --rows $tsqr_rows --cols 100 --chunk-rows 10000 --model-ranks 2,4,16,64 --t1 "$t1_tsqr"
"$bin" --workload tsqr --rows $((tsqr_rows / 4 * 64)) --cols 100 --chunk-rows 10000 --model-ranks 64 --t1 "$(awk "BEGIN { print $t1_tsqr * 16 }")"
"$bin" --workload svd --rows $svd_rows --cols 1000 --chunk-rows 1000 --model-ranks 2,4,16,64 --t1 "$t1_svd"
