"""Check the harness's register estimate against ptxas.

    python3 -m amk.regcheck --amk-opt build/bin/amk-opt --ptxas ptxas DIR

Lowers a spread of GEMM configs (both math paths, several tiles, stages,
element types and load widths) and of row-wise configs (cached and streamed
rows, static and dynamic lengths, every kind, weights and biases, the
largest caches) through `--amk-verify --amk-lower`, then asks `ptxas -v` how
many registers each kernel really uses. The harness's estimate is also the
kernel's register budget (`.maxnreg` in the PTX), so:

- as emitted, ptxas must use no more than the estimate and spill nothing
  (the estimate is never below what the kernel needs);
- assembled without the budget, ptxas's free choice must not be far below the
  estimate: estimate <= 1.5 x used + 16 (the estimate is not absurdly high).

Configs the harness rejects are reported, not lowered.
"""

import argparse
import json
import os
import re
import subprocess
import sys

# (name, element type, output type, M, N, K, config)
MMA = "math = mma_sync, inst = [16, 8, 16]"
SIMT = "math = simt"
WGMMA = "math = wgmma"
CASES = [
    ("wgmma_128x128_s3", "bf16", "bf16", 512, 512, 512,
     f"block = [128, 128, 64], warp = [64, 128], {WGMMA}, inst = [64, 128, 16], stages = 3, vector = 8, threads = 256"),
    ("wgmma_128x128_s5", "bf16", "f32", 512, 512, 4096,
     f"block = [128, 128, 64], warp = [64, 128], {WGMMA}, inst = [64, 128, 16], stages = 5, vector = 8, threads = 256"),
    ("wgmma_128x256_s4", "bf16", "bf16", 512, 512, 4096,
     f"block = [128, 256, 64], warp = [64, 256], {WGMMA}, inst = [64, 256, 16], stages = 4, vector = 8, threads = 256"),
    ("wgmma_128x192_s4_nn", "f16", "f16", 512, 576, 512,
     f"block = [128, 192, 64], warp = [64, 192], {WGMMA}, inst = [64, 192, 16], stages = 4, vector = 8, threads = 256"),
    ("wgmma_256x128_s3", "bf16", "bf16", 512, 512, 512,
     f"block = [256, 128, 64], warp = [64, 128], {WGMMA}, inst = [64, 128, 16], stages = 3, vector = 8, threads = 512"),
    ("mma_64x64_w32x32", "bf16", "f32", 512, 512, 512,
     f"block = [64, 64, 32], warp = [32, 32], {MMA}, stages = 3, vector = 8, threads = 128"),
    ("mma_128x128_w64x64", "bf16", "bf16", 512, 512, 512,
     f"block = [128, 128, 32], warp = [64, 64], {MMA}, stages = 4, vector = 8, threads = 128"),
    ("mma_128x128_w32x64_bk64", "f16", "f16", 512, 512, 512,
     f"block = [128, 128, 64], warp = [32, 64], {MMA}, stages = 4, vector = 8, threads = 256"),
    ("mma_128x256_w64x64", "bf16", "bf16", 512, 512, 512,
     f"block = [128, 256, 32], warp = [64, 64], {MMA}, stages = 3, vector = 8, threads = 256"),
    ("mma_16x32_w16x32", "bf16", "bf16", 16, 4096, 4096,
     f"block = [16, 32, 64], warp = [16, 32], {MMA}, stages = 6, vector = 8, threads = 32"),
    ("mma_64x128_w64x32_vec1", "f16", "f32", 1000, 1000, 999,
     f"block = [64, 128, 32], warp = [64, 32], {MMA}, stages = 2, vector = 1, threads = 128"),
    ("mma_64x128x64_odd_k_lookahead", "bf16", "bf16", 1000, 1000, 999,
     f"block = [64, 128, 64], warp = [32, 32], {MMA}, stages = 3, vector = 8, threads = 256"),
    ("mma_128x64_both_odd_lookahead", "f16", "f16", 999, 999, 999,
     f"block = [128, 64, 32], warp = [32, 32], {MMA}, stages = 4, vector = 1, threads = 256"),
    ("mma_64x64_w32x64_vec2", "bf16", "f32", 128, 128, 130,
     f"block = [64, 64, 32], warp = [32, 64], {MMA}, stages = 3, vector = 2, threads = 64"),
    ("simt_128x128_t8x8", "f32", "f32", 512, 512, 512,
     f"block = [128, 128, 8], warp = [32, 64], {SIMT}, thread = [8, 8], stages = 2, vector = 4, threads = 256"),
    ("simt_128x128_t8x8_bk32", "f32", "f32", 512, 512, 512,
     f"block = [128, 128, 32], warp = [32, 64], {SIMT}, thread = [8, 8], stages = 2, vector = 4, threads = 256"),
    ("simt_64x64_t4x8", "f32", "f32", 512, 512, 512,
     f"block = [64, 64, 16], warp = [16, 64], {SIMT}, thread = [4, 8], stages = 2, vector = 4, threads = 128"),
    ("simt_32x32_t4x4_vec1", "f32", "f32", 999, 999, 999,
     f"block = [32, 32, 8], warp = [16, 32], {SIMT}, thread = [4, 4], stages = 2, vector = 1, threads = 64"),
    ("simt_64x128_t8x4", "f32", "f32", 512, 512, 512,
     f"block = [64, 128, 16], warp = [64, 16], {SIMT}, thread = [8, 4], stages = 2, vector = 2, threads = 256"),
]


