#!/usr/bin/env bash
# Runs the split-K study on a GPU machine (CUDA toolkit, no MLIR):
#   scripts/gpu-split-study.sh BUNDLE_DIR RESULT_DIR [PATTERN]
# BUNDLE_DIR is what `python3 -m amk.suite --launch-study` wrote here:
# split-K summed through a workspace and a second kernel, in turns
# (serial) and by the last split to arrive (last), beside the planner's
# choice. Builds the runtime, then (1) checks the small cases of every math
# path against an fp64 reference and runs them under compute-sanitizer
# memcheck and racecheck (scripts/gpu-small-cases.sh), (2) times the
# performance cases whose name matches PATTERN (an extended regex, default
# every decode product of 4096 x 4096) against cuBLAS (scripts/gpu-perf.sh).
set -uo pipefail
bundles="$1"; results="$2"; pattern="${3:-_(16|64|128|256)x4096x4096_nt}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
"$root/scripts/gpu-small-cases.sh" "$bundles" "$results" "$bench" || status=1
echo "== split-K: correctness and speed against cuBLAS"
AMK_PERF_MATCH="$pattern" bash "$root/scripts/gpu-perf.sh" "$results/perf" \
  "$bundles" || status=1
exit $status
