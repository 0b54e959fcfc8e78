#!/usr/bin/env bash
# Packs amk-opt with the shared libraries a machine without LLVM lacks
# (libLLVM, libz3, libffi, libedit), stripped, as one xz tarball, so that
# Python code on the GPU machine can compile (about 40 MB):
#   scripts/pack-compiler.sh OUT.tar.xz        (here)
#   tar xJf OUT.tar.xz -C DIR; AMK_OPT=DIR/amk-opt   (there; the wrapper
#   sets LD_LIBRARY_PATH)
set -euo pipefail
out="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib"
strip -o "$stage/lib/amk-opt.bin" "$root/build/bin/amk-opt"
for lib in libLLVM.so.22.1 libz3.so.4 libffi.so.8 libedit.so.2; do
  path=$(ldd "$root/build/bin/amk-opt" | awk -v l="$lib" '$1 == l {print $3}')
  [[ -n "$path" ]] && strip -o "$stage/lib/$lib" "$path"
done
cat >"$stage/amk-opt" <<'SH'
#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/lib/amk-opt.bin" "$@"
SH
chmod +x "$stage/amk-opt"
tar cJf "$out" -C "$stage" .
ls -la "$out" | awk '{print $5, $9}'
