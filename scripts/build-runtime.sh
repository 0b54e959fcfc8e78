#!/usr/bin/env bash
# Builds the CUDA-only runtime project (runtime/: amk-bench, amk-launch,
# amk-device-info and the runtime tests; no MLIR) for the GPU scripts:
#   bench=$(scripts/build-runtime.sh LOG) || exit 1
#   launcher=$(scripts/build-runtime.sh LOG amk-launch) || exit 1
# Logs to LOG, prints the path of TOOL (default amk-bench); on failure shows
# the log's tail and exits 1. AMK_CUDA_ARCHITECTURES (e.g. 80) and NVCC
# override the runtime's default architecture (90) and CUDA compiler.
set -uo pipefail
log="$1"
tool="${2:-amk-bench}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build=/tmp/amk-runtime-build
options=(-DCMAKE_BUILD_TYPE=Release)
[[ -n "${AMK_CUDA_ARCHITECTURES:-}" ]] &&
  options+=(-DCMAKE_CUDA_ARCHITECTURES="$AMK_CUDA_ARCHITECTURES")
[[ -n "${NVCC:-}" ]] && options+=(-DCMAKE_CUDA_COMPILER="$NVCC")
cmake -S "$root/runtime" -B "$build" -G Ninja "${options[@]}" \
  >"$log" 2>&1 && ninja -C "$build" >>"$log" 2>&1 \
  || { tail -30 "$log" >&2; exit 1; }
echo "$build/bin/$tool"
