#!/usr/bin/env bash
# Runs the Hopper (TMA + wgmma) bundles on an sm_90a GPU machine:
#   scripts/gpu-hopper.sh BUNDLE_DIR RESULT_DIR
# BUNDLE_DIR holds bundles from bench/hopper/gen.py's cases (compiled here
# with --amk-verify --amk-lower=bundle-dir=...). Builds the runtime, then
# checks and times every static bundle against cuBLAS, the dynamic ones at
# edge sizes, and runs compute-sanitizer memcheck on small sizes.
set -uo pipefail
bundles="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
static=() dynamic=()
for m in "$bundles"/*.json; do
  if grep -q '"M": -1' "$m" || grep -q '"N": -1' "$m"; then
    dynamic+=("$m")
  else
    static+=("$m")
  fi
done
echo "== static bundles against cuBLAS"
$bench --json "$results/static.json" --iters 50 "${static[@]}" \
  >"$results/static.log" 2>&1 || status=1
tail -30 "$results/static.log"
echo "== dynamic bundles at edge sizes"
for m in "${dynamic[@]}"; do
  k=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sizes']['K'])" "$m")
  n=$(python3 -c "import json,sys; v=json.load(open(sys.argv[1]))['sizes']['N']; print(v if v > 0 else 0)" "$m")
  sizes=()
  b=$(python3 -c "import json,sys; v=json.load(open(sys.argv[1]))['sizes']['B']; print(v if v > 0 else 1)" "$m")
  for mn in 1,1 77,129 128,128 1000,3000 4096,4096; do
    mm=${mn%,*} nn=${mn#*,}
    [[ "$n" != 0 ]] && nn=$n
    sizes+=(--sizes "$b,$mm,$nn,$k")
  done
  name=$(basename "$m" .json)
  $bench --json "$results/$name.json" --iters 10 "${sizes[@]}" "$m" \
    >"$results/$name.log" 2>&1 || { status=1; echo "FAIL: $name"; }
  grep -E "PASS|FAIL" "$results/$name.log" | tail -6
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bench" --check-only \
    --sizes "$b,1,${n/#0/1},$k" --sizes "$b,65,${n/#0/33},$k" "$m" \
    >>"$results/memcheck.log" 2>&1 || { status=1; echo "memcheck FAIL: $m"; }
done
echo "== memcheck on the static bundles"
for m in "${static[@]}"; do
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bench" --check-only \
    "$m" >>"$results/memcheck.log" 2>&1 \
    || { status=1; echo "memcheck FAIL: $m"; }
done
grep -h "ERROR SUMMARY" "$results/memcheck.log" | sort | uniq -c
exit $status
