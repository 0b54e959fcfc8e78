#!/usr/bin/env bash
# concurrent.sh <cache-dir> <out-dir>: eight amk-opt processes at once on one
# compile cache, two per GEMM (M = 64, 128, 192, 256), so each kernel races
# with itself and with the others. Process i writes <out-dir>/i.mlir and its
# remarks to <out-dir>/i.log. Fails when any process fails.
set -u
cache=$1 out=$2
input="$(dirname "$0")/gemm.mlir"
mkdir -p "$out"
pids=()
for i in 0 1 2 3 4 5 6 7; do
  m=$(( (i % 4 + 1) * 64 ))
  sed "s/MSIZE/$m/g" "$input" |
    amk-opt --amk-pipeline="target=h200 cache-dir=$cache cache-remarks" \
      -mlir-print-op-on-diagnostic=false -o "$out/$i.mlir" 2> "$out/$i.log" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
