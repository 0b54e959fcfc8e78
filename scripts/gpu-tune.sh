#!/usr/bin/env bash
# The runner of the tuning loop, on a GPU machine (CUDA toolkit, no MLIR):
#   scripts/gpu-tune.sh RESULT_DIR BUILD_DIR...
# Each BUILD_DIR is what `amk-tune build` wrote (build.json + bundles/). For
# each one, amk-bench runs the evaluator cascade on every candidate (loads?
# correct against the fp64 reference? time against cuBLASLt in the same run)
# and writes RESULT_DIR/<basename of BUILD_DIR>.json with a failure trace per
# candidate; `amk-tune ingest BUILD_DIR that.json` reads it back here.
# AMK_TUNE_ITERS (default 30) sets the timed iterations.
set -uo pipefail
results="$1"; shift
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
for dir in "$@"; do
  name=$(basename "$dir")
  manifests=$(python3 - "$dir" <<'PY'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "build.json")))
for c in d["candidates"]:
    if c["status"] == "ok":
        print(os.path.join(sys.argv[1], c["manifest"]))
PY
)
  count=$(echo "$manifests" | wc -w)
  echo "== $name: $count candidates"
  start=$(date +%s)
  # One process per build dir. After a sticky CUDA error (an illegal
  # address) amk-bench marks the remaining cases not_run; ingest counts them
  # as unmeasured.
  "$bench" --json "$results/$name.json" --iters "${AMK_TUNE_ITERS:-30}" \
    --trials 1 $manifests >"$results/$name.log" 2>&1 || status=1
  echo "   $(( $(date +%s) - start )) s; $(grep -c '"status": "PASS"' "$results/$name.json" 2>/dev/null || echo 0) passed"
  tail -5 "$results/$name.log"
done
exit $status
