"""Check and time row-wise AMK bundles against torch (and Triton) on a GPU.

    python3 -m amk.rowbench DIR [--json OUT] [--iters 20]

DIR is what `python3 -m amk.rowsuite` wrote. For every bundle, at its own
sizes (dynamic ones at the case's sizes): random inputs, AMK's output
checked against an fp64 reference of the problem, then AMK, torch's op and,
for softmax, a fused Triton softmax timed in the same run, each the median
of CUDA-event timings after an L2 flush, beside the measured copy ceiling
(a device copy of as many bytes as the kernel moves). Needs torch and the
runtime's libamk_runtime (python/amk/runtime.py).
"""

import argparse
import json
import math
import os
import sys

import torch

from amk.runtime import Bundle

TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
# Unit roundoff of each output type.
ROUNDOFF = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "f16": 2.0 ** -11}


def reference(kind, x, w, b, eps):
    """The problem in fp64."""
    x = x.double()
    if kind == "sum":
        return x.sum(-1)
    if kind == "max":
        return x.amax(-1)
    if kind == "mean":
        return x.mean(-1)
    if kind == "softmax":
        return torch.softmax(x, -1)
    n = x.shape[-1]
    if kind == "rms_norm":
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w.double()
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    y = (x - mean) * torch.rsqrt(var + eps) * w.double()
    return y + b.double() if b is not None else y


def torch_op(kind, x, w, b, eps, out_dtype):
    """What a torch user would call."""
    if kind == "sum":
        return lambda: x.sum(-1, dtype=out_dtype)
    if kind == "max":
        return lambda: x.amax(-1).to(out_dtype)
    if kind == "mean":
        return lambda: x.mean(-1, dtype=out_dtype)
    if kind == "softmax":
        return lambda: torch.softmax(x, -1, dtype=out_dtype)
    n = x.shape[-1]
    if kind == "rms_norm":
        return lambda: torch.nn.functional.rms_norm(x, (n,), w, eps)
    return lambda: torch.nn.functional.layer_norm(x, (n,), w, b, eps)


def error_ratio(kind, y, ref, x, out):
    """The largest error over its allowance: the output's rounding, plus
    f32 accumulation over the row (sqrt(N) growth of the sum of |terms|)."""
    n = x.shape[-1]
    u = ROUNDOFF[out]
    acc = 8 * math.sqrt(n) * 2.0 ** -24
    if kind in ("sum", "mean"):
        scale = x.double().abs().sum(-1) / (n if kind == "mean" else 1)
    elif kind == "max":
        scale = torch.zeros_like(ref)
    elif kind == "softmax":
        scale = torch.ones_like(ref) * ref.abs().amax(-1, keepdim=True)
    else:
        scale = ref.abs().amax(-1, keepdim=True).expand_as(ref)
    allowed = 2 * u * ref.abs() + acc * scale + 1e-30
    finite = torch.isfinite(ref)
    if not torch.equal(torch.isfinite(y.double()), finite):
        return float("inf")
    return ((y.double() - ref).abs()[finite] / allowed[finite]).max().item() \
        if finite.any() else 0.0


