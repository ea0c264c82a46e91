#!/usr/bin/env bash
# The MPI scaling rows: the transports' latency and bandwidth (ping-pong);
# TSQR, the seed SVD, a rechunk and a matmul under mpirun -np 1, 2 and 4 over
# shared memory and over TCP (and -np 8, oversubscribed, over shared memory),
# one worker thread per rank, with bytes sent per rank against the least each
# must move; and the cost model fitted from one-thread runs, for 1 to 1024
# ranks from the real placement (the seed SVD, TSQR 1e6 and 1e8 x 100,
# rechunk 100000², matmul 40000²).
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
tcp=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self)
tsqr_rows=1000000; svd_rows=100000; rechunk_n=8000; matmul_n=8000; repeat=3; workloads="tsqr svd rechunk matmul"; model=1
for a in "$@"; do
    case "$a" in
        --quick) tsqr_rows=200000; svd_rows=20000; rechunk_n=4000; matmul_n=4000; repeat=1 ;;
        --tsqr-only) workloads=tsqr; model="" ;;
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
echo "| workload | transport | ranks | shape | blocks | threads/rank | median s | GFLOP/s | max MB sent by a rank | MB sent in all | least MB | tasks per rank |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
args_of() {
    case $1 in
        tsqr) echo "--rows $tsqr_rows --cols 100 --chunk-rows 10000 --repeat $repeat" ;;
        svd) echo "--rows $svd_rows --cols 1000 --chunk-rows 1000 --repeat 1" ;;
        rechunk) echo "--rows $rechunk_n --cols $rechunk_n --chunk-rows 1000 --chunk-cols $rechunk_n --repeat $repeat" ;;
        matmul) echo "--rows $matmul_n --cols $matmul_n --chunk-rows 2000 --chunk-cols 2000 --repeat 1" ;;
    esac
}
for transport in shm tcp; do
    pre=(env); [ "$transport" = tcp ] && pre=("${tcp[@]}")
    nps="1 2 4"; [ "$transport" = shm ] && nps="1 2 4 8"
    for np in $nps; do
        for w in $workloads; do
            # shellcheck disable=SC2046
            "${pre[@]}" mpirun --bind-to none -np "$np" "$bin" --workload $w $(args_of $w) --threads 1 | sed "s/^| $w |/| $w | $transport |/"
        done
    done
done

[ -z "$model" ] && exit 0
echo
echo "Model (α = $alpha s, β = $beta B/s, shared memory):"
echo "| workload | ranks | shape | modeled s | max MB sent by a rank | MB sent in all | least MB | idle |"
echo "|---|---|---|---|---|---|---|---|"
ranks=1,2,4,8,16,32,64,128,256,512,1024
"$bin" --workload tsqr --rows $tsqr_rows --cols 100 --chunk-rows 10000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload svd --rows $svd_rows --cols 1000 --chunk-rows 1000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload tsqr --rows 100000000 --fit-rows $tsqr_rows --cols 100 --chunk-rows 10000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload rechunk --rows 100000 --cols 100000 --chunk-rows 1000 --chunk-cols 10000 --fit-rows 20000 --fit-cols 20000 --model-ranks $ranks --alpha "$alpha" --beta "$beta"
"$bin" --workload matmul --rows 40000 --cols 40000 --chunk-rows 2000 --chunk-cols 2000 --fit-rows $matmul_n --fit-cols $matmul_n --model-ranks $ranks --alpha "$alpha" --beta "$beta"
# The measured shapes, for the model's error against the runs above.
"$bin" --workload rechunk --rows $rechunk_n --cols $rechunk_n --chunk-rows 1000 --chunk-cols $rechunk_n --model-ranks 1,2,4,8 --alpha "$alpha" --beta "$beta"
"$bin" --workload matmul --rows $matmul_n --cols $matmul_n --chunk-rows 2000 --chunk-cols 2000 --model-ranks 1,2,4,8 --alpha "$alpha" --beta "$beta"
