#!/usr/bin/env bash
# The MPI scaling rows: the transports' latency and bandwidth (ping-pong);
# TSQR and the seed SVD under mpirun -np 1, 2 and 4 over shared memory and
# over TCP, one worker thread per rank, with bytes sent per rank against the
# TSQR lower bound; and the cost model fitted from the one-rank run, for 1 to
# 1024 ranks (and a TSQR of 1e8 rows) from the real placement.
#
#   bash benches/run_mpi.sh [--quick]
#
# Prints markdown tables (BENCHMARKS.md keeps the latest). Needs Open MPI
# (scripts/test.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p chunked-benches --bin mpi_report >&2
bin=target/release/mpi_report
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tcp=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self)
tsqr_rows=1000000; svd_rows=100000; repeat=3
for a in "$@"; do
    case "$a" in
        --quick) tsqr_rows=200000; svd_rows=20000; repeat=1 ;;
        *) echo "unknown option $a" >&2; exit 2 ;;
    esac
done

echo "| transport | α µs | β GB/s |"
echo "|---|---|---|"
TRANSPORT="shared memory" mpirun --bind-to none -np 2 "$bin" --workload pingpong
TRANSPORT=tcp "${tcp[@]}" mpirun --bind-to none -np 2 "$bin" --workload pingpong
ping() { "$@" mpirun --bind-to none -np 2 "$bin" --workload pingpong | awk -F'|' '{gsub(/ /, "", $3); gsub(/ /, "", $4); print $3 "e-6 " $4 "e9"}'; }
read -r alpha beta < <(ping env)

echo
echo "| workload | transport | ranks | shape | chunk rows | threads/rank | median s | GFLOP/s | max MB sent by a rank | MB sent in all | lower bound MB | tasks per rank |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for transport in shm tcp; do
    pre=(env); [ "$transport" = tcp ] && pre=("${tcp[@]}")
    for np in 1 2 4; do
        for w in tsqr svd; do
            if [ $w = tsqr ]; then args=(--rows $tsqr_rows --cols 100 --chunk-rows 10000 --repeat $repeat);
            else args=(--rows $svd_rows --cols 1000 --chunk-rows 1000 --repeat 1); fi
            "${pre[@]}" mpirun --bind-to none -np $np "$bin" --workload $w "${args[@]}" --threads 1 | sed "s/^| $w |/| $w | $transport |/"
        done
    done
done

echo
echo "Model (α = $alpha s, β = $beta B/s, shared memory):"
echo "| workload | ranks | shape | modeled s | max MB sent by a rank | MB sent in all | lower bound MB | idle |"
echo "|---|---|---|---|---|---|---|---|"
ranks=1,2,4,8,16,32,64,128,256,512,1024
"$bin" --workload tsqr --rows $tsqr_rows --cols 100 --chunk-rows 10000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload svd --rows $svd_rows --cols 1000 --chunk-rows 1000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload tsqr --rows 100000000 --fit-rows $tsqr_rows --cols 100 --chunk-rows 10000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
