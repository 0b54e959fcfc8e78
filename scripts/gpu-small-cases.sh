#!/usr/bin/env bash
# The small correctness cases of a suite bundle dir (its cases that are not
# timed) on a GPU machine: checked against an fp64 reference, then run
# under compute-sanitizer memcheck and racecheck:
#   scripts/gpu-small-cases.sh BUNDLE_DIR RESULT_DIR AMK_BENCH
# AMK_BENCH is the amk-bench that scripts/build-runtime.sh built. Writes
# RESULT_DIR/small.log, memcheck.log and racecheck.log; exits 1 if a case
# fails or a tool reports.
set -uo pipefail
bundles="$1"; results="$2"; bench="$3"
status=0
small=$(python3 - "$bundles" <<'PY'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "suite.json")))
for c in d["cases"]:
    if c["manifest"] and not c["perf"]:
        print(os.path.join(sys.argv[1], c["manifest"]))
PY
)
echo "== small cases: correctness"
$bench --iters 2 $small 2>&1 | tee "$results/small.log" | tail -n 20 ||
  status=1
for tool in memcheck racecheck; do
  echo "== small cases: $tool"
  compute-sanitizer --tool "$tool" --error-exitcode 9 $bench --iters 1 \
    $small >"$results/$tool.log" 2>&1 || { status=1; echo "$tool FAIL"; }
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$results/$tool.log" | sort | uniq -c
done
exit $status
