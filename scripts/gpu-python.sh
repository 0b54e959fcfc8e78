#!/usr/bin/env bash
# Runs the Python package's tests on a GPU machine (torch, CUDA, no LLVM):
#   scripts/gpu-python.sh COMPILER.tar.xz RESULT_DIR
# COMPILER.tar.xz is scripts/pack-compiler.sh's amk-opt. Builds the runtime
# (libamk_runtime), then runs python/tests with the GPU tests enabled.
set -uo pipefail
pack="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results" /tmp/amk-compiler
tar xJf "$pack" -C /tmp/amk-compiler || exit 1
"$root/scripts/build-runtime.sh" "$results/build.log" >/dev/null || exit 1
export AMK_OPT=/tmp/amk-compiler/amk-opt
export AMK_RUNTIME_LIB=/tmp/amk-runtime-build/lib/libamk_runtime.so
export AMK_PY_CACHE=/tmp/amk-pycache
"$AMK_OPT" --version | head -2
python3 -m pytest -q -p no:cacheprovider -rs "$root/python/tests" 2>&1 \
  | tee "$results/pytest.log"
exit "${PIPESTATUS[0]}"
