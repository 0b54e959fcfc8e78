#!/usr/bin/env python3
"""Writes megakernel (amk.graph) bundles for the GPU benchmark:

    scripts/graph-bundles.py OUT_DIR [--target h200] [--sweep]

The decode MLP y = W2 gelu(W1 x) (H = 4096, F = 14336, bf16) at M = 1 and
16, the Llama-style block (RMSNorm, gate/up, SiLU times up, down, the
residual add) at the same sizes, decode attention over a KV cache alone
and in a Llama decode layer (rotary, appending), and odd graphs (three steps with bias and
silu, K not a multiple of a warp's loads, f16 and f32, LayerNorm and other
elementwise ops, a softmax between products) each planned by AMK; `--sweep` adds the MLP at
other configs (blocks per SM, threads, rows per warp, unroll) to check the
cost model's choice. Run python3 -m amk.graphbench OUT_DIR on the GPU.
"""

import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def memref(shape, dtype):
    return "memref<" + "x".join(map(str, shape)) + "x" + dtype + ">"


def close(lines, config):
    """A function's text from its lines so far: the amk.kernel's end where
    a config opened one, then the return."""
    if config:
        lines.append("  }")
    return "\n".join(lines + ["  return", "}"]) + "\n"


def graph(name, m, dims, dtype="bf16", acts=None, bias=False, config=None):
    """A chain of decode products: dims = [K0, N0, N1, ...]; step i maps
    [m, dims[i]] to [m, dims[i+1]] with activation acts[i]."""
    steps = len(dims) - 1
    acts = acts or ["none"] * steps
    x = memref([m, dims[0]], dtype)
    ins, types = ["%x"], [x]
    for i in range(steps):
        ins.append(f"%w{i}")
        types.append(memref([dims[i + 1], dims[i]], dtype))
        if bias:
            ins.append(f"%b{i}")
            types.append(memref([dims[i + 1]], dtype))
    y = memref([m, dims[-1]], dtype)
    args = ", ".join(f"{v}: {t}" for v, t in zip(ins + ["%y"], types + [y]))
    body_args = ", ".join(f"{v}a: {t}" for v, t in zip(ins + ["%y"],
                                                       types + [y]))
    lines = [f"func.func @{name}({args}) {{"]
    head = (f"amk.graph ins({', '.join(ins)} : {', '.join(types)}) "
            f"outs(%y : {y}) {{")
    if config:
        lines.append(f'  amk.kernel "k_{name}" config({config}) {{')
    lines += ["  " + head, f"  ^bb0({body_args}):"]
    a = "%xa"
    for i in range(steps):
        out = "%ya" if i == steps - 1 else f"%h{i}"
        otype = memref([m, dims[i + 1]], dtype)
        if i < steps - 1:
            lines.append(f"    {out} = amk.graph_buffer : {otype}")
        b = f" bias(%b{i}a)" if bias else ""
        btype = f", {memref([dims[i + 1]], dtype)}" if bias else ""
        attrs = "transpose_b"
        if acts[i] != "none":
            attrs += f", activation = #amk.activation<{acts[i]}>"
        lines.append(f"    amk.matmul {a}, %w{i}a{b} into {out} {{{attrs}}} : "
                     f"{memref([m, dims[i]], dtype)}, "
                     f"{memref([dims[i + 1], dims[i]], dtype)}{btype}, "
                     f"{otype}")
        a = out
    lines.append("  }")
    return close(lines, config)


