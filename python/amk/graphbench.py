"""Check and time megakernel (amk.graph) bundles against torch on a GPU.

    python3 -m amk.graphbench DIR [--json OUT] [--iters 50] [--only SUBSTR]

DIR holds bundles (manifests of family "graph"), as `amk-opt
--amk-pipeline=bundle-dir=DIR` wrote them. For each: random inputs, AMK's
outputs checked against an fp64 reference of the graph (intermediate
buffers rounded to their declared type, as the graph states), then AMK,
torch eager (F.linear and the activations) and the same torch ops replayed
from a CUDA graph timed in the same run: medians of CUDA-event timings after
an L2 flush. Reports the bytes moved as a fraction of the HBM read ceiling
(`--ceiling`, TB/s). AMK_GRAPHBENCH_DEBUG=1 prints each output's worst
element against the reference. Needs torch and libamk_runtime
(python/amk/runtime.py).
"""

import argparse
import glob
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

from amk.rowbench import time_us
from amk.runtime import Bundle

TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
ROUNDOFF = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8, "f16": 2.0 ** -11}
ACTIVATIONS = {
    "none": lambda v: v,
    "relu": torch.relu,
    "gelu": F.gelu,
    "silu": F.silu,
}


def make_inputs(bundle):
    """Tensors for the manifest's args: inputs random (weights scaled so
    each product stays near 1), outputs NaN."""
    torch.manual_seed(0)
    steps = bundle.problem["steps"]
    weights = {s["weights"]: s["k"] for s in steps}
    tensors = []
    for index, arg in enumerate(bundle.manifest["args"]):
        shape = [bundle.manifest["sizes"][s] if isinstance(s, str) else s
                 for s in arg["shape"]]
        dtype = TORCH[arg["elem"]]
        if arg["written"]:
            tensors.append(torch.full(shape, float("nan"), device="cuda",
                                      dtype=dtype))
            continue
        t = torch.randn(shape, device="cuda")
        if index in weights:
            t = t / math.sqrt(weights[index])
        tensors.append(t.to(dtype))
    return tensors


def reference(steps, tensors):
    """Each output in fp64, with an allowance per element: its own
    rounding, f32 accumulation over K, and for steps that read a rounded
    intermediate a margin for its last-bit differences."""
    results, allowed_of, out = {}, {}, {}
    for i, s in enumerate(steps):
        if "a_input" in s:
            a, a_unit = tensors[s["a_input"]].double(), 0.0
        else:
            a, a_unit = results[s["a_step"]], ROUNDOFF[steps[s["a_step"]]["out_type"]]
        w = tensors[s["weights"]].double()
        acc = s["alpha"] * (a @ w.t())
        terms_abs = abs(s["alpha"]) * (a.abs() @ w.abs().t())
        terms_rss = abs(s["alpha"]) * ((a * a) @ (w * w).t()).sqrt()
        if "bias" in s:
            b = tensors[s["bias"]].double()
            acc = acc + b
            terms_abs = terms_abs + b.abs()
        y = ACTIVATIONS[s["activation"]](acc)
        dtype = TORCH[s["out_type"]]
        rounded = y.to(dtype).double()
        results[i] = rounded
        u = ROUNDOFF[s["out_type"]]
        # Activations here are 1-Lipschitz (gelu up to 1.13).
        allowed = (2 * u * y.abs() + 1.2 * (8 * math.sqrt(s["k"]) * 2.0 ** -24
                                            * terms_abs
                                            + 4 * a_unit * terms_rss) + 1e-30)
        if "c_output" in s:
            out[s["c_output"]] = (y, allowed)
    return out


def torch_graph(steps, tensors):
    """The same graph as torch ops, writing the outputs in place."""
    def run():
        results = {}
        for i, s in enumerate(steps):
            a = (tensors[s["a_input"]] if "a_input" in s
                 else results[s["a_step"]])
            y = F.linear(a, tensors[s["weights"]],
                         tensors[s["bias"]] if "bias" in s else None)
            if s["alpha"] != 1:
                y = y * s["alpha"]
            y = ACTIVATIONS[s["activation"]](y).to(TORCH[s["out_type"]])
            results[i] = y
            if "c_output" in s:
                tensors[s["c_output"]].copy_(y)
    return run


