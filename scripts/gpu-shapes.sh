#!/usr/bin/env bash
# Runs the random problems of `python3 -m amk.shapes --bundles` on a GPU
# machine (CUDA toolkit, no MLIR):
#   scripts/gpu-shapes.sh SHAPES_DIR RESULT_DIR
# Every kernel is checked at its sizes against the fp64 reference
# (amk-bench --check-only); every fourth also under compute-sanitizer
# memcheck. Prints one line per problem and a summary; exits 1 on any
# failure.
set -uo pipefail
shapes="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
read -r -d '' list <<'PY'
import json, sys
for i, e in enumerate(json.load(open(sys.argv[1] + "/shapes.json"))):
    print(i, sys.argv[1] + "/" + e["manifest"], ",".join(map(str, e["sizes"])))
PY
pass=0; fail=0; checked=0
while read -r i manifest sizes; do
  log="$results/problem$i.log"
  if "$bench" --check-only --sizes "$sizes" "$manifest" >"$log" 2>&1 &&
     grep -q "PASS" "$log"; then
    pass=$((pass + 1)); verdict=PASS
  else
    fail=$((fail + 1)); verdict=FAIL
  fi
  if (( i % 4 == 0 )); then
    checked=$((checked + 1))
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bench" \
      --check-only --sizes "$sizes" "$manifest" >>"$results/memcheck.log" 2>&1 \
      || { fail=$((fail + 1)); verdict="$verdict memcheck-FAIL"; }
  fi
  echo "$i $verdict $sizes $(basename "$manifest" .json)"
done < <(python3 -c "$list" "$shapes")
echo "shapes on the GPU: $pass PASS, $fail failure(s); memcheck on $checked"
grep -h "ERROR SUMMARY" "$results/memcheck.log" | sort | uniq -c
(( fail == 0 ))
