#!/usr/bin/env bash
# Builds the amk wheel that runs where only the CUDA driver is (no LLVM, no
# MLIR, no CUDA toolkit needed to compile or launch):
#   scripts/build-wheel.sh OUT_DIR [BUILD_DIR]      (default BUILD_DIR: build)
#   pip install OUT_DIR/amk-*.whl                   (there)
#   scripts/build-wheel.sh --stage DIR [BUILD_DIR]  (only DIR/amk/_native: what
#                                                    python/setup.py calls)
#   scripts/build-wheel.sh --tree OUT_DIR [BUILD_DIR]  (also OUT_DIR/
#       wheel-tree.tar.xz, the wheel unpacked and xz-compressed: 51 MB for a
#       copy with a size limit; scripts/gpu-python.sh zips it back)
# The wheel carries, under amk/_native: amk-opt and amk-tune (compile, tune),
# amk-bench and amk-device-info (time against cuBLAS, read the GPU) and
# libamk_runtime (launch), stripped, with every shared library they need
# that is not part of the C/C++ runtime or the CUDA driver/toolkit, found
# through an rpath of $ORIGIN/../lib. Prints the wheel's path.
set -euo pipefail
stage_only=0 tree=0
if [[ "${1:-}" == --stage ]]; then
  stage_only=1
  shift
elif [[ "${1:-}" == --tree ]]; then
  tree=1
  shift
fi
mkdir -p "$1"
out="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${2:-$root/build}" && pwd)"
if ((stage_only)); then
  stage="$out"
else
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' EXIT
  tar -C "$root/python" --exclude=__pycache__ --exclude='*.egg-info' \
    --exclude=build -cf - . | tar -C "$stage" -xf -
fi
native="$stage/amk/_native"
mkdir -p "$native/bin" "$native/lib"

for tool in amk-opt amk-tune amk-bench amk-device-info; do
  if [[ -x "$build/bin/$tool" ]]; then
    strip -o "$native/bin/$tool" "$build/bin/$tool"
  elif [[ $tool == amk-opt ]]; then
    echo "build-wheel: $build/bin/amk-opt is missing (scripts/build.sh)" >&2
    exit 1
  fi
done
runtime_lib=$(find "$build/lib" -name libamk_runtime.so -print -quit)
if [[ -z "$runtime_lib" ]]; then
  echo "build-wheel: no libamk_runtime.so under $build/lib (CUDA toolkit?)" >&2
  exit 1
fi
strip -o "$native/lib/libamk_runtime.so" "$runtime_lib"

# What every Linux machine with the CUDA driver has, or what comes from CUDA.
system='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt|libnvrtc)\.'
for file in "$native"/bin/* "$native"/lib/libamk_runtime.so; do
  ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
    while read -r name path; do
      [[ $name =~ $system || -e "$native/lib/$name" ]] && continue
      strip -o "$native/lib/$name" "$path"
    done
done
for file in "$native"/bin/* "$native"/lib/*; do
  patchelf --set-rpath '$ORIGIN/../lib' "$file"
done
((stage_only)) && exit 0

(cd "$stage" && /usr/bin/python3 -m pip wheel --quiet --no-deps \
  --no-build-isolation --no-index -w "$out" .) >&2
wheel=$(ls -t "$out"/amk-*.whl | head -1)
if ((tree)); then
  unpacked="$(mktemp -d)"
  (cd "$unpacked" && unzip -q "$wheel" &&
     tar cf - . | xz -T0 -9e >"$out/wheel-tree.tar.xz")
  rm -rf "$unpacked"
fi
echo "$wheel"
