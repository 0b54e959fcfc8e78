#!/usr/bin/env python3
"""Triton's standard autotuned matmul and cuBLAS (torch.matmul) on given shapes.

    python3 scripts/triton-ref.py --json OUT.json --dtype bf16 1000x1000x999 ...

The reference BENCH.md names for "Triton": the tutorial kernel (03-matrix-
multiplication) with its autotuning configs, A [M, K] and B [K, N] row-major,
f32 accumulation, output in the input type. Both libraries are timed here by
triton.testing.do_bench (L2 cleared before every run, median), on the same
inputs, with a correctness check of Triton against cuBLAS. Runs on the GPU
machine (PyTorch and Triton, no MLIR); amk-bench's cuBLAS time of the same
shape anchors AMK's ratio to Triton.
"""

import argparse
import json

import torch
import triton
import triton.language as tl


def configs():
    out = []
    for bm, bn, bk, stages, warps in [
            (128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
            (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
            (64, 32, 32, 5, 2), (32, 64, 32, 5, 2), (128, 256, 128, 3, 8),
            (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
            (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
            (128, 32, 64, 4, 4)]:
        out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                                  "GROUP_M": 8}, num_stages=stages,
                                 num_warps=warps))
    return out


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                  stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def triton_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) *
                         triton.cdiv(N, meta["BLOCK_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                        b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", required=True)
    parser.add_argument("--dtype", action="append",
                        choices=["bf16", "fp16"], default=None)
    parser.add_argument("shapes", nargs="+", help="MxNxK")
    args = parser.parse_args()
    dtypes = {"bf16": torch.bfloat16, "fp16": torch.float16}
    results = []
    torch.manual_seed(0)
    for name in args.dtype or ["bf16", "fp16"]:
        for shape in args.shapes:
            m, n, k = (int(v) for v in shape.split("x"))
            a = torch.randn(m, k, device="cuda", dtype=dtypes[name])
            b = torch.randn(k, n, device="cuda", dtype=dtypes[name])
            ref = torch.matmul(a.float(), b.float())
            out = triton_matmul(a, b)  # autotunes on first call
            err = ((out.float() - ref).norm() / ref.norm()).item()
            triton_us = triton.testing.do_bench(
                lambda: triton_matmul(a, b), warmup=50, rep=300) * 1000
            cublas_us = triton.testing.do_bench(
                lambda: torch.matmul(a, b), warmup=50, rep=300) * 1000
            flops = 2.0 * m * n * k
            row = {"dtype": name, "m": m, "n": n, "k": k,
                   "triton_us": triton_us, "cublas_us": cublas_us,
                   "triton_tflops": flops / triton_us / 1e6,
                   "triton_over_cublas": cublas_us / triton_us,
                   "rel_error": err, "correct": err < 1e-2,
                   "config": str(matmul_kernel.best_config)}
            results.append(row)
            print(f"{name} {shape:>16s}  triton {triton_us:8.1f} us  "
                  f"cublas {cublas_us:8.1f} us  triton/cublas "
                  f"{cublas_us / triton_us:5.2f}x  err {err:.1e}  "
                  f"{'PASS' if row['correct'] else 'FAIL'}  "
                  f"{matmul_kernel.best_config}")
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "results": results},
                  f, indent=2)


if __name__ == "__main__":
    main()
