#!/usr/bin/env python3
"""A transformer MLP block through amk.ops, beside torch, on a GPU:

    y = gelu(x W1^T + b1) W2^T        (bf16, weights stored as torch's Linear)

    python3 examples/mlp.py [--tokens 2048] [--hidden 4096] [--ffn 14336]
                            [--shapes exact|dynamic]

Prints each AMK kernel's config, both times (CUDA events, medians), the
verdict of each against an fp64 reference, and the host time of one cached
amk.ops.matmul call against torch.matmul's on a small shape. Needs torch
with a CUDA device and the amk package: installed (the wheel carries
amk-opt and libamk_runtime), else this repository's (with its build).
"""

import argparse
import os
import statistics
import sys
import time

import torch

try:
    import amk
except ImportError:  # not installed: this repository's package
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "python"))
    import amk


def gpu_time_us(fn, iters=20):
    """Median of CUDA-event timings of fn(), after a warm-up call."""
    fn()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000)
    return statistics.median(times)


def host_us(fn, calls=2000):
    """Host time per call of fn() on a small problem (the GPU keeps up)."""
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def verdict(out, ref):
    err = (out.double() - ref).abs().max().item()
    bound = 1e-2 * (ref.abs().max().item() + 1)
    return ("PASS" if err <= bound else "FAIL") + f" (max err {err:.3g})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=14336)
    parser.add_argument("--target", default=None,
                        help="an AMK target (default: this GPU's)")
    parser.add_argument("--shapes", default="exact",
                        choices=amk.ops.SHAPE_POLICIES,
                        help="amk.ops' shape policy")
    args = parser.parse_args()
    amk.ops.set_shape_policy(args.shapes)
    torch.manual_seed(0)
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(args.tokens, args.hidden, **bf16)
    w1 = torch.randn(args.ffn, args.hidden, **bf16) / args.hidden ** 0.5
    b1 = torch.randn(args.ffn, **bf16)
    w2 = torch.randn(args.hidden, args.ffn, **bf16) / args.ffn ** 0.5

    def amk_mlp():
        h = amk.ops.matmul(x, w1.t(), bias=b1, activation="gelu",
                           target=args.target)
        return amk.ops.matmul(h, w2.t(), target=args.target)

    def torch_mlp():
        return torch.nn.functional.gelu(x @ w1.t() + b1) @ w2.t()

    up = amk.ops.matmul_kernel(x, w1.t(), bias=b1, activation="gelu",
                               target=args.target)
    h = amk.ops.matmul(x, w1.t(), bias=b1, activation="gelu",
                       target=args.target)
    down = amk.ops.matmul_kernel(h, w2.t(), target=args.target)
    print(up.explain().splitlines()[0])
    print(f"up:   {up.name}\n      {up.config}")
    print(f"down: {down.name}\n      {down.config}")

    ref_h = torch.nn.functional.gelu(x.double() @ w1.t().double()
                                     + b1.double())
    ref = ref_h.to(torch.bfloat16).double() @ w2.t().double()
    ours, theirs = amk_mlp(), torch_mlp()
    t_amk, t_torch = gpu_time_us(amk_mlp), gpu_time_us(torch_mlp)
    print(f"MLP {args.tokens}x{args.hidden}x{args.ffn} bf16: AMK "
          f"{t_amk:.1f} us ({verdict(ours, ref)}), torch {t_torch:.1f} us "
          f"({verdict(theirs, ref)}), torch / AMK = {t_torch / t_amk:.3f}")

    a = torch.randn(64, 64, **bf16)
    b = torch.randn(64, 64, **bf16)
    h_amk = host_us(lambda: amk.ops.matmul(a, b, target=args.target))
    h_torch = host_us(lambda: torch.matmul(a, b))
    print(f"host time per call, 64x64x64 cached: amk.ops.matmul "
          f"{h_amk:.1f} us, torch.matmul {h_torch:.1f} us "
          f"(ratio {h_amk / h_torch:.2f})")


if __name__ == "__main__":
    main()
