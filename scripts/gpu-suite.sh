#!/usr/bin/env bash
# Runs the GEMM suite on a GPU machine (CUDA toolkit, no MLIR):
#   scripts/gpu-suite.sh BUNDLE_DIR RESULT_DIR [--quick]
# BUNDLE_DIR is what `python3 -m amk.suite` wrote here. Builds the runtime,
# then: (1) correctness + timing of every static suite kernel against cuBLAS,
# (2) the dynamic kernels at edge sizes, (3) the layout/epilogue variants,
# (4) compute-sanitizer memcheck on small edge cases. Results land in
# RESULT_DIR as JSON and logs; the tables print last.
set -uo pipefail
bundles="$1"; results="$2"; quick="${3:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0

# Split the suite index into static performance cases, dynamic kernels and
# correctness-only variants.
read -r -d '' split <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/suite.json"))
kind = sys.argv[2]
for c in d["cases"]:
    if not c["manifest"]:
        continue
    path = sys.argv[1] + "/" + c["manifest"]
    own = c.get("sizes")
    if kind == "perf" and c["perf"] and not c["dynamic"]:
        print(path)
    if kind == "dynamic" and c["dynamic"] and not own:
        print(path)
    if kind == "extra" and not c["perf"] and not c["dynamic"] and not own:
        print(path)
    if kind == "own" and own:
        # One line per kernel: the manifest, then its --sizes arguments.
        print(path, " ".join("--sizes " + ",".join(map(str, s)) for s in own))
PY
perf=$(python3 -c "$split" "$bundles" perf)
dynamic=$(python3 -c "$split" "$bundles" dynamic)
extra=$(python3 -c "$split" "$bundles" extra)
own=$(python3 -c "$split" "$bundles" own)

# Edge sizes around the tiles (TESTING.md: 1, T-1, T, T+1, 2T+1, primes),
# and sizes whose rows are multiples of 8 (the cp.async version of dynamic
# tensor-core kernels).
edge=(--sizes 1,1,1,1 --sizes 1,127,129,65 --sizes 1,128,128,128
      --sizes 1,257,255,33 --sizes 1,1000,1000,999 --sizes 1,4097,333,4097
      --sizes 1,16,4096,4096 --sizes 1,2048,2048,2048
      --sizes 1,136,264,72 --sizes 1,1000,1000,1000)

echo "== dynamic kernels at edge sizes"
$bench --json "$results/dynamic.json" --iters 10 "${edge[@]}" $dynamic \
  >"$results/dynamic.log" 2>&1 || status=1
tail -14 "$results/dynamic.log"
: >"$results/memcheck.log"
echo "== kernels at their own sizes (dynamic batch, mixed static/dynamic)"
mkdir -p "$results/own"
while read -r manifest sizes; do
  [[ -z "$manifest" ]] && continue
  name=$(basename "$manifest" .json)
  $bench --json "$results/own/$name.json" --iters 10 $sizes "$manifest" \
    >"$results/own/$name.log" 2>&1 || { status=1; echo "FAIL: $name"; }
  grep -E "PASS|FAIL" "$results/own/$name.log" | tail -6
  compute-sanitizer --tool memcheck --padding 1024 --error-exitcode 9 \
    "$bench" --check-only $sizes "$manifest" >>"$results/memcheck.log" 2>&1 \
    || { status=1; echo "memcheck FAIL: $manifest"; }
done <<<"$own"
echo "== layouts, batches, epilogues"
$bench --json "$results/extra.json" --iters 10 $extra \
  >"$results/extra.log" 2>&1 || status=1
tail -10 "$results/extra.log"
echo "== memcheck on small edge cases"
for m in $dynamic; do
  compute-sanitizer --tool memcheck --padding 1024 --error-exitcode 9 \
    "$bench" --check-only --sizes 1,1,1,1 --sizes 1,65,33,17 \
    --sizes 1,129,130,131 --sizes 1,17,257,999 --sizes 1,17,24,8 \
    --sizes 1,65,72,40 --sizes 1,130,136,264 "$m" \
    >>"$results/memcheck.log" 2>&1 || { status=1; echo "memcheck FAIL: $m"; }
done
grep -h "ERROR SUMMARY" "$results/memcheck.log" | sort | uniq -c
if [[ -d "$bundles/sweep" ]]; then
  echo "== config sweep"
  $bench --json "$results/sweep.json" --iters 30 "$bundles"/sweep/*.json \
    >"$results/sweep.log" 2>&1 || status=1
  tail -14 "$results/sweep.log"
fi
if [[ "$quick" != "--quick" ]]; then
  echo "== suite: correctness and speed against cuBLAS"
  $bench --json "$results/suite.json" --iters 50 $perf \
    >"$results/suite.log" 2>&1 || status=1
  tail -60 "$results/suite.log"
  # Triton's autotuned matmul on the shapes BENCH.md compares it on.
  if python3 -c "import triton" 2>/dev/null; then
    echo "== Triton on the odd shapes"
    python3 "$root/scripts/triton-ref.py" --json "$results/triton.json" \
      1000x1000x999 4097x4097x4097 >"$results/triton.log" 2>&1 \
      && PYTHONPATH="$root/python" python3 -m amk.peers "$results/suite.json" \
           "$results/triton.json" --markdown "$results/peers.md" \
      || { status=1; tail -20 "$results/triton.log"; }
  fi
fi
exit $status
