#!/usr/bin/env bash
# Times the static performance cases of one or more suite bundle dirs (what
# `python3 -m amk.suite [--llm-study ...]` wrote here) in one run on a GPU
# machine, against cuBLAS, and prints each dir's geomean speed:
#   scripts/gpu-perf.sh RESULT_DIR BUNDLE_DIR...
# RESULT_DIR/NAME.log and NAME.json per bundle dir (NAME its basename).
# AMK_PERF_MATCH, if set, keeps only the cases whose manifest path matches
# that extended regex.
set -uo pipefail
results="$1"; shift
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
for dir in "$@"; do
  name=$(basename "$dir")
  manifests=$(python3 "$root/scripts/perf-manifests.py" "$dir" | tr ' ' '\n' |
              grep -E "${AMK_PERF_MATCH:-.}")
  $bench --json "$results/$name.json" --iters 50 $manifests \
    >"$results/$name.log" 2>&1 || status=1
  echo "== $name"
  python3 - "$results/$name.json" <<'PY'
import json, math, sys
cases = json.load(open(sys.argv[1]))["cases"]
speeds = []
for c in cases:
    t = c.get("timing") or {}
    s = t.get("speed")
    print(f'{c["name"]:48s} {c["status"]:5s} '
          f'{t.get("amk", {}).get("median_us", float("nan")):9.2f} us '
          f'speed {s if s is not None else float("nan"):.3f}')
    if s and c["status"] == "PASS":
        speeds.append(s)
bad = sum(c["status"] != "PASS" for c in cases)
if speeds:
    g = math.exp(sum(map(math.log, speeds)) / len(speeds))
    print(f"geomean speed {g:.3f} over {len(speeds)} cases; not PASS: {bad}")
PY
done
exit $status