def block(name, m, h, f, dtype="bf16", norm="rms_norm", combine="mul",
          residual="add", act="silu", config=None):
    """A Llama-style MLP block: y = x residual down(act(gate(n)) combine
    up(n)) with n = norm(x) (its weight, and a bias for layer_norm)."""
    t = lambda *shape: memref(list(shape), dtype)
    ins = [("%x", t(m, h)), ("%g", t(h))]
    if norm == "layer_norm":
        ins.append(("%nb", t(h)))
    ins += [("%wg", t(f, h)), ("%wu", t(f, h)), ("%wd", t(h, f))]
    y = t(m, h)
    args = ", ".join(f"{v}: {ty}" for v, ty in ins + [("%y", y)])
    body_args = ", ".join(f"{v}a: {ty}" for v, ty in ins + [("%y", y)])
    names = ", ".join(v for v, _ in ins)
    types = ", ".join(ty for _, ty in ins)
    lines = [f"func.func @{name}({args}) {{"]
    if config:
        lines.append(f'  amk.kernel "k_{name}" config({config}) {{')
    lines += [f"  amk.graph ins({names} : {types}) outs(%y : {y}) {{",
              f"  ^bb0({body_args}):"]
    for buf, ty in [("%n", t(m, h)), ("%gate", t(m, f)), ("%up", t(m, f)),
                    ("%hid", t(m, f)), ("%down", t(m, h))]:
        lines.append(f"    {buf} = amk.graph_buffer : {ty}")
    nb = " bias(%nba)" if norm == "layer_norm" else ""
    nbt = f", {t(h)}" if norm == "layer_norm" else ""
    lines += [
        f"    amk.row_reduce %xa weight(%ga){nb} into %n "
        f"{{kind = #amk.row_op<{norm}>, eps = 1.0e-6}} : "
        f"{t(m, h)}, {t(h)}{nbt}, {t(m, h)}",
        f"    amk.matmul %n, %wga into %gate {{transpose_b, activation = "
        f"#amk.activation<{act}>}} : {t(m, h)}, {t(f, h)}, {t(m, f)}",
        f"    amk.matmul %n, %wua into %up {{transpose_b}} : "
        f"{t(m, h)}, {t(f, h)}, {t(m, f)}",
        f"    linalg.{combine} ins(%gate, %up : {t(m, f)}, {t(m, f)}) "
        f"outs(%hid : {t(m, f)})",
        f"    amk.matmul %hid, %wda into %down {{transpose_b}} : "
        f"{t(m, f)}, {t(h, f)}, {t(m, h)}",
        f"    linalg.{residual} ins(%xa, %down : {t(m, h)}, {t(m, h)}) "
        f"outs(%ya : {t(m, h)})",
        "  }"]
    return close(lines, config)


def attention(q, k, v, caches, lengths, o, m, heads, kv_heads, d, cache, t,
              append=False, rotary=None):
    """An amk.decode_attention line over [m, cache, kv_heads, d] caches;
    `rotary` names its cos and sin tables ([cache + 1, d] f32)."""
    c = t(m, cache, kv_heads, d)
    extra = ", append" if append else ""
    table = memref([cache + 1, d], "f32")
    rot = f" rotary({rotary})" if rotary else ""
    tables = f", {table}, {table}" if rotary else ""
    return (f"    amk.decode_attention {q}, {k}, {v} cache({caches}) "
            f"lengths({lengths}){rot} into {o} {{heads = {heads}, kv_heads = "
            f"{kv_heads}{extra}}} : {t(m, heads * d)}, {t(m, kv_heads * d)}, "
            f"{t(m, kv_heads * d)}, {c}, {c}, memref<{m}xi32>{tables}, "
            f"{t(m, heads * d)}")


def attention_only(name, m, heads, kv_heads, d, cache, dtype="bf16",
                   append=False, rotary=False, config=None):
    """Decode attention alone: o = attention(q, k, v) over the caches
    (outputs when it appends), rotated by cos and sin tables if asked."""
    t = lambda *shape: memref(list(shape), dtype)
    caches = [("%kc", t(m, cache, kv_heads, d)),
              ("%vc", t(m, cache, kv_heads, d))]
    ins = [("%q", t(m, heads * d)), ("%k", t(m, kv_heads * d)),
           ("%v", t(m, kv_heads * d))] + ([] if append else caches)
    ins.append(("%len", f"memref<{m}xi32>"))
    if rotary:
        ins += [("%cos", memref([cache + 1, d], "f32")),
                ("%sin", memref([cache + 1, d], "f32"))]
    outs = [("%o", t(m, heads * d))] + (caches if append else [])
    args = ", ".join(f"{v}: {ty}" for v, ty in ins + outs)
    body_args = ", ".join(f"{v}a: {ty}" for v, ty in ins + outs)
    lines = [f"func.func @{name}({args}) {{"]
    if config:
        lines.append(f'  amk.kernel "k_{name}" config({config}) {{')
    lines += [
        f"  amk.graph ins({', '.join(v for v, _ in ins)} : "
        f"{', '.join(ty for _, ty in ins)}) outs("
        f"{', '.join(v for v, _ in outs)} : "
        f"{', '.join(ty for _, ty in outs)}) {{",
        f"  ^bb0({body_args}):",
        attention("%qa", "%ka", "%va", "%kca, %vca", "%lena", "%oa", m, heads,
                  kv_heads, d, cache, t, append=append,
                  rotary="%cosa, %sina" if rotary else None),
        "  }"]
    return close(lines, config)


