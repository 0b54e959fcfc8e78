"""Build the GEMM benchmark suite of docs/BENCH.md into kernel bundles.

    python3 -m amk.suite --amk-opt build/bin/amk-opt --target h200 --out DIR

For every case (shape x dtype) it writes a one-matmul MLIR module, runs
`amk-opt --amk-pipeline` on it (plan, verify, lower, export the bundle) and
records the compile time. DIR/suite.json lists the cases and their manifests;
`amk-bench` on the GPU machine takes those manifests.
"""

import argparse
import json
import os
import subprocess
import sys
import time

# (M, N, K) shapes of the suite: square, odd, decode, LLM.
SQUARE = [256, 512, 1024, 2048, 4096, 8192]
ODD = [(1000, 1000, 999), (4097, 4097, 4097)]
DECODE = [(1, 4096, 4096), (16, 4096, 4096), (128, 4096, 4096)]
LLM = [(2048, 14336, 4096), (2048, 4096, 14336), (8192, 6144, 4096)]

# dtype -> (input type, output type, extra matmul attributes)
DTYPES = {
    "fp32": ("f32", "f32", ""),
    "tf32": ("f32", "f32", "precision = #amk.precision<tf32>"),
    "fp16": ("f16", "f16", ""),
    "bf16": ("bf16", "bf16", ""),
}


def suite_cases(quick=False):
    """Every (name, m, n, k, dtype, dynamic) of the suite."""
    shapes = [(s, s, s) for s in SQUARE] + ODD + DECODE + LLM
    if quick:
        shapes = [(256, 256, 256), (1000, 1000, 999), (16, 4096, 4096)]
    cases = []
    for dtype in DTYPES:
        for m, n, k in shapes:
            # The LLM shapes and 8192^3 are tensor-core workloads.
            if dtype in ("fp32", "tf32") and (m * n * k > 4096**3):
                continue
            cases.append((f"{dtype}_{m}x{n}x{k}", m, n, k, dtype, False))
    # One kernel for all sizes: dynamic variants, run at several sizes.
    for dtype in ("fp32", "bf16"):
        cases.append((f"{dtype}_dynamic", -1, -1, -1, dtype, True))
    return cases


def matmul_module(target, name, m, n, k, dtype, dynamic):
    """A module with one amk.matmul C[m,n] = A[m,k] B[k,n]."""
    in_t, out_t, attrs = DTYPES[dtype]
    dim = lambda v: "?" if dynamic else str(v)
    a = f"memref<{dim(m)}x{dim(k)}x{in_t}>"
    b = f"memref<{dim(k)}x{dim(n)}x{in_t}>"
    c = f"memref<{dim(m)}x{dim(n)}x{out_t}>"
    attr_dict = f" {{{attrs}}}" if attrs else ""
    return (
        f"module {{\n"
        f"  func.func @{name}(%a: {a}, %b: {b}, %c: {c}) {{\n"
        f"    amk.matmul %a, %b into %c{attr_dict} : {a}, {b}, {c}\n"
        f"    return\n"
        f"  }}\n"
        f"}}\n")


def build(amk_opt, target, out, cases):
    os.makedirs(out, exist_ok=True)
    index = []
    failures = 0
    for name, m, n, k, dtype, dynamic in cases:
        src = os.path.join(out, name + ".mlir")
        with open(src, "w") as f:
            f.write(matmul_module(target, name, m, n, k, dtype, dynamic))
        before = set(os.listdir(out))
        start = time.perf_counter()
        proc = subprocess.run(
            [amk_opt, src, "-o", os.devnull,
             f"--amk-pipeline=target={target} bundle-dir={out}"],
            capture_output=True, text=True)
        seconds = time.perf_counter() - start
        manifests = sorted(f for f in set(os.listdir(out)) - before
                           if f.endswith(".json"))
        ok = proc.returncode == 0 and len(manifests) == 1
        if not ok:
            failures += 1
            print(f"FAIL {name}: {proc.stderr.strip()[:2000]}", file=sys.stderr)
        index.append({"case": name, "dtype": dtype, "m": m, "n": n, "k": k,
                      "dynamic": dynamic, "compile_s": round(seconds, 3),
                      "manifest": manifests[0] if ok else None,
                      "error": None if ok else proc.stderr.strip()})
        print(f"{'ok  ' if ok else 'FAIL'} {name:28s} {seconds * 1000:7.0f} ms"
              f"  {manifests[0] if ok else ''}")
    with open(os.path.join(out, "suite.json"), "w") as f:
        json.dump({"target": target, "cases": index}, f, indent=2)
    times = sorted(c["compile_s"] for c in index if c["manifest"])
    if times:
        print(f"compile (plan+verify+lower to cubin) per GEMM: median "
              f"{times[len(times) // 2] * 1000:.0f} ms, max "
              f"{times[-1] * 1000:.0f} ms over {len(times)} kernels")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", default="build/bin/amk-opt")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true",
                        help="three shapes per dtype")
    args = parser.parse_args()
    sys.exit(1 if build(args.amk_opt, args.target, args.out,
                        suite_cases(args.quick)) else 0)


if __name__ == "__main__":
    main()