def row(kind, t, v, passes=1, cached=0, rows=1, cache="registers",
        cluster=1):
    return (kind, f"threads_per_row = {t}, rows_per_block = {rows}, "
            f"vector = {v}, passes = {passes}, cached_runs = {cached}, "
            f"cache = {cache}, cluster = {cluster}")


# (name, element type, M, N (? for dynamic), weight, bias, (kind, config)).
# The configs at the edges of the row budget (RowReduceModel.cpp): a full
# cache of 64 f32 registers, a dynamic row's guarded runs beside a weight
# and a bias, 1024-thread rows, a streamed dynamic row with its element
# version, rows staged in shared memory (16 runs beside a weight and bias,
# a one-pass softmax at 1024 threads), rows spread over clusters (a full
# f32 cache with weight and bias, and a cluster of 8).
ROW_CASES = [
    ("row_softmax_bf16_c8", "bf16", 64, "32768", False, False,
     row("softmax", 512, 8, 2, 8)),
    ("row_softmax_f32_t1024_c8", "f32", 64, "32768", False, False,
     row("softmax", 1024, 4, 2, 8)),
    ("row_layer_norm_f32_t1024_c8", "f32", 64, "32768", True, True,
     row("layer_norm", 1024, 4, 1, 8)),
    ("row_sum_bf16_c8", "bf16", 64, "8192", False, False,
     row("sum", 128, 8, 1, 8)),
    ("row_rms_norm_f16_stream", "f16", 64, "4096", True, False,
     row("rms_norm", 128, 8)),
    ("row_dyn_softmax_bf16_c8", "bf16", "?", "?", False, False,
     row("softmax", 512, 8, 2, 8)),
    ("row_dyn_layer_norm_bf16_c1", "bf16", "?", "?", True, True,
     row("layer_norm", 128, 8, 2, 1)),
    ("row_dyn_layer_norm_f32_c16", "f32", "?", "?", True, True,
     row("layer_norm", 256, 4, 2, 16)),
    ("row_dyn_layer_norm_t1024", "bf16", "?", "?", True, True,
     row("layer_norm", 1024, 8)),
    ("row_dyn_max_f16_c8", "f16", "?", "?", False, False,
     row("max", 64, 8, 1, 8)),
    ("row_dyn_softmax_f32_rows2", "f32", "?", "?", False, False,
     row("softmax", 16, 4, 1, 1, rows=2)),
    ("row_staged_layer_norm_bf16", "bf16", 64, "32768", True, True,
     row("layer_norm", 256, 8, 2, 16, cache="shared")),
    ("row_staged_softmax_f32_t1024", "f32", 64, "32768", False, False,
     row("softmax", 1024, 4, 1, 8, cache="shared")),
    ("row_cluster_layer_norm_f32", "f32", 64, "65536", True, True,
     row("layer_norm", 512, 4, 1, 16, cluster=2)),
    ("row_cluster_softmax_bf16_c8", "bf16", 64, "100000", False, False,
     row("softmax", 512, 2, 2, 0, cluster=8)),
]


