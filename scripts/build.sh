#!/usr/bin/env bash
# Configures and builds AMK into ./build (or $AMK_BUILD_DIR) with Ninja.
# Extra arguments go to CMake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
jobs="${AMK_JOBS:-$(nproc)}"

args=(-G Ninja -DCMAKE_BUILD_TYPE=Release
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit)
# clang + lld build and link MLIR tools much faster than gcc + ld.bfd.
if command -v clang++ >/dev/null; then
  args+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  command -v ld.lld >/dev/null && args+=(-DLLVM_USE_LINKER=lld)
fi
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH="/usr/local/cuda/bin:$PATH"

cmake -S "$root" -B "$build" "${args[@]}" "$@" >/dev/null
cmake --build "$build" -j "$jobs"
