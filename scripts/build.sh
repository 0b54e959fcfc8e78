#!/usr/bin/env bash
# Configures and builds AMK into ./build (or $AMK_BUILD_DIR) with Ninja.
# Extra arguments go to CMake.
#
# Then, unless AMK_FUZZ=0, the libFuzzer build of amk-fuzz into
# <build>/fuzz (-DAMK_ENABLE_FUZZING=ON: AMK instrumented for coverage, with
# $AMK_FUZZ_SANITIZERS, default address, and AMK's assertions unless
# AMK_FUZZ_ASSERTIONS=OFF; only the amk-fuzz target), which
# test/Fuzz/libfuzzer.test runs. Skipped with a message when the compiler
# cannot link a libFuzzer target (not clang, or no libclang-rt-dev).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
jobs="${AMK_JOBS:-$(nproc)}"

args=(-G Ninja -DCMAKE_BUILD_TYPE=Release
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit)
# clang + lld build and link MLIR tools much faster than gcc + ld.bfd.
cxx=""
if command -v clang++ >/dev/null; then
  cxx=clang++
  args+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  command -v ld.lld >/dev/null && args+=(-DLLVM_USE_LINKER=lld)
fi
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH="/usr/local/cuda/bin:$PATH"

cmake -S "$root" -B "$build" "${args[@]}" "$@" >/dev/null
cmake --build "$build" -j "$jobs"

[[ "${AMK_FUZZ:-1}" == 0 ]] && exit 0
sanitizers="${AMK_FUZZ_SANITIZERS-address}"
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
  'extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }' \
  >"$probe/t.cpp"
if [[ -z "$cxx" ]] || ! "$cxx" -fsanitize=fuzzer${sanitizers:+,$sanitizers} \
     "$probe/t.cpp" -o "$probe/t" 2>"$probe/err"; then
  echo "build.sh: skipping the libFuzzer build of amk-fuzz: ${cxx:-no clang++}" \
       "cannot link -fsanitize=fuzzer${sanitizers:+,$sanitizers}" \
       "($(head -c 300 "$probe/err" 2>/dev/null | tr '\n' ' '))" \
       "(scripts/setup-deps.sh installs libclang-rt-dev; AMK_FUZZ=0 skips it)" >&2
  exit 0
fi
cmake -S "$root" -B "$build/fuzz" "${args[@]}" -DAMK_ENABLE_FUZZING=ON \
      -DAMK_FUZZ_SANITIZERS="$sanitizers" \
      -DAMK_FUZZ_ASSERTIONS="${AMK_FUZZ_ASSERTIONS:-ON}" -DAMK_ENABLE_RUNTIME=OFF \
      -DAMK_ENABLE_UNITTESTS=OFF "$@" >/dev/null
cmake --build "$build/fuzz" -j "$jobs" --target amk-fuzz