def row_module(name, elem, m, n, weight, bias, kind_config):
    kind, config = kind_config
    x = f"memref<{m}x{n}x{elem}>"
    y = x if kind in ("softmax", "rms_norm", "layer_norm") else \
        f"memref<{m}x{elem}>"
    vec = f"memref<{n}x{elem}>"
    args, operands, types = [f"%x: {x}"], "%x", x
    for present, arg in ((weight, "weight"), (bias, "bias")):
        if present:
            args.append(f"%{arg}: {vec}")
            operands += f" {arg}(%{arg})"
            types += f", {vec}"
    args.append(f"%y: {y}")
    return (f'module attributes {{amk.target = #amk.target<"h200">}} {{\n'
            f"  func.func @f({', '.join(args)}) {{\n"
            f'    amk.kernel "{name}" config(#amk.row_config<{config}>) {{\n'
            f"      amk.row_reduce {operands} into %y {{kind = "
            f"#amk.row_op<{kind}>}} : {types}, {y}\n"
            f"    }}\n    return\n  }}\n}}\n")


def module(name, in_t, out_t, m, n, k, config):
    a, b, c = (f"memref<{m}x{k}x{in_t}>", f"memref<{k}x{n}x{in_t}>",
               f"memref<{m}x{n}x{out_t}>")
    return (f'module attributes {{amk.target = #amk.target<"h200">}} {{\n'
            f"  func.func @f(%a: {a}, %b: {b}, %c: {c}) {{\n"
            f'    amk.kernel "{name}" config(#amk.gemm_config<{config}>) {{\n'
            f"      amk.matmul %a, %b into %c : {a}, {b}, {c}\n"
            f"    }}\n    return\n  }}\n}}\n")


def ptxas_report(ptxas, arch, ptx):
    """(registers used, spill store bytes) that `ptxas -v` reports."""
    report = subprocess.run([ptxas, "-v", "-arch", arch, "-o", os.devnull, ptx],
                            capture_output=True, text=True).stderr
    used = int(re.search(r"Used (\d+) registers", report).group(1))
    spills = re.search(r"(\d+) bytes spill stores", report)
    return used, int(spills.group(1)) if spills else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", required=True)
    parser.add_argument("--ptxas", default="ptxas")
    parser.add_argument("dir")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    bad = 0
    print(f"{'kernel':28s} {'estimate':>8s} {'ptxas':>6s} {'spills':>7s} "
          f"{'free':>6s}")
    sources = [(case[0], module(*case)) for case in CASES] + \
        [(case[0], row_module(*case)) for case in ROW_CASES]
    for name, text in sources:
        src = os.path.join(args.dir, name + ".mlir")
        with open(src, "w") as f:
            f.write(text)
        proc = subprocess.run(
            [args.amk_opt, src, "-o", os.devnull, "--amk-verify",
             f"--amk-lower=bundle-dir={args.dir}"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            first = proc.stderr.strip().splitlines()[0]
            print(f"{name:28s} rejected by the harness: {first}")
            continue
        manifest = json.load(open(os.path.join(args.dir, name + ".json")))
        # Schema 2 keeps per-kernel fields in "kernels" (schema 1: on top).
        kernel = manifest.get("kernels", [manifest])[0]
        estimate = kernel["estimated_regs_per_thread"]
        ptx = os.path.join(args.dir, name + ".ptx")
        capped = ptxas_report(args.ptxas, manifest["arch"], ptx)
        with open(ptx) as f:
            free_ptx = re.sub(r"^\s*\.maxnreg.*$", "", f.read(), flags=re.M)
        free_path = os.path.join(args.dir, name + ".free.ptx")
        with open(free_path, "w") as f:
            f.write(free_ptx)
        free = ptxas_report(args.ptxas, manifest["arch"], free_path)
        verdict = "ok"
        if capped[0] > estimate or capped[1] > 0:
            verdict = "BUDGET TOO SMALL"
            bad += 1
        elif estimate > 2 * free[0] + 16:
            verdict = "ABSURDLY HIGH"
            bad += 1
        print(f"{name:28s} {estimate:8d} {capped[0]:6d} {capped[1]:7d} "
              f"{free[0]:6d}  {verdict}")
    print("regcheck: " + ("all estimates conservative and tight"
                          if not bad else f"{bad} bad estimate(s)"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