def layer(name, m, heads, kv_heads, d, cache, f, dtype="bf16", config=None):
    """A Llama decode layer: attention (RMSNorm, the q, k and v products,
    rotary embeddings and decode attention over the KV cache, which it
    appends the new keys and values to, the output product, the residual
    add), then the MLP block."""
    h = heads * d
    kv = kv_heads * d
    t = lambda *shape: memref(list(shape), dtype)
    ins = [("%x", t(m, h)), ("%g1", t(h)), ("%wq", t(h, h)),
           ("%wk", t(kv, h)), ("%wv", t(kv, h)),
           ("%len", f"memref<{m}xi32>"),
           ("%cos", memref([cache + 1, d], "f32")),
           ("%sin", memref([cache + 1, d], "f32")), ("%wo", t(h, h)),
           ("%g2", t(h)),
           ("%wg", t(f, h)), ("%wu", t(f, h)), ("%wd", t(h, f))]
    outs = [("%y", t(m, h)), ("%kc", t(m, cache, kv_heads, d)),
            ("%vc", t(m, cache, kv_heads, d))]
    args = ", ".join(f"{v}: {ty}" for v, ty in ins + outs)
    body_args = ", ".join(f"{v}a: {ty}" for v, ty in ins + outs)
    lines = [f"func.func @{name}({args}) {{"]
    if config:
        lines.append(f'  amk.kernel "k_{name}" config({config}) {{')
    lines += [f"  amk.graph ins({', '.join(v for v, _ in ins)} : "
              f"{', '.join(ty for _, ty in ins)}) outs("
              f"{', '.join(v for v, _ in outs)} : "
              f"{', '.join(ty for _, ty in outs)}) {{",
              f"  ^bb0({body_args}):"]
    for buf, ty in [("%n1", t(m, h)), ("%q", t(m, h)), ("%kn", t(m, kv)),
                    ("%vn", t(m, kv)), ("%att", t(m, h)),
                    ("%proj", t(m, h)), ("%r", t(m, h)), ("%n2", t(m, h)),
                    ("%gate", t(m, f)), ("%up", t(m, f)), ("%hid", t(m, f)),
                    ("%down", t(m, h))]:
        lines.append(f"    {buf} = amk.graph_buffer : {ty}")
    norm = ("    amk.row_reduce {x} weight({g}) into {y} "
            f"{{{{kind = #amk.row_op<rms_norm>, eps = 1.0e-6}}}} : "
            f"{t(m, h)}, {t(h)}, {t(m, h)}")
    mm = lambda a, w, c, k, n, act="": (
        f"    amk.matmul {a}, {w} into {c} {{transpose_b{act}}} : "
        f"{t(m, k)}, {t(n, k)}, {t(m, n)}")
    lines += [
        norm.format(x="%xa", g="%g1a", y="%n1"),
        mm("%n1", "%wqa", "%q", h, h),
        mm("%n1", "%wka", "%kn", h, kv),
        mm("%n1", "%wva", "%vn", h, kv),
        attention("%q", "%kn", "%vn", "%kca, %vca", "%lena", "%att", m,
                  heads, kv_heads, d, cache, t, append=True,
                  rotary="%cosa, %sina"),
        mm("%att", "%woa", "%proj", h, h),
        f"    linalg.add ins(%xa, %proj : {t(m, h)}, {t(m, h)}) "
        f"outs(%r : {t(m, h)})",
        norm.format(x="%r", g="%g2a", y="%n2"),
        mm("%n2", "%wga", "%gate", h, f,
           ", activation = #amk.activation<silu>"),
        mm("%n2", "%wua", "%up", h, f),
        f"    linalg.mul ins(%gate, %up : {t(m, f)}, {t(m, f)}) "
        f"outs(%hid : {t(m, f)})",
        mm("%hid", "%wda", "%down", f, h),
        f"    linalg.add ins(%r, %down : {t(m, h)}, {t(m, h)}) "
        f"outs(%ya : {t(m, h)})",
        "  }"]
    return close(lines, config)


