#!/usr/bin/env bash
# Runs the split-K study on a GPU machine (CUDA toolkit, no MLIR):
#   scripts/gpu-split-study.sh BUNDLE_DIR RESULT_DIR [PATTERN]
# BUNDLE_DIR is what `python3 -m amk.suite --launch-study` wrote here:
# split-K summed through a workspace and a second kernel, in turns
# (serial) and by the last split to arrive (last), beside the planner's
# choice. Builds the runtime, then (1) checks the small cases of every math
# path against an fp64 reference and runs them under compute-sanitizer
# memcheck and racecheck, (2) times the performance cases whose name
# matches PATTERN (an extended regex, default every decode product of
# 4096 x 4096) against cuBLAS, one table.
set -uo pipefail
bundles="$1"; results="$2"; pattern="${3:-_(16|64|128|256)x4096x4096_nt}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
small=$(python3 - "$bundles" <<'PY'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "suite.json")))
for c in d["cases"]:
    if c["manifest"] and not c["perf"] and c["case"].startswith("small_"):
        print(os.path.join(sys.argv[1], c["manifest"]))
PY
)
echo "== small cases: correctness"
$bench --iters 2 $small 2>&1 | tee "$results/small.log" | tail -16 ||
  status=1
for tool in memcheck racecheck; do
  echo "== small cases: $tool"
  compute-sanitizer --tool "$tool" --error-exitcode 9 $bench --iters 1 \
    $small >"$results/$tool.log" 2>&1 || { status=1; echo "$tool FAIL"; }
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$results/$tool.log" | sort | uniq -c
done
perf=$(python3 "$root/scripts/perf-manifests.py" "$bundles" | tr ' ' '\n' |
       grep -E "$pattern")
echo "== split-K: correctness and speed against cuBLAS"
$bench --json "$results/perf.json" --iters 30 $perf >"$results/perf.log" 2>&1 ||
  status=1
python3 - "$results/perf.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    t = c.get("timing") or {}
    print(f'{c["name"]:48s} {c["status"]:5s} '
          f'{t.get("amk", {}).get("median_us", float("nan")):9.2f} us '
          f'speed {t.get("speed") or float("nan"):.3f}')
PY
exit $status
