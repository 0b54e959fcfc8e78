#!/usr/bin/env bash
# The clustered-row study on a GPU machine (after scripts/gpu-rows.sh has
# built the runtime, or builds it):
#   scripts/gpu-rows-cluster.sh BUNDLE_DIR RESULT_DIR
# BUNDLE_DIR is what `python3 -m amk.rowsuite --cluster-study` wrote here.
# Checks and times every bundle, then runs compute-sanitizer memcheck on
# the odd (correctness-only) cases.
set -uo pipefail
bundles="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
[ -f /tmp/amk-runtime-build/lib/libamk_runtime.so ] ||
  "$root/scripts/build-runtime.sh" "$results/build.log" >/dev/null || exit 1
export AMK_RUNTIME_LIB=/tmp/amk-runtime-build/lib/libamk_runtime.so
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
status=0
python3 -m amk.rowbench "$bundles" --json "$results/cluster.json" \
  >"$results/cluster.log" 2>&1 || status=1
cat "$results/cluster.log"
echo "== memcheck on the odd clustered cases"
compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 -m amk.rowbench "$bundles" --iters 1 \
  --only _5x100003_,_3x32769_,_7x4100_,_9x20000_ \
  >"$results/memcheck.log" 2>&1 || { status=1; echo "memcheck FAIL"; }
grep -h "ERROR SUMMARY" "$results/memcheck.log" | sort | uniq -c
exit $status
