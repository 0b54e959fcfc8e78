#!/usr/bin/env bash
# Runs the row-wise benchmark on a GPU machine (CUDA, torch; no MLIR):
#   scripts/gpu-rows.sh BUNDLE_DIR RESULT_DIR [CLUSTER_DIR]
# BUNDLE_DIR is what `python3 -m amk.rowsuite` wrote here. Builds the
# runtime (its C interface for Python), checks and times every bundle
# against torch and Triton (python -m amk.rowbench), then runs
# compute-sanitizer memcheck on the small and odd cases. CLUSTER_DIR, if
# given, is `amk.rowsuite --cluster-study`'s: checked, timed and its odd
# cases memchecked the same way (cluster.log, cluster-memcheck.log).
set -uo pipefail
bundles="$1"; results="$2"; clusters="${3:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
"$root/scripts/build-runtime.sh" "$results/build.log" >/dev/null || exit 1
export AMK_RUNTIME_LIB=/tmp/amk-runtime-build/lib/libamk_runtime.so
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
status=0
echo "== the runtime's C interface refuses bad launches"
python3 -m amk.rowbench "$bundles" --self-test || status=1
echo "== row-wise kernels: correctness and speed against torch and Triton"
python3 -m amk.rowbench "$bundles" --json "$results/rows.json" \
  >"$results/rows.log" 2>&1 || status=1
cat "$results/rows.log"
echo "== memcheck on small and odd cases"
compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 -m amk.rowbench "$bundles" --iters 1 \
  --only _3x7_,_7x129_,_4096x1_,_DxD_,_1xDxD_,_3x300x1000_ \
  >"$results/memcheck.log" 2>&1 || { status=1; echo "memcheck FAIL"; }
grep -h "ERROR SUMMARY" "$results/memcheck.log" | sort | uniq -c
if [[ -n "$clusters" ]]; then
  echo "== rows spread over clusters"
  python3 -m amk.rowbench "$clusters" --json "$results/cluster.json" \
    >"$results/cluster.log" 2>&1 || status=1
  cat "$results/cluster.log"
  compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 -m amk.rowbench "$clusters" --iters 1 \
    --only _5x100003_,_3x32769_,_7x4100_,_9x20000_,_1x262144_,_3x262144_,_17x33000_,_1x100000_,_3x4097_,_16xD_,_DxD_ \
    >"$results/cluster-memcheck.log" 2>&1 ||
    { status=1; echo "cluster memcheck FAIL"; }
  grep -h "ERROR SUMMARY" "$results/cluster-memcheck.log" | sort | uniq -c
fi
exit $status
