#!/usr/bin/env bash
# Runs the Python package's tests on a GPU machine (torch, CUDA driver, no
# LLVM), against the wheel installed there, then the MLP example and a small
# amk.tune:
#   scripts/gpu-python.sh WHEEL_DIR RESULT_DIR
# WHEEL_DIR holds scripts/build-wheel.sh's wheel (amk-opt, the runtime's
# tools and libamk_runtime inside), or its unpacked tree as
# wheel-tree.tar.xz (scripts/build-wheel.sh --tree: 55 MB instead of 83, for
# a copy with a size limit), which is zipped back into the wheel here.
# Installed with pip into a directory of its own, it is the only AMK the
# tests see.
set -uo pipefail
results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -f "$1/wheel-tree.tar.xz" ]] && ! ls "$1"/amk-*.whl >/dev/null 2>&1; then
  tree=$(mktemp -d) out=$(mktemp -d)
  tar xJf "$1/wheel-tree.tar.xz" -C "$tree" || exit 1
  info=$(basename "$tree"/amk-*.dist-info)
  (cd "$tree" && python3 -m zipfile -c "$out/${info%.dist-info}-py3-none-linux_x86_64.whl" amk "$info") || exit 1
  set -- "$out" "$2"
fi
wheel=$(ls "$1"/amk-*.whl 2>/dev/null | head -1)
[[ -n "$wheel" ]] || { echo "no amk wheel in $1" >&2; exit 1; }
mkdir -p "$results"
site=/tmp/amk-site
rm -rf "$site"
python3 -m pip install --quiet --no-index --no-deps --target "$site" "$wheel" \
  || exit 1
export PYTHONPATH="$site" AMK_TEST_INSTALLED=1 AMK_PY_CACHE=/tmp/amk-pycache
unset AMK_OPT AMK_RUNTIME_LIB
cd /tmp
python3 -c 'import amk; print("amk from", amk.__file__, "amk-opt", amk.find_amk_opt())'
python3 -m pytest -q -p no:cacheprovider -rs "$root/python/tests" 2>&1 \
  | tee "$results/pytest.log"
status=${PIPESTATUS[0]}
python3 "$root/examples/mlp.py" 2>&1 | tee "$results/mlp.log" || status=1
python3 "$root/examples/tune.py" --out "$results/tune" 2>&1 \
  | tee "$results/tune.log" || status=1
exit $status