def bench_one(path, iters, flush, ceiling_tbps):
    bundle = Bundle(path)
    steps = bundle.problem["steps"]
    tensors = make_inputs(bundle)
    pointers = [t.data_ptr() for t in tensors]
    stream = torch.cuda.current_stream().cuda_stream
    run = lambda: bundle.launch(pointers, None, stream)
    run()
    torch.cuda.synchronize()
    err = 0.0
    for index, (ref, allowed) in reference(steps, tensors).items():
        got = tensors[index].double()
        if not torch.isfinite(got).all():
            err = float("inf")
            break
        err = max(err, ((got - ref).abs() / allowed).max().item())
        if os.environ.get("AMK_GRAPHBENCH_DEBUG"):
            d = (got - ref).abs()
            i = int(((got - ref).abs() / allowed).argmax())
            print(f"  output {index}: max |got - ref| {d.max().item():.3e}, "
                  f"max |ref| {ref.abs().max().item():.3e}, worst at {i}: "
                  f"got {got.flatten()[i].item():.5e} ref "
                  f"{ref.flatten()[i].item():.5e} allowed "
                  f"{allowed.flatten()[i].item():.3e}; corr "
                  f"{torch.corrcoef(torch.stack([got.flatten(), ref.flatten()]))[0, 1].item():.6f}",
                  flush=True)
    # Launch after launch gives the same outputs (the counters start from
    # zero each time).
    first = [t.clone() for t in tensors]
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    repeatable = all(torch.equal(a, b) for a, b in zip(first, tensors))
    verdict = "PASS" if err <= 1 and repeatable else "FAIL"

    amk_us = time_us(run, iters, flush)
    eager = torch_graph(steps, [t.clone() for t in tensors])
    eager()
    eager_us = time_us(eager, iters, flush)
    graph = torch.cuda.CUDAGraph()
    captured = torch_graph(steps, [t.clone() for t in tensors])
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        captured()
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(graph):
        captured()
    graph.replay()
    graphed_us = time_us(graph.replay, iters, flush)
    moved = sum(t.numel() * t.element_size() for t in tensors)
    tbps = moved / amk_us / 1e6
    return {"case": os.path.basename(path)[:-5], "verdict": verdict,
            "err": err, "repeatable": repeatable, "amk_us": amk_us,
            "eager_us": eager_us, "graphed_us": graphed_us,
            "vs_eager": eager_us / amk_us, "vs_graphed": graphed_us / amk_us,
            "tbps": tbps, "of_ceiling": tbps / ceiling_tbps,
            "torch_graphed_tbps": moved / graphed_us / 1e6,
            "config": bundle.manifest["kernels"][0].get("config")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--json")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--only", default="")
    parser.add_argument("--ceiling", type=float, default=4.35,
                        help="HBM read ceiling in TB/s (H200: 4.35)")
    args = parser.parse_args(argv)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows, failed = [], 0
    for path in sorted(glob.glob(os.path.join(args.dir, "**", "*.json"),
                                 recursive=True)):
        try:
            manifest = json.load(open(path))
        except (OSError, ValueError):
            continue
        if manifest.get("family") != "graph" or args.only not in path:
            continue
        row = bench_one(path, args.iters, flush, args.ceiling)
        rows.append(row)
        failed += row["verdict"] != "PASS"
        print("{case}: {verdict} err {err:.3f} | amk {amk_us:.1f} us "
              "({tbps:.2f} TB/s, {of_ceiling:.2f} of ceiling) | eager "
              "{eager_us:.1f} us ({vs_eager:.2f}x) | cuda graph "
              "{graphed_us:.1f} us ({vs_graphed:.2f}x) | {config}".format(**row),
              flush=True)
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    if not rows:
        print("no graph bundles in", args.dir)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
