#!/usr/bin/env bash
# Warp-specialized wgmma against the block-barrier ring on an sm_90a GPU:
#   scripts/gpu-ws.sh BUNDLE_DIR RESULT_DIR [PATTERN]
# BUNDLE_DIR from `bench/hopper/build.sh DIR --ws` (or `python3 -m amk.suite
# --decode-study`, PATTERN 'small_*'). Times every bundle against cuBLAS in
# one run, then runs memcheck and racecheck on the small ones (PATTERN,
# default ws_*, bundles under 1.5 x 2^30 multiply-adds).
set -uo pipefail
bundles="$1"; results="$2"; pattern="${3:-ws_*}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
$bench --json "$results/ws.json" --iters 50 "$bundles"/*.json \
  >"$results/ws.log" 2>&1 || status=1
cat "$results/ws.log" | tail -40
for m in "$bundles"/$pattern.json; do
  small=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['sizes']; print(int(max(s.get('B',1),1)*s['M']*s['N']*s['K'] < 2**30 + 2**29))" "$m")
  [[ "$small" == 1 ]] || continue
  for tool in memcheck racecheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$bench" \
      --check-only "$m" >>"$results/$tool.log" 2>&1 \
      || { status=1; echo "$tool FAIL: $m"; }
  done
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$results"/*check.log | sort | uniq -c
exit $status
