#!/usr/bin/env bash
# Compiles the Hopper cases of gen.py into bundles:
#   bench/hopper/build.sh OUT_DIR [--sweep | --ws]
# (then scripts/gpu-hopper.sh OUT_DIR ...)
set -euo pipefail
out="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
opt="${AMK_OPT:-$root/build/bin/amk-opt}"
rm -rf "$out" && mkdir -p "$out/mlir"
python3 "$root/bench/hopper/gen.py" "$out/mlir" "${@:2}"
for f in "$out"/mlir/*.mlir; do
  "$opt" "$f" --amk-verify --amk-lower="bundle-dir=$out" -o /dev/null
done
ls "$out"/*.json | wc -l
