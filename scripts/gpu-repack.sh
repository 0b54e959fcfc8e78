#!/usr/bin/env bash
# Runs the repack study on a GPU machine (CUDA toolkit, no MLIR):
#   scripts/gpu-repack.sh BUNDLE_DIR RESULT_DIR
# BUNDLE_DIR is what `python3 -m amk.suite --repack-study` wrote here:
# products on wgmma whose operands are first copied K-major by repack
# kernels (tf32 B as [K, N], A as [K, M]) beside tf32 with B as [N, K],
# planned and explicit. Builds the runtime, then (1) checks the
# small odd and batched cases against an fp64 reference and runs them under
# compute-sanitizer memcheck and racecheck (the repack kernel, the ring and
# the warp-specialized persistent kernel), (2) times the performance cases
# against cuBLAS (scripts/gpu-perf.sh) and prints the geomean. Results
# land in RESULT_DIR.
set -uo pipefail
bundles="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
"$root/scripts/gpu-small-cases.sh" "$bundles" "$results" "$bench" || status=1
bash "$root/scripts/gpu-perf.sh" "$results/perf" "$bundles" || status=1
exit $status