def time_us(fn, iters, flush):
    times = []
    for _ in range(iters):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000)
    times.sort()
    return times[len(times) // 2]


def triton_softmax():
    """A fused one-row-per-program softmax (Triton's classic form), or None
    when Triton is missing."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n,
                    other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, 0))
        y = e / tl.sum(e, 0)
        tl.store(y_ptr + row * n + cols, y.to(y_ptr.dtype.element_ty),
                 mask=cols < n)

    def run(x, y):
        n = x.shape[-1]
        block = triton.next_power_of_2(n)
        if block > 65536:
            return None
        warps = 4 if block <= 2048 else (8 if block <= 8192 else 16)
        rows = x.numel() // n
        return lambda: kernel[(rows,)](x, y, n, BLOCK=block, num_warps=warps)
    return run


def bench_one(manifest_path, sizes, iters, flush, triton_run):
    bundle = Bundle(manifest_path)
    p = bundle.problem
    kind, inn, out = p["kind"], p["in_type"], p["out_type"]
    declared = bundle.manifest["sizes"]
    values = dict(declared)
    request = {}
    if sizes:
        for sym, v in zip(("B", "M", "N"), sizes):
            if declared.get(sym, -1) == -1:
                request[sym] = v
            values[sym] = v if declared.get(sym, -1) == -1 else declared[sym]
    shape_of = lambda arg: [values[s] if isinstance(s, str) else s
                            for s in arg["shape"]]
    torch.manual_seed(0)
    tensors = []
    for arg in bundle.manifest["args"]:
        dtype = TORCH[arg["elem"]]
        t = torch.randn(shape_of(arg), device="cuda", dtype=torch.float32)
        if arg["name"] == "x" and kind == "softmax":
            t = t * 4
        if arg["name"] == "weight":
            t = 1 + 0.1 * t
        tensors.append(t.to(dtype) if arg["name"] != "y"
                       else torch.full(shape_of(arg), float("nan"),
                                       device="cuda", dtype=dtype))
    by_name = dict(zip(bundle.arg_names, tensors))
    x, y = by_name["x"], by_name["y"]
    w, b = by_name.get("weight"), by_name.get("bias")
    pointers = [t.data_ptr() for t in tensors]
    stream = torch.cuda.current_stream().cuda_stream
    run = bundle.bind(pointers, request, stream)
    run()
    torch.cuda.synchronize()
    ref = reference(kind, x, w, b, p["eps"])
    err = error_ratio(kind, y, ref, x, out)
    verdict = "PASS" if err <= 1 else "FAIL"

    amk_us = time_us(run, iters, flush)
    theirs = torch_op(kind, x, w, b, p["eps"], TORCH[out])
    torch_us = time_us(theirs, iters, flush)
    moved = x.numel() * x.element_size() + y.numel() * y.element_size()
    src = torch.empty(moved // 2 + 1, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_us = time_us(lambda: dst.copy_(src), iters, flush)
    triton_us = None
    if kind == "softmax" and triton_run and x.is_contiguous():
        fn = triton_run(x, torch.empty_like(y))
        if fn:
            fn()
            triton_us = time_us(fn, iters, flush)
    return {"case": os.path.basename(manifest_path)[:-5], "kind": kind,
            "shape": "x".join(str(v) for v in x.shape), "in": inn, "out": out,
            "verdict": verdict, "err": err, "amk_us": amk_us,
            "torch_us": torch_us, "triton_us": triton_us, "copy_us": copy_us,
            "vs_torch": torch_us / amk_us,
            "vs_triton": triton_us / amk_us if triton_us else None,
            "of_copy": copy_us / amk_us,
            "config": bundle.manifest["kernels"][-1].get("config")}


def self_test(directory):
    """The C interface refuses what it cannot run, with a message: a
    missing manifest, a wrong buffer count, an unknown size symbol, a
    misaligned buffer. Returns the number of failed expectations."""
    manifest = next(os.path.join(directory, c["manifest"])
                    for c in json.load(open(os.path.join(
                        directory, "suite.json")))["cases"]
                    if c["manifest"] and not c["dynamic"])
    bundle = Bundle(manifest)
    buffers = [torch.zeros(1 << 20, dtype=torch.uint8, device="cuda")
               for _ in bundle.arg_names]
    good = [t.data_ptr() for t in buffers]
    cases = [
        ("missing manifest", lambda: Bundle(manifest + ".missing"), ""),
        ("one buffer too few", lambda: bundle.launch(good[:-1]), "buffers"),
        ("unknown size", lambda: bundle.launch(good, {"Q": 3}), "Q"),
        ("misaligned buffer",
         lambda: bundle.launch([good[0] + 2] + good[1:]), "16-byte aligned"),
    ]
    failed = 0
    for name, call, needle in cases:
        try:
            call()
            print(f"self-test FAIL {name}: no error")
            failed += 1
        except RuntimeError as e:
            ok = needle in str(e)
            failed += not ok
            print(f"self-test {'ok  ' if ok else 'FAIL'} {name}: {e}")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--json")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--self-test", action="store_true",
                        help="check that bad launches are refused, then stop")
    parser.add_argument("--only", default="",
                        help="comma-separated substrings of the cases to run")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(1 if self_test(args.dir) else 0)
    index = json.load(open(os.path.join(args.dir, "suite.json")))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    triton_run = triton_softmax()
    results, failures = [], 0
    print(f"{'case':40s} {'shape':>16s} verdict   err/tol  amk_us torch_us "
          f"triton_us  x_torch x_triton of_copy")
    for case in index["cases"]:
        wanted = [w for w in args.only.split(",") if w]
        if wanted and not any(w in case["case"] for w in wanted):
            continue
        if not case["manifest"]:
            failures += 1
            continue
        path = os.path.join(args.dir, case["manifest"])
        for sizes in case.get("sizes") or [None]:
            try:
                r = bench_one(path, sizes, args.iters, flush, triton_run)
            except Exception as e:  # a failure to report, not to hide
                failures += 1
                print(f"{case['case']:40s} ERROR {e}")
                continue
            failures += r["verdict"] != "PASS"
            results.append(r)
            tri = f"{r['triton_us']:9.1f}" if r["triton_us"] else "        -"
            xtri = f"{r['vs_triton']:8.3f}" if r["vs_triton"] else "       -"
            print(f"{r['case']:40s} {r['shape']:>16s} {r['verdict']:7s} "
                  f"{r['err']:9.3g} {r['amk_us']:7.1f} {r['torch_us']:8.1f} "
                  f"{tri} {r['vs_torch']:8.3f} {xtri} {r['of_copy']:7.3f}")
    print("x_torch = torch time / AMK time (> 1: AMK faster); of_copy = copy "
          "ceiling time / AMK time (1: at the copy ceiling)")
    if args.json:
        json.dump(results, open(args.json, "w"), indent=2)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
