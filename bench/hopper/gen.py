#!/usr/bin/env python3
"""Writes the Hopper smoke cases: amk.matmul problems with hand-set wgmma
configs (until the planner proposes them), one MLIR file each."""
import os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def case(name, m, n, k, dt="bf16", out_t=None, block=(128, 128, 64), stages=4,
         bias=False, attrs="", tf32=False, swizzle=1, wn=None, layout="nt",
         batch=0, ws=False):
    out_t = out_t or dt
    bm, bn, bk = block
    wn = wn or bn
    # ws: a producer warpgroup beside the compute warpgroups.
    threads = 128 * (bm // 64) * (bn // wn) + (128 if ws else 0)
    instk = 8 if tf32 else 16
    ms = "?" if m is None else str(m)
    ns = "?" if n is None else str(n)
    ta, tb = layout[0] == "t", layout[1] == "t"
    lead = "" if not batch else ("?x" if batch < 0 else f"{batch}x")
    a = f"memref<{lead}{k}x{ms}x{dt}>" if ta else f"memref<{lead}{ms}x{k}x{dt}>"
    b = f"memref<{lead}{ns}x{k}x{dt}>" if tb else f"memref<{lead}{k}x{ns}x{dt}>"
    c = f"memref<{lead}{ms}x{ns}x{out_t}>"
    bt = f"memref<{lead}{ns}x{out_t}>"
    extra = (["transpose_a"] if ta else []) + (["transpose_b"] if tb else [])
    extra += [attrs] if attrs else []
    if tf32:
        extra.append("precision = #amk.precision<tf32>")
    args = f"%a: {a}, %b: {b}" + (f", %bias: {bt}" if bias else "") + f", %c: {c}"
    types = f"{a}, {b}" + (f", {bt}" if bias else "") + f", {c}"
    biasop = " bias(%bias)" if bias else ""
    cfg = (f"#amk.gemm_config<block = [{bm}, {bn}, {bk}], warp = [64, {wn}], "
           f"math = wgmma, inst = [64, {wn}, {instk}], stages = {stages}, "
           f"vector = {4 if dt == 'f32' else 8}, threads = {threads}, "
           f"swizzle = {swizzle}>")
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

if len(sys.argv) > 2 and sys.argv[2] == "--ws":
    # Warp specialized against the block-barrier ring, same shapes.
    shapes = {"sq4k": (4096, 4096, 4096), "sq8k": (8192, 8192, 8192),
              "pf": (8192, 14336, 4096), "odd": (1000, 1000, 1000),
              "kodd": (2048, 2048, 4288)}
    for shape, (m, n, k) in shapes.items():
        case(f"ref_{shape}_128x256_s4", m, n, k, block=(128, 256, 64),
             stages=4, swizzle=8)
        for block, stages in [((128, 128, 64), 6), ((128, 192, 64), 4),
                              ((128, 256, 64), 3), ((128, 256, 64), 4)]:
            case(f"ws_{shape}_{block[0]}x{block[1]}_s{stages}", m, n, k,
                 block=block, stages=stages, swizzle=8, ws=True)
    case("ws_nn_4096_128x256", 4096, 4096, 4096, layout="nn",
         block=(128, 256, 64), stages=4, swizzle=8, ws=True)
    case("ws_f16_bias_gelu", 1000, 1000, 1000, dt="f16", bias=True,
         block=(128, 128, 64), ws=True,
         attrs="activation = #amk.activation<gelu>, alpha = 0.5")
    case("ws_batched", 512, 512, 256, batch=8, ws=True)
    case("ws_k_one_round", 256, 384, 128, ws=True)
    # Persistent with more tiles than SMs (several tiles per block): one
    # round per tile, and rounds of an odd count with a ragged edge.
    case("ws_persist_r1", 2048, 2048, 320, block=(128, 128, 64), stages=5,
         ws=True)
    case("ws_persist_odd", 1530, 2300, 448, block=(128, 128, 64), stages=4,
         swizzle=8, bias=True, ws=True)
    sys.exit(0)

if len(sys.argv) > 2 and sys.argv[2] == "--sweep":
    # Tiles, stages and rasterization on two large shapes.
    for shape, (m, n, k) in {"sq": (4096, 4096, 4096),
                             "pf": (8192, 14336, 4096)}.items():
        for block, wn, stages in [((128, 128, 64), None, 3),
                                  ((128, 128, 64), None, 5),
                                  ((128, 256, 64), None, 4),
                                  ((256, 128, 64), None, 3),
                                  ((256, 128, 64), None, 4),
                                  ((128, 192, 64), None, 4),
                                  ((128, 256, 64), 128, 4)]:
            for swizzle in (1, 8):
                tag = f"{block[0]}x{block[1]}" + (f"w{wn}" if wn else "")
                case(f"sw_{shape}_{tag}_s{stages}_g{swizzle}", m, n, k,
                     block=block, stages=stages, swizzle=swizzle, wn=wn)
    sys.exit(0)

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
# Operands with M or N innermost: wgmma transposes them.
case("wg_nn_4096", 4096, 4096, 4096, layout="nn", block=(128, 256, 64))
case("wg_nn_odd", 1000, 1000, 1000, layout="nn", dt="f16", out_t="f32")
case("wg_nn_bias", 512, 768, 256, layout="nn", bias=True,
     attrs="activation = #amk.activation<silu>, beta = 1.0")
case("wg_nn_dyn_m", None, 4096, 4096, layout="nn", block=(128, 128, 64))
# Batched: 3-D tensor maps, the batch outermost.
case("wg_batched_nt", 512, 512, 256, batch=8)
case("wg_batched_nt_bias", 384, 512, 256, batch=4, bias=True,
     attrs="activation = #amk.activation<relu>")
case("wg_batched_dyn_m", None, 256, 512, batch=3, out_t="f32")
case("wg_batched_nn", 512, 384, 256, batch=4, layout="nn")
case("wg_batched_nn_odd", 200, 136, 72, batch=3, layout="nn", dt="f16",
     out_t="f32", bias=True)
case("wg_nn_split_n", 2048, 2048, 2048, layout="nn", block=(128, 256, 64),
     wn=128, stages=3)
