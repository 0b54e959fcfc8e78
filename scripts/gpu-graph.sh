#!/usr/bin/env bash
# Runs the megakernel benchmark on a GPU machine (CUDA, torch; no MLIR):
#   scripts/gpu-graph.sh BUNDLE_DIR RESULT_DIR
# BUNDLE_DIR is what scripts/graph-bundles.py wrote here. Builds the
# runtime (its C interface for Python), checks every bundle against an fp64
# reference and times it against torch eager and torch CUDA graphs
# (python -m amk.graphbench), then runs compute-sanitizer memcheck on the
# small graphs.
set -uo pipefail
bundles="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
"$root/scripts/build-runtime.sh" "$results/build.log" >/dev/null || exit 1
export AMK_RUNTIME_LIB=/tmp/amk-runtime-build/lib/libamk_runtime.so
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
status=0
echo "== megakernels: correctness and speed against torch eager and CUDA graphs"
python3 -m amk.graphbench "$bundles" --json "$results/graph.json" \
  >"$results/graph.log" 2>&1 || status=1
cat "$results/graph.log"
echo "== memcheck on the small graphs"
for case in _bias_silu_ _f16_relu_ _f32_gelu_ 2x64x64 layer_norm3x1000 rms_norm5x512 softmax4x1000 k_ring_m16 k_ring_m3 k_staged_m16 k_staged_m3 attention3x4x4x64x37 attention5x6x2x32x50 attention3x4x2x32x20 attention2x2x1x64x200 attention3x4x2x64x37_rotary attention3x4x2x8x20_append_rotary; do
  compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 -m amk.graphbench "$bundles" --iters 1 --only "$case" \
    >"$results/memcheck-$case.log" 2>&1 || { status=1; echo "memcheck $case FAIL"; }
  grep -h "ERROR SUMMARY" "$results/memcheck-$case.log"
done
exit $status
