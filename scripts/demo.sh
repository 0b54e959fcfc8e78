#!/usr/bin/env bash
# AMK's main job on the built-in example: plan, verify and lower two GEMMs for
# a named GPU, showing the decision, the verdict and the binary.
#   scripts/demo.sh [target]        (target: a preset, default h200, or a .json)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-h200}"
opt="${AMK_OPT:-${AMK_BUILD_DIR:-$root/build}/bin/amk-opt}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

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
echo "  lowering took $(( (end - start) / 1000000 )) ms; bundles were in $out/bundles"