def scores(name, m, k, n, dtype="f32"):
    """Softmax between two products (attention's shape): y = softmax(x
    W0^T) W1^T."""
    t = lambda *shape: memref(list(shape), dtype)
    return "\n".join([
        f"func.func @{name}(%x: {t(m, k)}, %w0: {t(n, k)}, %w1: {t(k, n)}, "
        f"%y: {t(m, k)}) {{",
        f"  amk.graph ins(%x, %w0, %w1 : {t(m, k)}, {t(n, k)}, {t(k, n)}) "
        f"outs(%y : {t(m, k)}) {{",
        f"  ^bb0(%xa: {t(m, k)}, %w0a: {t(n, k)}, %w1a: {t(k, n)}, "
        f"%ya: {t(m, k)}):",
        f"    %s = amk.graph_buffer : {t(m, n)}",
        f"    %p = amk.graph_buffer : {t(m, n)}",
        f"    amk.matmul %xa, %w0a into %s {{transpose_b}} : "
        f"{t(m, k)}, {t(n, k)}, {t(m, n)}",
        f"    amk.row_reduce %s into %p {{kind = #amk.row_op<softmax>}} : "
        f"{t(m, n)}, {t(m, n)}",
        f"    amk.matmul %p, %w1a into %ya {{transpose_b}} : "
        f"{t(m, n)}, {t(k, n)}, {t(m, k)}",
        "  }", "  return", "}"]) + "\n"


