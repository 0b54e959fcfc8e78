#!/usr/bin/env python3
"""Writes the Hopper smoke cases: amk.matmul problems with hand-set wgmma
configs (until the planner proposes them), one MLIR file each."""
import os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def case(name, m, n, k, dt="bf16", out_t=None, block=(128, 128, 64), stages=4,
         bias=False, attrs="", tf32=False):
    out_t = out_t or dt
    bm, bn, bk = block
    wn = bn
    threads = 128 * (bm // 64)
    instk = 8 if tf32 else 16
    ms = "?" if m is None else str(m)
    ns = "?" if n is None else str(n)
    a = f"memref<{ms}x{k}x{dt}>"
    b = f"memref<{ns}x{k}x{dt}>"
    c = f"memref<{ms}x{ns}x{out_t}>"
    bt = f"memref<{ns}x{out_t}>"
    extra = ["transpose_b"] + ([attrs] if attrs else [])
    if tf32:
        extra.append("precision = #amk.precision<tf32>")
    args = f"%a: {a}, %b: {b}" + (f", %bias: {bt}" if bias else "") + f", %c: {c}"
    types = f"{a}, {b}" + (f", {bt}" if bias else "") + f", {c}"
    biasop = " bias(%bias)" if bias else ""
    cfg = (f"#amk.gemm_config<block = [{bm}, {bn}, {bk}], warp = [64, {wn}], "
           f"math = wgmma, inst = [64, {wn}, {instk}], stages = {stages}, "
           f"vector = {4 if dt == 'f32' else 8}, threads = {threads}>")
    text = f"""module attributes {{amk.target = #amk.target<"h200">}} {{
  func.func @run_{name}({args}) {{
    amk.kernel "{name}" config({cfg}) {{
      amk.matmul %a, %b{biasop} into %c {{{", ".join(extra)}}} : {types}
    }}
    return
  }}
}}
"""
    open(os.path.join(out, name + ".mlir"), "w").write(text)

case("wg_4096_bf16", 4096, 4096, 4096)
case("wg_4096_f16_f32out", 4096, 4096, 4096, dt="f16", out_t="f32")
case("wg_odd_bias_gelu", 1000, 1000, 1000, bias=True,
     attrs="activation = #amk.activation<gelu>, alpha = 0.5")
case("wg_dyn_m", None, 4096, 4096, out_t="f32")
case("wg_dyn_mn", None, None, 512)
case("wg_tile_128x256", 4096, 4096, 4096, block=(128, 256, 64), stages=3)
case("wg_tile_64x128", 2048, 2048, 2048, block=(64, 128, 64), stages=5)
case("wg_k_tail", 512, 512, 200, stages=4)
case("wg_tf32", 2048, 2048, 2048, dt="f32", block=(128, 128, 32), tf32=True)
case("wg_prefill", 8192, 14336, 4096, block=(128, 256, 64), stages=3)
