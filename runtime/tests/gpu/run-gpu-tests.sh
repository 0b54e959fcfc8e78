#!/usr/bin/env bash
# Runs amk-bench's tests on a GPU machine (CUDA toolkit only, no MLIR):
#   1. the runtime unit tests;
#   2. amk-bench --self-test (checker and cuBLAS mapping);
#   3. the correct test bundles must PASS, at several sizes (two of them
#      schema-2 bundles of two kernels and a workspace, one with a
#      cooperative kernel and a zeroed counter);
#   4. the planted bugs must FAIL or ERROR for their own reasons, and the
#      cases after an illegal address must still run;
#   5. compute-sanitizer (memcheck, initcheck, synccheck, racecheck) on
#      --check-only runs: clean for correct kernels, memcheck must catch the
#      out-of-bounds write.
# Usage: runtime/tests/gpu/run-gpu-tests.sh [BUILD_DIR] [RESULTS_DIR]
# (BUILD_DIR from `cmake -S runtime -B BUILD_DIR -G Ninja && ninja -C BUILD_DIR`)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build-rt}"
results="${2:-$build/gpu-test-results}"
mkdir -p "$results"
bench="$build/bin/amk-bench"
b="$build/test-bundles"
failed=0

step() { echo; echo "=== $*"; }
expect_rc() { # expect_rc WANT GOT WHAT
  if [[ "$2" -ne "$1" ]]; then
    echo "FAIL: $3: exit code $2, want $1"
    failed=1
  else
    echo "ok: $3 (exit code $2)"
  fi
}

step "runtime unit tests"
"$build/tests/amk-runtime-tests"
expect_rc 0 $? "amk-runtime-tests"

step "amk-bench --self-test"
"$bench" --self-test 2>&1 | tee "$results/self-test.log"
expect_rc 0 "${PIPESTATUS[0]}" "self-test"

good=(t_f32_nn t_f32_tn_beta t_bf16_nt_bias_gelu t_f16_tt_bias_silu t_f16_nn
      t_bf16_nn_bias_relu t_bf16_static_nn t_v2_staged t_v2_cooperative)
goodPaths=()
for name in "${good[@]}"; do goodPaths+=("$b/$name.json"); done
step "correct kernels must PASS"
"$bench" --json "$results/good.json" --iters 20 --warmup 3 \
  --sizes 1,1,1,1 --sizes 2,130,70,259 --sizes 1,512,384,1024 \
  "${goodPaths[@]}" "$b/t_sm80_ptx_fallback.json" > "$results/good.log" 2>&1
expect_rc 0 $? "correct kernels"
tail -n 30 "$results/good.log"
expectations=()
for name in "${good[@]}"; do expectations+=("$name=PASS"); done
python3 "$here/check-results.py" "$results/good.json" "${expectations[@]}" \
  "t_sm80_ptx_fallback=PASS:loaded the PTX instead"
expect_rc 0 $? "correct kernels: statuses"

step "planted bugs must be caught"
"$bench" --json "$results/bad.json" --trials 1 --iters 5 --warmup 1 \
  --sizes 2,130,70,259 \
  "$b/t_f32_drop_ktail.json" "$b/t_f32_skip_last_row.json" \
  "$b/t_f32_tf32_as_ieee.json" "$b/t_f32_oob_write.json" \
  "$b/t_sm80_no_ptx.json" "$b/t_smem_too_big.json" "$b/t_wrong_entry.json" \
  "$b/t_v2_coop_too_large.json" \
  "$b/t_f32_nn.json" "$b/t_f32_illegal_write.json" "$b/t_f16_nn.json" \
  > "$results/bad.log" 2>&1
expect_rc 1 $? "planted bugs"
tail -n 40 "$results/bad.log"
python3 "$here/check-results.py" "$results/bad.json" \
  "t_f32_drop_ktail=FAIL:exceed the K-scaled bound" \
  "t_f32_skip_last_row=FAIL:NaN or Inf" \
  "t_f32_tf32_as_ieee=FAIL:relative Frobenius error" \
  "t_f32_oob_write=FAIL:outside C (guard bands)" \
  "t_sm80_no_ptx=ERROR:bundle built for sm_80, device is sm_90" \
  "t_smem_too_big=ERROR:bytes of shared memory per block" \
  "t_wrong_entry=ERROR:cuModuleGetFunction" \
  "t_v2_coop_too_large=ERROR:blocks resident at once" \
  "t_f32_nn=PASS" \
  "t_f32_illegal_write=ERROR:cudaErrorIllegalAddress" \
  "t_f16_nn=ERROR:not run: the CUDA context is unusable"
expect_rc 0 $? "planted bugs: statuses"

step "compute-sanitizer on --check-only"
if ! command -v compute-sanitizer >/dev/null; then
  echo "compute-sanitizer not found: skipped"
else
  for tool in memcheck initcheck synccheck racecheck; do
    padding=()
    [[ $tool == memcheck ]] && padding=(--padding 1024)
    compute-sanitizer --tool "$tool" "${padding[@]}" --error-exitcode 99 "$bench" \
      --check-only --sizes 2,67,45,33 "${goodPaths[@]}" \
      > "$results/sanitizer-$tool.log" 2>&1
    expect_rc 0 $? "$tool on the correct kernels"
  done
  # Without padding, a write just past C lands in the next allocation, which
  # memcheck considers valid.
  compute-sanitizer --tool memcheck --padding 1024 --error-exitcode 99 \
    "$bench" --check-only --sizes 1,16,16,16 "$b/t_f32_oob_write.json" \
    > "$results/sanitizer-oob.log" 2>&1
  expect_rc 99 $? "memcheck catches the out-of-bounds write"
  grep -m1 "Invalid __global__ write" "$results/sanitizer-oob.log"
fi

echo
if [[ $failed -ne 0 ]]; then echo "GPU TESTS FAILED"; else echo "GPU TESTS PASSED"; fi
exit $failed