def cases(sweep, sms):
    yield graph("gemv_m1", 1, [4096, 4096])
    # The MLP's bytes in one step: what the step boundary costs.
    yield graph("gemv_m1_mlp_bytes", 1, [4096, 28672])
    yield graph("gemv_m16_mlp_bytes", 16, [4096, 28672])
    yield graph("gemv_m2_k64", 2, [64, 64])
    yield graph("mlp_m1", 1, [4096, 14336, 4096], acts=["gelu", "none"])
    yield graph("mlp_m16", 16, [4096, 14336, 4096], acts=["gelu", "none"])
    yield graph("chain3_bias_silu", 4, [1000, 3000, 777, 500],
                acts=["silu", "gelu", "none"], bias=True)
    yield graph("mlp_f16_odd", 3, [1003, 2050, 1003], dtype="f16",
                acts=["relu", "none"])
    yield graph("mlp_f32", 2, [2048, 4096, 2048], dtype="f32",
                acts=["gelu", "none"])
    # The Llama-style block (352 MB of weights at H = 4096, F = 14336).
    yield block("llama_m1", 1, 4096, 14336)
    yield block("llama_m16", 16, 4096, 14336)
    yield block("block_odd_f16", 3, 1000, 2050, dtype="f16",
                norm="layer_norm", combine="div", residual="sub",
                act="gelu")
    yield block("block_f32_max", 5, 512, 1536, dtype="f32", combine="max",
                residual="min", act="relu")
    yield scores("scores_softmax", 4, 256, 1000)
    # Decode attention over a KV cache: small odd caches with ragged
    # lengths (f32, f16, grouped and not), then the Llama-style layer
    # (32 heads of 128, 8 key/value heads) at decode sizes, and the
    # attention of 16 sequences over 4096 positions alone.
    yield attention_only("attention_f32_small", 3, 4, 4, 64, 37, "f32")
    yield attention_only("attention_f16_small", 5, 6, 2, 32, 50, "f16")
    # Fewer units than blocks: positions split into parts (flash decoding).
    yield attention_only("attention_split_small", 2, 2, 1, 64, 200, "f32")
    # Rotary embeddings: f32 on 16 lanes, bf16 appending with one lane a
    # head (the partner within the run).
    yield attention_only("attention_rotary_small", 3, 4, 2, 64, 37, "f32",
                         rotary=True)
    yield attention_only("attention_rotary_one_lane", 3, 4, 2, 8, 20,
                         append=True, rotary=True)
    yield layer("layer_small", 3, 4, 2, 32, 20, 256)
    yield layer("llama_layer_m1_l1024", 1, 32, 8, 128, 1024, 14336)
    yield layer("llama_layer_m16_l1024", 16, 32, 8, 128, 1024, 14336)
    yield attention_only("attention_m16_l4096", 16, 32, 8, 128, 4096)
    yield attention_only("attention_m1_l4096", 1, 32, 8, 128, 4096)
    # The TMA ring (hand-set: the planner prefers direct loads today) on
    # odd sizes: K = 1000 leaves a partial last box and A chunk (zeros),
    # N = 696 a partial last tile and a K of the next step off 32.
    ring = ("#amk.graph_config<blocks = 8, threads = 128, rows_per_warp = 1, "
            "unroll = 1, math = mma_sync, stages = 3>")
    yield graph("ring_m16_k1000", 16, [1000, 696, 1000], acts=["silu", "none"],
                config=ring)
    yield graph("ring_m3_k1000", 3, [1000, 696, 1000], acts=["gelu", "none"],
                config=ring)
    # The warp-staged body (hand-set until measured): K = 1000 is three
    # staged chunks of 256 and a direct tail of 232, N = 696 a partial last
    # tile; then the MLP and the block at decode sizes.
    staged = ("#amk.graph_config<blocks = 8, threads = 128, rows_per_warp = 1, "
              "unroll = 1, math = mma_sync, warp_staged = true>")
    yield graph("staged_m16_k1000", 16, [1000, 696, 1000],
                acts=["silu", "none"], config=staged)
    yield graph("staged_m3_k1000", 3, [1000, 696, 1000], acts=["gelu", "none"],
                config=staged)
    for blocks, threads, rows in ((2 * sms, 256, 1), (2 * sms, 128, 2),
                                  (4 * sms, 128, 1), (sms, 512, 1)):
        config = (f"#amk.graph_config<blocks = {blocks}, threads = {threads}, "
                  f"rows_per_warp = {rows}, unroll = 1, math = mma_sync, "
                  f"warp_staged = true>")
        suffix = f"_staged_b{blocks}_t{threads}_r{rows}"
        for m in (1, 16):
            yield graph(f"mlp_m{m}" + suffix, m, [4096, 14336, 4096],
                        acts=["gelu", "none"], config=config)
        yield block("llama_m16" + suffix, 16, 4096, 14336, config=config)
    if not sweep:
        return
    # (math, threads, rows per warp, unroll, TMA stages)
    sweep_configs = [("simt", 128, 2, 8, 0), ("simt", 256, 1, 8, 0),
                     ("simt", 256, 1, 16, 0), ("simt", 128, 1, 16, 0),
                     ("simt", 256, 2, 8, 0), ("mma_sync", 128, 2, 4, 0),
                     ("mma_sync", 256, 1, 4, 0), ("mma_sync", 256, 1, 8, 0),
                     ("mma_sync", 128, 2, 8, 0), ("mma_sync", 256, 2, 4, 0),
                     ("mma_sync", 128, 1, 1, 3), ("mma_sync", 128, 1, 1, 4),
                     ("mma_sync", 128, 1, 1, 6), ("mma_sync", 256, 1, 1, 3),
                     ("mma_sync", 256, 1, 1, 4), ("mma_sync", 128, 2, 1, 3),
                     ("mma_sync", 64, 1, 1, 4), ("mma_sync", 64, 2, 1, 4)]
    for m in (1, 16):
        for per_sm in (1, 2, 3, 4):
            for math, threads, rows, unroll, stages in sweep_configs:
                if per_sm == 3 and not stages:
                    continue
                config = (f"#amk.graph_config<blocks = {per_sm * sms}, "
                          f"threads = {threads}, rows_per_warp = {rows}, "
                          f"unroll = {unroll}, math = {math}, "
                          f"stages = {stages}>")
                name = (f"sweep_m{m}_{math}_b{per_sm * sms}_t{threads}"
                        f"_r{rows}_u{unroll}_s{stages}")
                yield graph(name, m, [4096, 14336, 4096],
                            acts=["gelu", "none"], config=config)
                if m == 16 and stages:
                    yield block("sweep_block" + name[5:], m, 4096, 14336,
                                config=config)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--sms", type=int, default=132)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    amk_opt = os.path.join(ROOT, "build", "bin", "amk-opt")
    failed = 0
    for text in cases(args.sweep, args.sms):
        name = text.split("@")[1].split("(")[0]
        src = os.path.join(args.out, name + ".mlir")
        open(src, "w").write(text)
        # Planned cases go through the planner; sweep cases keep theirs.
        if "amk.kernel" in text:
            passes = [f"--amk-target={args.target}", "--amk-verify",
                      f"--amk-lower=bundle-dir={args.out} cache=false"]
        else:
            passes = [f"--amk-pipeline=target={args.target} "
                      f"bundle-dir={args.out} cache=false"]
        r = subprocess.run([amk_opt, src, *passes, "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            failed += 1
            print(f"{name}: amk-opt failed\n{r.stderr}", file=sys.stderr)
        else:
            print(f"{name}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
