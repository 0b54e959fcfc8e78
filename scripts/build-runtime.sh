#!/usr/bin/env bash
# Builds the CUDA-only runtime (amk-bench, no MLIR) for the GPU scripts:
#   bench=$(scripts/build-runtime.sh LOG) || exit 1
# Logs to LOG, prints the amk-bench path; on failure shows the log's tail
# and exits 1.
set -uo pipefail
log="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
build=/tmp/amk-runtime-build
cmake -S "$root/runtime" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  >"$log" 2>&1 && ninja -C "$build" >>"$log" 2>&1 \
  || { tail -30 "$log" >&2; exit 1; }
echo "$build/bin/amk-bench"
