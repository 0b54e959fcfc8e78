#!/usr/bin/env bash
# AMK's main job on the built-in example: plan, verify and lower two GEMMs for
# a named GPU, showing the decision, the verdict and the binary; on a machine
# with a GPU, then run them (checked against fp64, timed against cuBLAS).
#   scripts/demo.sh [target]    (a preset or a .json; default: this machine's
#                                GPU as amk-device-info reads it, else h200)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMK_BUILD_DIR:-$root/build}"
opt="${AMK_OPT:-$build/bin/amk-opt}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# The runtime's tools: the build's, else built from runtime/ (CUDA toolkit).
runtime_tool() {
  if [[ -x "$build/bin/$1" ]]; then echo "$build/bin/$1"
  else "$root/scripts/build-runtime.sh" "$out/runtime.log" "$1"; fi
}
gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
fi
target="${1:-}"
if [[ -z "$target" && -n "$gpu" ]]; then
  info=$(runtime_tool amk-device-info) && "$info" -o "$out/device.json" \
    >/dev/null && target="$out/device.json"
fi
target="${target:-h200}"

echo "== 1. plan (the agent's decision, best first, with predicted times)"
"$opt" "$root/examples/gemm.mlir" --amk-plan="target=$target explain" \
  -o "$out/planned.mlir" 2>&1 | grep -E "remark|note" | sed 's/^.*: \(remark\|note\): /  /'

echo; echo "== 2. verify (the harness's verdict, as JSON for tools)"
"$opt" "$out/planned.mlir" --amk-verify="json=-" -o "$out/verified.mlir"

echo; echo "== 3. lower (GPU binaries and bundles)"
start=$(date +%s%N)
"$opt" "$out/verified.mlir" --amk-lower="bundle-dir=$out/bundles" -o "$out/lowered.mlir"
end=$(date +%s%N)
grep -o 'gpu.binary @[A-Za-z0-9_]*' "$out/lowered.mlir" | sed 's/^/  /'
for manifest in "$out"/bundles/*.json; do
  python3 - "$manifest" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
steps = " -> ".join(s.get("kernel") or "zero " + s["zero"]
                    for s in m["variants"][0]["steps"])
print(f"  {m['name']} ({m['family']}, {m['arch']}): {steps}")
for k in m["kernels"]:
    print(f"    {k['entry']}: block {k['block'][0]}, grid {k['grid'][0]},"
          f" {k['dynamic_smem_bytes']} B smem,"
          f" <= {k['estimated_regs_per_thread']} regs,"
          f" cubin {os.path.getsize(os.path.join(d, k['cubin']))} B,"
          f" verdict {k['verdict']['status']}")
PY
done
echo "  lowering took $(( (end - start) / 1000000 )) ms"

echo
if [[ -z "$gpu" ]]; then
  echo "== 4. run: no GPU on this machine (on one, this step checks the kernels"
  echo "   against an fp64 reference and times them against cuBLAS)"
  exit 0
fi
echo "== 4. run on the $gpu (checked against fp64, timed against cuBLAS)"
bench=$(runtime_tool amk-bench)
status=0
for manifest in "$out"/bundles/*.json; do
  # A dynamic size runs at 1000 (partial tiles on every side), a batch at 1.
  sizes=$(python3 - "$manifest" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sizes"]
if any(v < 0 for v in s.values()):
    print(",".join(str(s[k] if s[k] >= 0 else 1 if k == "B" else 1000)
                   for k in "BMNK"))
PY
)
  "$bench" ${sizes:+--sizes "$sizes"} "$manifest" | grep -v '^#\|^[0-9]\|^speed =' \
    || status=1
done
exit $status
