"""Build the GEMM benchmark suite of docs/BENCH.md into kernel bundles.

    python3 -m amk.suite --amk-opt build/bin/amk-opt --target h200 --out DIR
        [--quick | --split-study | --decode-study | --llm-study |
         --repack-study]

For every case it writes a one-matmul MLIR module, runs `amk-opt
--amk-pipeline` on it (plan, verify, lower, export the bundle) and records the
compile time. DIR/suite.json lists the cases and their manifests; `amk-bench`
on the GPU machine takes those manifests.
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


class Case:
    """One GEMM: C = act(alpha op(A) op(B) + beta C + bias)."""

    def __init__(self, name, m, n, k, dtype, dynamic=False, batch=0,
                 ta=False, tb=False, bias=False, act=None, alpha=None,
                 beta=None, perf=True, shapes=None, sizes=None, config=None):
        self.name, self.m, self.n, self.k = name, m, n, k
        self.dtype, self.dynamic, self.batch = dtype, dynamic, batch
        self.ta, self.tb, self.bias, self.act = ta, tb, bias, act
        self.alpha, self.beta, self.perf = alpha, beta, perf
        # Explicit operand shapes (A, B, C; "?" where dynamic), for problems
        # whose operands disagree on which sizes they state, and the sizes
        # (batch, M, N, K) to run such a kernel at.
        self.shapes, self.sizes = shapes, sizes
        # An explicit #amk.gemm_config (the planner's choice when None).
        self.config = config

    def module(self):
        in_t, out_t, attrs = DTYPES[self.dtype]
        dim = lambda v: "?" if self.dynamic else str(v)
        lead = f"{dim(self.batch)}x" if self.batch else ""
        rows_a, cols_a = (self.k, self.m) if self.ta else (self.m, self.k)
        rows_b, cols_b = (self.n, self.k) if self.tb else (self.k, self.n)
        a = f"memref<{lead}{dim(rows_a)}x{dim(cols_a)}x{in_t}>"
        b = f"memref<{lead}{dim(rows_b)}x{dim(cols_b)}x{in_t}>"
        c = f"memref<{lead}{dim(self.m)}x{dim(self.n)}x{out_t}>"
        if self.shapes:
            a, b, c = (f"memref<{shape}x{t}>" for shape, t in
                       zip(self.shapes, (in_t, in_t, out_t)))
        bias_t = f"memref<{lead}{dim(self.n)}x{out_t}>"
        attr_list = [attrs] if attrs else []
        if self.ta:
            attr_list.append("transpose_a")
        if self.tb:
            attr_list.append("transpose_b")
        if self.act:
            attr_list.append(f"activation = #amk.activation<{self.act}>")
        if self.alpha is not None:
            attr_list.append(f"alpha = {self.alpha}")
        if self.beta is not None:
            attr_list.append(f"beta = {self.beta}")
        attr_dict = f" {{{', '.join(attr_list)}}}" if attr_list else ""
        operands = [("a", a), ("b", b)]
        if self.bias:
            operands.append(("bias", bias_t))
        operands.append(("c", c))
        args = ", ".join(f"%{n}: {t}" for n, t in operands)
        types = ", ".join(t for _, t in operands)
        bias_use = " bias(%bias)" if self.bias else ""
        matmul = f"amk.matmul %a, %b{bias_use} into %c{attr_dict} : {types}"
        if self.config:
            matmul = (f'amk.kernel "{self.name}" config({self.config}) {{\n'
                      f"      {matmul}\n    }}")
        # (A kernel's name may not be taken by its function.)
        func = f"run_{self.name}" if self.config else self.name
        return (f"module {{\n"
                f"  func.func @{func}({args}) {{\n"
                f"    {matmul}\n"
                f"    return\n"
                f"  }}\n"
                f"}}\n")


def suite_cases(quick=False):
    """The performance suite of BENCH.md, then correctness-only variants."""
    shapes = [(s, s, s) for s in SQUARE] + ODD + DECODE + LLM
    if quick:
        shapes = [(256, 256, 256), (1000, 1000, 999), (16, 4096, 4096)]
    cases = []
    for dtype in DTYPES:
        for m, n, k in shapes:
            # The LLM shapes and 8192^3 are tensor-core workloads.
            if dtype in ("fp32", "tf32") and m * n * k > 4096**3:
                continue
            cases.append(Case(f"{dtype}_{m}x{n}x{k}", m, n, k, dtype))
    # One kernel for all sizes: dynamic variants, run at several sizes.
    for dtype in ("fp32", "bf16", "fp16"):
        cases.append(Case(f"{dtype}_dynamic", -1, -1, -1, dtype,
                          dynamic=True, perf=False))
    # Layouts, batches and epilogues: checked, not in the speed table.
    cases += [
        Case("bf16_nt_1024x1000x512", 1024, 1000, 512, "bf16", tb=True,
             perf=False),
        Case("fp16_tn_512x768x256", 512, 768, 256, "fp16", ta=True,
             perf=False),
        Case("fp16_tt_130x250x72", 130, 250, 72, "fp16", ta=True, tb=True,
             perf=False),
        Case("fp32_tt_300x200x100", 300, 200, 100, "fp32", ta=True, tb=True,
             perf=False),
        Case("bf16_batched_bias_gelu", 384, 512, 256, "bf16", batch=4,
             bias=True, act="gelu", perf=False),
        Case("fp32_batched_relu_alpha_beta", 200, 96, 80, "fp32", batch=3,
             act="relu", alpha=0.5, beta=2.0, perf=False),
        Case("fp16_bias_silu_beta", 257, 320, 96, "fp16", bias=True,
             act="silu", beta=1.0, perf=False),
        Case("bf16_dynamic_nt", -1, -1, -1, "bf16", dynamic=True, tb=True,
             perf=False),
    ]
    # Kernels run at their own sizes: a dynamic batch (blocks past an
    # operand's batch do nothing), and operands that leave dynamic what
    # another operand's type fixes (the kernel takes them at those sizes).
    batched = [(3, 65, 72, 40), (2, 129, 130, 131), (4, 1, 1, 1),
               (3, 257, 255, 33)]
    cases += [
        Case("bf16_dynamic_batched_bias_gelu", -1, -1, -1, "bf16",
             dynamic=True, batch=1, bias=True, act="gelu", perf=False,
             sizes=batched),
        Case("fp32_dynamic_batched_tn", -1, -1, -1, "fp32", dynamic=True,
             batch=1, ta=True, perf=False, sizes=batched),
        Case("bf16_mixed_dynamic_m", -1, 1000, 999, "bf16", perf=False,
             shapes=("?x?", "999x?", "?x1000"),
             sizes=[(1, 1, 1000, 999), (1, 127, 1000, 999),
                    (1, 1000, 1000, 999)]),
        Case("fp16_mixed_batched", -1, 96, 64, "fp16", batch=3,
             perf=False, shapes=("?x?x?", "3x64x?", "?x?x96"),
             sizes=[(3, 1, 96, 64), (3, 130, 96, 64)]),
    ]
    # Workspace split-K (a second kernel sums the splits, then the
    # epilogue): bf16 out with bias and GELU, f32 beta over a batch, and
    # one kernel for every size.
    ws_mma = ("#amk.gemm_config<block = [16, 64, 64], warp = [16, 32], "
              "math = mma_sync, inst = [16, 8, 16], stages = 4, vector = 8, "
              "threads = 64, split_k = {s}, split_reduce = workspace>")
    ws_simt = ("#amk.gemm_config<block = [16, 32, 32], warp = [16, 32], "
               "math = simt, thread = [2, 8], stages = 2, vector = 1, "
               "threads = 32, split_k = 3, split_reduce = workspace>")
    cases += [
        Case("bf16_split_ws_bias_gelu", 16, 4096, 4096, "bf16", bias=True,
             act="gelu", perf=False, config=ws_mma.format(s=8)),
        Case("fp32_split_ws_batched_beta", 40, 97, 1000, "fp32", batch=3,
             bias=True, alpha=0.5, beta=2.0, perf=False, config=ws_simt),
        Case("fp16_split_ws_dynamic", -1, -1, -1, "fp16", dynamic=True,
             perf=False, config=ws_mma.format(s=4).replace(
                 "[16, 64, 64]", "[16, 64, 32]").replace(
                 "stages = 4", "stages = 3"),
             sizes=[(1, 1, 4096, 4096), (1, 33, 1000, 999),
                    (1, 1, 8, 8), (1, 300, 130, 4097)]),
    ]
    return cases


def split_study_cases():
    """Decode-like GEMMs with the planner's kernel beside explicit split-K
    kernels (both reductions), to fit the cost model's split-K terms."""
    cases = []
    tile = ("block = [16, {bn}, 64], warp = [16, 32], math = mma_sync, "
            "inst = [16, 8, 16], stages = 4, vector = 8, threads = {t}")
    for dtype in ("bf16", "fp16"):
        for m, n, k, tb in [(1, 4096, 4096, False), (16, 4096, 4096, False),
                            (16, 4096, 14336, False), (64, 4096, 4096, False),
                            (1, 8192, 8192, True), (128, 4096, 4096, False)]:
            name = f"{dtype}_{m}x{n}x{k}{'_nt' if tb else ''}"
            cases.append(Case(name, m, n, k, dtype, tb=tb))
            for bn, t in ((32, 32), (64, 64)):
                for split in (2, 4, 8, 16):
                    config = (f"#amk.gemm_config<{tile.format(bn=bn, t=t)}, "
                              f"split_k = {split}, split_reduce = workspace>")
                    cases.append(Case(f"{name}_bn{bn}_ws{split}", m, n, k,
                                      dtype, tb=tb, config=config))
    for m, n, k in [(1, 4096, 4096), (16, 4096, 4096)]:
        name = f"fp32_{m}x{n}x{k}"
        cases.append(Case(name, m, n, k, "fp32"))
        simt = ("block = [16, 128, 16], warp = [16, 64], math = simt, "
                "thread = [4, 8], stages = 2, vector = 4, threads = 64")
        for split in (8, 16):
            for reduce in ("atomic", "workspace"):
                config = (f"#amk.gemm_config<{simt}, split_k = {split}, "
                          f"split_reduce = {reduce}>")
                cases.append(Case(f"{name}_{reduce}{split}", m, n, k, "fp32",
                                  config=config))
    return cases


# Decode and skinny GEMMs of issue 16: M rows against weights of N x K,
# as [K, N] (nn) or as [N, K] (nt, the LLM layout).
DECODE_STUDY = [(1, 4096, 4096, False), (16, 4096, 4096, False),
                (64, 4096, 4096, False), (128, 4096, 4096, False),
                (1, 4096, 4096, True), (16, 14336, 4096, True),
                (16, 4096, 14336, True), (1, 28672, 4096, True),
                (64, 28672, 4096, True)]


def decode_study_cases():
    """The planner's kernel beside explicit TMA + wgmma kernels with
    split-K (block-barrier ring and warp specialized), to fit the cost
    model's decode terms."""
    cases = []
    for m, n, k, tb in DECODE_STUDY:
        name = f"bf16_{m}x{n}x{k}{'_nt' if tb else '_nn'}"
        cases.append(Case(name, m, n, k, "bf16", tb=tb))
        bm = 64 if m <= 64 else 128
        for bn in (64, 128):
            for producer, stages in ((0, 4), (0, 6), (128, 4)):
                threads = 128 * (bm // 64) + producer
                tile = (f"block = [{bm}, {bn}, 64], warp = [64, {bn}], "
                        f"math = wgmma, inst = [64, {bn}, 16], "
                        f"stages = {stages}, vector = 8, threads = {threads}")
                for split in (1, 2, 4, 8, 16):
                    extra = (f", split_k = {split}, split_reduce = workspace"
                             if split > 1 else "")
                    kind = "ws" if producer else "ring"
                    cases.append(Case(
                        f"{name}_{bn}_{kind}{stages}_s{split}", m, n, k,
                        "bf16", tb=tb,
                        config=f"#amk.gemm_config<{tile}{extra}>"))
    # Small odd problems for the sanitizers: splits that do not divide the
    # k-tiles (the last split runs past K), padded warp-specialized rounds.
    for m, n, k, tb, threads, stages, split in [
            (17, 192, 1000, True, 256, 4, 3), (17, 192, 1000, False, 128, 3, 5),
            (1, 64, 1000, True, 256, 3, 2), (70, 128, 520, False, 256, 2, 4)]:
        bm = 64 if m <= 64 else 128
        threads += 128 * (bm // 64 - 1)
        config = (f"#amk.gemm_config<block = [{bm}, 64, 64], warp = [64, 64], "
                  f"math = wgmma, inst = [64, 64, 16], stages = {stages}, "
                  f"vector = 8, threads = {threads}, split_k = {split}, "
                  f"split_reduce = workspace>")
        cases.append(Case(f"small_{m}x{n}x{k}{'_nt' if tb else '_nn'}_t"
                          f"{threads}_s{split}", m, n, k, "bf16", tb=tb,
                          config=config))
    return cases


def launch_study_cases():
    """Launches of several kernels and their alternative: split-K summed in
    the kernel (split_reduce = serial, the splits of a tile taking turns)
    beside the same kernels summed by a second kernel (workspace), on decode
    and K-heavy shapes, with the planner's choice; operands copied by a
    first kernel (rows that break TMA's 16-byte rule, tf32 B as [K, N]);
    small odd problems of every math path for the sanitizers."""
    cases = [Case("bf16_4097x4097x4097_pad", 4097, 4097, 4097, "bf16"),
             Case("bf16_2039x2053x2027_pad", 2039, 2053, 2027, "bf16"),
             Case("tf32_2048x2048x2048_nn", 2048, 2048, 2048, "tf32"),
             Case("bf16_1x4096x4096_nt", 1, 4096, 4096, "bf16", tb=True)]
    shapes = [(16, 4096, 4096, True), (64, 4096, 4096, True),
              (64, 4096, 4096, False), (128, 4096, 4096, True),
              (256, 4096, 4096, True), (16, 4096, 14336, True),
              (64, 28672, 4096, True), (512, 4096, 14336, True)]
    for m, n, k, tb in shapes:
        name = f"bf16_{m}x{n}x{k}{'_nt' if tb else '_nn'}"
        cases.append(Case(name, m, n, k, "bf16", tb=tb))
        bm = 64 if m <= 64 else 128
        tiles = [(64, 6), (128, 6)] if m < 512 else [(128, 4), (256, 4)]
        for bn, stages in tiles:
            threads = 128 * (bm // 64)
            tile = (f"block = [{bm}, {bn}, 64], warp = [64, {bn}], "
                    f"math = wgmma, inst = [64, {bn}, 16], stages = {stages}, "
                    f"vector = 8, threads = {threads}")
            splits = (2, 4, 8) if m < 512 else (2,)
            for split in splits:
                # (Serial needs every block resident: one per SM here.)
                tiles = -(-m // bm) * -(-n // bn) * split
                # (Last, like workspace, has no block wait for another.)
                reduces = ["workspace", "last"] + (["serial"] if tiles <= 132
                                                   else [])
                for reduce in reduces:
                    cases.append(Case(
                        f"{name}_{bm}x{bn}_{reduce}{split}", m, n, k, "bf16",
                        tb=tb, config=f"#amk.gemm_config<{tile}, split_k = "
                        f"{split}, split_reduce = {reduce}>"))
        # K-heavy prefill: the warp-specialized 128 x 128 kernel (two
        # consumer warpgroups and a producer), split through a workspace
        # or summed by the last split at the consumers' named barrier.
        if m >= 512:
            spec = ("block = [128, 128, 64], warp = [64, 128], math = wgmma, "
                    "inst = [64, 128, 16], stages = 6, vector = 8, "
                    "threads = 384")
            for reduce in ("workspace", "last"):
                cases.append(Case(
                    f"{name}_128x128_spec_{reduce}2", m, n, k, "bf16", tb=tb,
                    config=f"#amk.gemm_config<{spec}, split_k = 2, "
                    f"split_reduce = {reduce}>"))
    wgmma = ("#amk.gemm_config<block = [{bm}, 64, 64], warp = [64, 64], "
             "math = wgmma, inst = [64, 64, 16], stages = 3, vector = 8, "
             "threads = {t}, split_k = {s}, split_reduce = {reduce}>")
    tf32 = ("#amk.gemm_config<block = [64, 64, 32], warp = [64, 64], "
            "math = wgmma, inst = [64, 64, 8], stages = 3, vector = 4, "
            "threads = 128, split_k = 2, split_reduce = {reduce}>")
    mma_sync = ("#amk.gemm_config<block = [64, 64, 32], warp = [32, 32], "
                "math = mma_sync, inst = [16, 8, 16], stages = 3, vector = 8, "
                "threads = 128, split_k = 3, split_reduce = {reduce}>")
    simt = ("#amk.gemm_config<block = [32, 32, 8], warp = [16, 32], "
            "math = simt, thread = [4, 4], stages = 2, vector = 1, "
            "threads = 64, split_k = 4, split_reduce = {reduce}>")
    small = [
        # The last split runs past K; bf16 C through the quad shuffles.
        Case("small_wgmma_nt_17x192x1000_s3", 17, 192, 1000, "bf16", tb=True,
             perf=False,
             config=wgmma.format(bm=64, t=128, s=3, reduce="serial")),
        Case("small_wgmma_nn_70x128x520_s4", 70, 128, 520, "bf16", perf=False,
             bias=True, act="silu",
             config=wgmma.format(bm=128, t=256, s=4, reduce="serial")),
        Case("small_wgmma_batched_2x65x128x512_s2", 65, 128, 512, "fp16",
             batch=2, tb=True, bias=True, beta=0.5, perf=False,
             config=wgmma.format(bm=128, t=256, s=2, reduce="serial")),
        Case("small_tf32_nt_40x64x256_s2", 40, 64, 256, "tf32", tb=True,
             perf=False, config=tf32.format(reduce="serial")),
        Case("small_mma_sync_batched_4x100x72x300_s3", 100, 72, 300, "fp16",
             batch=4, bias=True, act="gelu", beta=0.5, perf=False,
             config=mma_sync.format(reduce="serial")),
        Case("small_simt_33x45x70_s4", 33, 45, 70, "fp32", perf=False,
             config=simt.format(reduce="serial")),
        # The same four math paths summed by the last split to arrive.
        Case("small_last_wgmma_nn_70x128x520_s4", 70, 128, 520, "bf16",
             perf=False, bias=True, act="silu",
             config=wgmma.format(bm=128, t=256, s=4, reduce="last")),
        Case("small_last_tf32_nt_40x64x256_s2", 40, 64, 256, "tf32", tb=True,
             perf=False, config=tf32.format(reduce="last")),
        Case("small_last_mma_sync_batched_4x100x72x300_s3", 100, 72, 300,
             "fp16", batch=4, bias=True, act="gelu", beta=0.5, perf=False,
             config=mma_sync.format(reduce="last")),
        Case("small_last_simt_33x45x70_s4", 33, 45, 70, "fp32", perf=False,
             config=simt.format(reduce="last")),
        # ... and in a warp-specialized kernel (two consumer warpgroups and
        # a producer): the arrival at the consumers' named barrier.
        Case("small_last_specialized_nn_70x128x520_s4", 70, 128, 520, "bf16",
             perf=False, bias=True, act="silu",
             config=wgmma.format(bm=128, t=384, s=4, reduce="last")),
        # Launches of two and three kernels (each after the first launched
        # while the one before it runs): a workspace split, a repack of
        # both operands (odd rows), a tf32 B as [K, N] with a split.
        Case("small_workspace_17x192x1000_s3", 17, 192, 1000, "bf16",
             tb=True, perf=False,
             config=wgmma.format(bm=64, t=128, s=3, reduce="workspace")),
        Case("small_pad_70x33x45", 70, 33, 45, "bf16", perf=False,
             config="#amk.gemm_config<block = [64, 64, 64], warp = [64, 64], "
             "math = wgmma, inst = [64, 64, 16], stages = 2, vector = 8, "
             "threads = 128>"),
        Case("small_tf32_nn_96x80x520_s2", 96, 80, 520, "tf32", perf=False,
             config=tf32.format(reduce="workspace")),
    ]
    return cases + small


def stream_study_cases():
    """Decode and skinny GEMMs (M = 16-256) where the cost model's stream
    terms decide between tiles on fewer SMs, splits and narrow tiles: the
    planner's kernel beside explicit alternatives (64 x 32 tiles among
    them, which the planner does not offer yet), bf16 with B as [N, K] (and
    [K, N] at M = 64); 4097^3 at 3 and 4 stages."""
    wgmma = ("#amk.gemm_config<block = [{bm}, {bn}, 64], warp = [64, {wn}], "
             "math = wgmma, inst = [64, {wn}, 16], stages = {st}, vector = 8, "
             "threads = {t}{extra}>")
    def config(bm, bn, wn, t, st=6, split=1, reduce="workspace", swz=1):
        extra = f", swizzle = {swz}" if swz > 1 else ""
        if split > 1:
            extra += f", split_k = {split}, split_reduce = {reduce}"
        return wgmma.format(bm=bm, bn=bn, wn=wn, st=st, t=t, extra=extra)
    variants = {
        (16, 4096, 4096): [("64x32", config(64, 32, 32, 128, st=8)),
                           ("64x64_ws2", config(64, 64, 64, 128, split=2))],
        (64, 4096, 4096): [("64x64_ws2", config(64, 64, 64, 128, split=2)),
                           ("64x128_ws4", config(64, 128, 64, 256, split=4)),
                           ("64x32", config(64, 32, 32, 128, st=8)),
                           ("64x32_ws2", config(64, 32, 32, 128, split=2))],
        (96, 4096, 4096): [("64x96_spec", config(64, 96, 96, 256, swz=8)),
                           ("64x64_spec", config(64, 64, 64, 256, swz=8)),
                           ("64x64_ws2", config(64, 64, 64, 128, split=2))],
        (128, 4096, 4096): [("64x96_spec", config(64, 96, 96, 256, swz=8)),
                            ("64x64_spec", config(64, 64, 64, 256, swz=8)),
                            ("128x64_ws2", config(128, 64, 64, 256, split=2)),
                            ("64x128_ws2", config(64, 128, 64, 256, split=2))],
        (256, 4096, 4096): [("128x96_spec", config(128, 96, 96, 384, swz=8)),
                            ("128x128_ws2", config(128, 128, 128, 256,
                                                   split=2)),
                            ("128x128_serial2", config(128, 128, 128, 256,
                                                       split=2,
                                                       reduce="serial"))],
        (16, 14336, 4096): [("64x128_t256", config(64, 128, 64, 256)),
                            ("64x64_t128", config(64, 64, 64, 128))],
    }
    cases = []
    for (m, n, k), alternatives in variants.items():
        layouts = (True, False) if m == 64 else (True,)
        for tb in layouts:
            name = f"bf16_{m}x{n}x{k}{'_nt' if tb else '_nn'}"
            cases.append(Case(name, m, n, k, "bf16", tb=tb))
            for label, cfg in alternatives:
                # (B as [K, N] comes in 64-column chunks.)
                if not tb and "x32" in label:
                    continue
                cases.append(Case(f"{name}_{label}", m, n, k, "bf16", tb=tb,
                                  config=cfg))
    cases.append(Case("bf16_4097x4097x4097", 4097, 4097, 4097, "bf16"))
    for stages in (3, 4):
        cases.append(Case(
            f"bf16_4097x4097x4097_s{stages}", 4097, 4097, 4097, "bf16",
            config=f"#amk.gemm_config<block = [128, 224, 64], warp = [64, "
            f"224], math = wgmma, inst = [64, 224, 16], stages = {stages}, "
            f"vector = 1, threads = 384, swizzle = 8>"))
    return cases


# Prefill GEMMs of issue 16's LLM target: M tokens against weights of N x K
# stored as [N, K] (nt), and short-K products whose cost is writing C.
LLM_STUDY = [(m, n, k) for m in (512, 2048, 8192)
             for n, k in ((4096, 4096), (14336, 4096), (4096, 14336),
                          (28672, 4096), (57344, 8192))]
SHORT_K_STUDY = [(4096, 4096, 64), (2048, 8192, 64), (8192, 8192, 64),
                 (1024, 1024, 128)]


def llm_study_cases():
    """The planner's kernels on the LLM prefill shapes (bf16 and fp16, B as
    [N, K]) and on short-K products (the geomean issue 16 asks for)."""
    cases = []
    for dtype in ("bf16", "fp16"):
        for m, n, k in LLM_STUDY:
            cases.append(Case(f"{dtype}_{m}x{n}x{k}_nt", m, n, k, dtype,
                              tb=True))
    for m, n, k in SHORT_K_STUDY:
        cases.append(Case(f"bf16_{m}x{n}x{k}_nn", m, n, k, "bf16"))
    return cases


# Issue 16's retargeting check: LLM prefill (B as [N, K]), odd and batched
# shapes, each planned for several targets and all run on one GPU.
RETARGET_STUDY = [(512, 4096, 14336), (2048, 14336, 4096),
                  (2048, 4096, 14336), (8192, 6144, 4096),
                  (512, 28672, 4096), (2048, 57344, 8192)]


def retarget_study_cases():
    """The shapes whose plans for another GPU, run on this one, the plan
    for this one must match or beat."""
    cases = [Case(f"bf16_{m}x{n}x{k}_nt", m, n, k, "bf16", tb=True)
             for m, n, k in RETARGET_STUDY]
    cases += [Case("bf16_1000x1000x999", 1000, 1000, 999, "bf16"),
              Case("fp16_4097x4097x4097", 4097, 4097, 4097, "fp16"),
              Case("fp32_1000x1000x999", 1000, 1000, 999, "fp32"),
              Case("bf16_batched_8x1024x1024x1024", 1024, 1024, 1024, "bf16",
                   batch=8)]
    return cases


def repack_study_cases():
    """MN-major operands: tf32 with B as [K, N] (repacked K-major by a first
    kernel) beside B as [N, K] (no repack) at the same sizes, planned, and
    explicit ring and warp-specialized kernels at 4096^3; A as [K, M]
    (bf16 and fp16 read in place by wgmma, tf32 and TT copied first); small
    odd and batched problems for the sanitizers."""
    cases = []
    for dtype in ("bf16", "fp16"):
        for m, n, k in [(4096, 4096, 4096), (2048, 14336, 4096)]:
            cases.append(Case(f"{dtype}_{m}x{n}x{k}_tn", m, n, k, dtype,
                              ta=True))
    cases.append(Case("tf32_4096x4096x4096_tt", 4096, 4096, 4096, "tf32",
                      ta=True, tb=True))
    for m, n, k in [(4096, 4096, 4096), (2048, 2048, 2048),
                    (1024, 1024, 1024), (8192, 4096, 4096),
                    (2048, 14336, 4096)]:
        for tb in (False, True):
            name = f"tf32_{m}x{n}x{k}_{'nt' if tb else 'nn'}"
            cases.append(Case(name, m, n, k, "tf32", tb=tb))
    for bn, producer, stages, swizzle in [(256, 128, 4, 8), (256, 0, 4, 1),
                                          (128, 128, 6, 8)]:
        threads = 256 + producer
        tile = (f"block = [128, {bn}, 32], warp = [64, {bn}], math = wgmma, "
                f"inst = [64, {bn}, 8], stages = {stages}, vector = 4, "
                f"threads = {threads}, swizzle = {swizzle}")
        kind = "ws" if producer else "ring"
        for tb in (False, True):
            cases.append(Case(
                f"tf32_4096_{'nt' if tb else 'nn'}_{bn}_{kind}{stages}",
                4096, 4096, 4096, "tf32", tb=tb,
                config=f"#amk.gemm_config<{tile}>"))
    small = ("#amk.gemm_config<block = [64, 64, 32], warp = [64, 64], "
             "math = wgmma, inst = [64, 64, 8], stages = 3, vector = 4, "
             "threads = {threads}>")
    for name, m, n, k, batch, threads in [("odd", 200, 130, 72, 0, 128),
                                          ("batched", 65, 200, 100, 3, 256)]:
        cases.append(Case(f"tf32_{name}_{m}x{n}x{k}_nn", m, n, k, "tf32",
                          batch=batch, perf=False,
                          config=small.format(threads=threads)))
    cases.append(Case("bf16_tn_small_200x136x72", 200, 136, 72, "bf16",
                      ta=True, perf=False,
                      config=small.format(threads=256).replace(
                          "32], warp", "64], warp").replace(
                          "64, 8]", "64, 16]").replace("vector = 4",
                                                       "vector = 8")))
    # A as [K, M] read by wgmma in place (transposed by its descriptor):
    # two consumer warpgroups on two 64-row chunks of A, B either way.
    ws16 = ("#amk.gemm_config<block = [128, 128, 64], warp = [64, 128], "
            "math = wgmma, inst = [64, 128, 16], stages = 3, vector = 8, "
            "threads = 384, swizzle = 2>")
    for name, tb, batch in [("tn", False, 0), ("tt_batched", True, 3)]:
        cases.append(Case(f"fp16_{name}_ws_200x136x72", 200, 136, 72, "fp16",
                          batch=batch, ta=True, tb=tb, perf=False,
                          config=ws16))
    cases.append(Case("tf32_tt_batched_65x200x100", 65, 200, 100, "tf32",
                      batch=3, ta=True, tb=True, perf=False,
                      config=small.format(threads=128)))
    # Rows that break TMA's 16-byte rule: both operands copied K-major with
    # K padded by zeros (planned, and a ring and a warp-specialized kernel
    # forced on small odd problems in every layout).
    for dtype in ("bf16", "fp16"):
        for m, n, k in [(4097, 4097, 4097), (2039, 2053, 2027),
                        (1000, 1000, 999)]:
            cases.append(Case(f"{dtype}_pad_{m}x{n}x{k}_nn", m, n, k, dtype))
    cases.append(Case("tf32_pad_4097x4097x4097_nn", 4097, 4097, 4097,
                      "tf32"))
    for name, m, n, k, ta, tb, batch, config in [
            ("nn_odd_k", 200, 136, 71, False, False, 0, ws16),
            ("nt_odd_k", 130, 72, 99, False, True, 0, small.format(
                threads=256).replace("32], warp", "64], warp").replace(
                    "64, 8]", "64, 16]").replace("vector = 4", "vector = 8")),
            ("tn_odd_m_batched", 65, 136, 72, True, False, 2, ws16),
            ("tt_odd_n", 64, 77, 80, True, True, 0, ws16)]:
        cases.append(Case(f"bf16_pad_{name}_{m}x{n}x{k}", m, n, k, "bf16",
                          ta=ta, tb=tb, batch=batch, perf=False,
                          config=config))
    cases.append(Case("tf32_pad_nn_odd_k_70x33x45", 70, 33, 45, "tf32",
                      perf=False, config=small.format(threads=128)))
    return cases


def build(amk_opt, target, out, cases):
    os.makedirs(out, exist_ok=True)
    index = []
    failures = 0
    for case in cases:
        src = os.path.join(out, case.name + ".mlir")
        with open(src, "w") as f:
            f.write(case.module())
        # The manifests this case writes: new ones, or ones it rewrote (a
        # rerun into the same directory).
        before = {f: os.stat(os.path.join(out, f)).st_mtime_ns
                  for f in os.listdir(out)}
        start = time.perf_counter()
        proc = subprocess.run(
            [amk_opt, src, "-o", os.devnull,
             f"--amk-pipeline=target={target} bundle-dir={out}"],
            capture_output=True, text=True)
        seconds = time.perf_counter() - start
        manifests = sorted(
            f for f in os.listdir(out)
            if f.endswith(".json") and
            before.get(f) != os.stat(os.path.join(out, f)).st_mtime_ns)
        ok = proc.returncode == 0 and len(manifests) == 1
        # Harness warnings (AMK-UNCOALESCED) do not fail a case; show them.
        warnings = [line.strip() for line in proc.stderr.splitlines()
                    if "warning:" in line]
        if not ok:
            failures += 1
            print(f"FAIL {case.name}: {proc.stderr.strip()[:2000]}",
                  file=sys.stderr)
        index.append({"case": case.name, "dtype": case.dtype, "m": case.m,
                      "n": case.n, "k": case.k, "batch": case.batch,
                      "dynamic": case.dynamic, "perf": case.perf,
                      "sizes": case.sizes,
                      "compile_s": round(seconds, 3),
                      "manifest": manifests[0] if ok else None,
                      "warnings": warnings,
                      "error": None if ok else proc.stderr.strip()})
        print(f"{'ok  ' if ok else 'FAIL'} {case.name:30s} "
              f"{seconds * 1000:7.0f} ms  {manifests[0] if ok else ''}")
        for line in warnings:
            print(f"     {line}")
    with open(os.path.join(out, "suite.json"), "w") as f:
        json.dump({"target": target, "cases": index}, f, indent=2)
    times = sorted(c["compile_s"] for c in index if c["manifest"])
    if times:
        print(f"compile (plan+verify+lower to cubin) per kernel: median "
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
    parser.add_argument("--split-study", action="store_true",
                        help="decode GEMMs with explicit split-K kernels "
                             "instead of the suite")
    parser.add_argument("--decode-study", action="store_true",
                        help="decode GEMMs with explicit TMA + wgmma split-K "
                             "kernels instead of the suite")
    parser.add_argument("--llm-study", action="store_true",
                        help="LLM prefill GEMMs (B as [N, K]) and short-K "
                             "products, planned, instead of the suite")
    parser.add_argument("--repack-study", action="store_true",
                        help="wgmma on MN-major operands (A as [K, M] in "
                             "place, tf32 and TT repacked K-major first), "
                             "instead of the suite")
    parser.add_argument("--launch-study", action="store_true",
                        help="launches of several kernels, and split-K "
                             "summed in the kernel (serial) beside a second "
                             "kernel (workspace), instead of the suite")
    parser.add_argument("--retarget-study", action="store_true",
                        help="LLM, odd and batched GEMMs to plan for "
                             "several targets (--target) and run on one GPU")
    parser.add_argument("--stream-study", action="store_true",
                        help="decode GEMMs, planned beside explicit tile "
                             "and split alternatives, instead of the suite")
    args = parser.parse_args()
    if args.stream_study:
        cases = stream_study_cases()
    elif args.retarget_study:
        cases = retarget_study_cases()
    elif args.launch_study:
        cases = launch_study_cases()
    elif args.repack_study:
        cases = repack_study_cases()
    elif args.llm_study:
        cases = llm_study_cases()
    elif args.split_study:
        cases = split_study_cases()
    elif args.decode_study:
        cases = decode_study_cases()
    else:
        cases = suite_cases(args.quick)
    sys.exit(1 if build(args.amk_opt, args.target, args.out, cases) else 0)


if __name__ == "__main__":
    main()
