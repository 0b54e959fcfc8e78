"""Check and time megakernel (amk.graph) bundles against torch on a GPU.

    python3 -m amk.graphbench DIR [--json OUT] [--iters 50] [--only SUBSTR[,SUBSTR...]]

DIR holds bundles (manifests of family "graph"), as `amk-opt
--amk-pipeline=bundle-dir=DIR` wrote them. For each: random inputs, AMK's
outputs checked against an fp64 reference of the graph (intermediate
buffers rounded to their declared type, as the graph states), then AMK,
torch eager (F.linear, the activations, the norms, softmax and the
elementwise ops) and the same torch ops replayed
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


ROWS = ("softmax", "rms_norm", "layer_norm")
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "max": torch.maximum, "min": torch.minimum,
}


def kind(step):
    """"matmul", "row", "attention" or "elementwise" (the manifest's
    "op")."""
    op = step.get("op", "matmul")
    if op in ("matmul", "attention"):
        return op
    return "row" if op in ROWS else "elementwise"


def lengths_for(m, cache_length):
    """Attention's cache lengths: every cache full when it is long (the
    timed cases, whose bytes moved are then the caches'); ragged when short,
    with one past the cache and one negative (both clamped) where M
    allows."""
    if cache_length >= 256:
        return torch.full((m,), cache_length, dtype=torch.int32)
    n = torch.randint(0, cache_length + 1, (m,), dtype=torch.int32)
    n[0] = cache_length
    if m >= 3:
        n[1], n[2] = cache_length + 5, -3
    return n


def make_inputs(bundle):
    """Tensors for the manifest's args: inputs random (weights scaled so
    each product stays near 1, divisors away from 0), outputs NaN."""
    torch.manual_seed(0)
    steps = bundle.problem["steps"]
    weights = {s["weights"]: s["k"] for s in steps if kind(s) == "matmul"}
    divisors = {s["b_input"] for s in steps
                if s.get("op") == "div" and "b_input" in s}
    lengths = {s["lengths"]: s["cache_length"] for s in steps
               if kind(s) == "attention"}
    # An appending attention's caches are outputs it reads: random too.
    caches = {s[key] for s in steps if s.get("append")
              for key in ("key_cache", "value_cache")}
    # Rotary tables: Llama's (theta 10000), cos and sin by position.
    tables = {s[key]: key for s in steps if "cos" in s
              for key in ("cos", "sin")}
    tensors = []
    for index, arg in enumerate(bundle.manifest["args"]):
        shape = [bundle.manifest["sizes"][s] if isinstance(s, str) else s
                 for s in arg["shape"]]
        if index in lengths:
            tensors.append(lengths_for(shape[0], lengths[index]).cuda())
            continue
        if index in tables:
            rows, d = shape
            theta = 10000.0 ** (-torch.arange(0, d // 2).double() * 2 / d)
            angles = torch.arange(rows).double()[:, None] * theta[None, :]
            angles = torch.cat([angles, angles], -1)
            table = angles.cos() if tables[index] == "cos" else angles.sin()
            tensors.append(table.to(TORCH[arg["elem"]]).cuda())
            continue
        dtype = TORCH[arg["elem"]]
        if arg["written"] and index not in caches:
            tensors.append(torch.full(shape, float("nan"), device="cuda",
                                      dtype=dtype))
            continue
        t = torch.randn(shape, device="cuda")
        if index in weights:
            t = t / math.sqrt(weights[index])
        if index in divisors:
            t = t.sign() * (t.abs() + 0.5)
        tensors.append(t.to(dtype))
    return tensors


F32 = 2.0 ** -24


def source(s, key, tensors, results):
    """An activation in fp64 and its allowed error per element (0 for an
    input; a step's own allowance for its result)."""
    if f"{key}_input" in s:
        x = tensors[s[f"{key}_input"]].double()
        return x, torch.zeros_like(x)
    return results[s[f"{key}_step"]]


def matmul_ref(s, tensors, a, e_a):
    w = tensors[s["weights"]].double()
    acc = s["alpha"] * (a @ w.t())
    terms_abs = abs(s["alpha"]) * (a.abs() @ w.abs().t())
    # The activation's errors, as independent per element (with margin).
    e_prop = abs(s["alpha"]) * ((e_a * e_a) @ (w * w).t()).sqrt() * 2
    if "bias" in s:
        b = tensors[s["bias"]].double()
        acc = acc + b
        terms_abs = terms_abs + b.abs()
    y = ACTIVATIONS[s["activation"]](acc)
    # Activations here are 1-Lipschitz (gelu up to 1.13).
    return y, 1.2 * (8 * math.sqrt(s["k"]) * F32 * terms_abs + e_prop)


def abs_(w):
    return w.abs() if torch.is_tensor(w) else abs(w)


def row_ref(s, tensors, x, e_x):
    n = x.shape[-1]
    acc = 8 * math.sqrt(n) * F32  # f32 statistics over the row
    w = tensors[s["weights"]].double() if "weights" in s else 1.0
    op = s["op"]
    if op == "softmax":
        z = x - x.amax(-1, keepdim=True)
        y = z.exp() / z.exp().sum(-1, keepdim=True)
        rel = (e_x + e_x.amax(-1, keepdim=True)) + acc + 4 * F32 * (1 + z.abs())
        return y, y * rel
    if op == "rms_norm":
        r = 1 / ((x * x).mean(-1, keepdim=True) + s["eps"]).sqrt()
        y = x * r * w
        rel_r = (x.abs() * e_x).sum(-1, keepdim=True) / (
            (x * x).sum(-1, keepdim=True) + n * s["eps"])
        return y, (e_x * r * abs_(w) + y.abs() * (rel_r + acc + 4 * F32))
    mean = x.mean(-1, keepdim=True)
    c = x - mean
    r = 1 / ((c * c).mean(-1, keepdim=True) + s["eps"]).sqrt()
    y = c * r * w
    if "bias" in s:
        y = y + tensors[s["bias"]].double()
    rel_r = (c.abs() * e_x).sum(-1, keepdim=True) / (
        (c * c).sum(-1, keepdim=True) + n * s["eps"])
    scale = r * abs_(w)
    e_c = e_x + e_x.mean(-1, keepdim=True) + acc * (c.abs() + mean.abs())
    return y, (e_c * scale + (c * scale).abs() * (rel_r + acc) +
               4 * F32 * y.abs())


def elementwise_ref(s, a, e_a, b, e_b):
    op = s["op"]
    y = BINARY[op](a, b)
    if op in ("add", "sub"):
        e = e_a + e_b
    elif op == "mul":
        e = b.abs() * e_a + a.abs() * e_b
    elif op == "div":
        e = e_a / b.abs() + a.abs() * e_b / (b * b)
    else:
        e = torch.maximum(e_a, e_b)
    return y, 1.5 * e + 2 * F32 * y.abs()


def append_ref(s, originals, k, e_k, v, e_v):
    """An appending attention's caches after the launch: as they were, with
    the new keys and values (as the graph rounded them) at position n_m
    where n_m < L; every other element exactly as before."""
    out = {}
    for key, new, e_new in (("key_cache", k, e_k), ("value_cache", v, e_v)):
        cache = originals[s[key]].double()
        m, length, kv_heads, d = cache.shape
        expected, allowed = cache.clone(), torch.full_like(cache, 1e-30)
        n = originals[s["lengths"]].long().clamp(0, length).tolist()
        for i in range(m):
            if n[i] < length:
                expected[i, n[i]] = new[i].view(kv_heads, d)
                allowed[i, n[i]] = e_new[i].view(kv_heads, d) + 1e-30
        out[s[key]] = (expected, allowed)
    return out


def rotate(s, tensors, x, e_x, heads):
    """x [M, heads * D] rotated at each sequence's position n_m (Llama's
    rotate-half), and its allowance."""
    if "cos" not in s:
        return x, e_x
    m, d = x.shape[0], s["k"]
    n = tensors[s["lengths"]].long().clamp(0, s["cache_length"])
    cos = tensors[s["cos"]].double()[n][:, None, :]
    sin = tensors[s["sin"]].double()[n][:, None, :]
    x3, e3 = x.view(m, heads, d), e_x.view(m, heads, d)
    half = lambda t: torch.cat([-t[..., d // 2:], t[..., :d // 2]], -1)
    y = x3 * cos + half(x3) * sin
    e = e3 * cos.abs() + half(e3).abs() * sin.abs() + 4 * F32 * (
        x3.abs() * cos.abs() + half(x3).abs() * sin.abs())
    return y.reshape(m, -1), e.reshape(m, -1)


def attention_ref(s, tensors, q, e_q, k, e_k, v, e_v):
    """Decode attention in fp64 over each sequence's n_m cached positions
    and its new token. The allowance: the scores' errors (the inputs' and
    f32 dots) move the softmax by at most twice the largest, f32 exp2 and
    sums add theirs, the new values carry their own."""
    kc = tensors[s["key_cache"]].double()
    vc = tensors[s["value_cache"]].double()
    m, cache, kv_heads, d = kc.shape
    heads, scale = s["heads"], s["scale"]
    group = heads // kv_heads
    n = tensors[s["lengths"]].long().clamp(0, cache).tolist()
    out = torch.empty(m, heads * d, dtype=torch.float64, device=q.device)
    allowed = torch.empty_like(out)
    for i in range(m):
        def positions(cached, new):
            both = torch.cat([cached[i, :n[i]], new[i].view(1, kv_heads, d)])
            return both.repeat_interleave(group, dim=1)  # [P, heads, D]
        keys, values = positions(kc, k), positions(vc, v)
        e_keys = positions(torch.zeros_like(kc), e_k)
        e_values = positions(torch.zeros_like(vc), e_v)
        qi, e_qi = q[i].view(heads, d), e_q[i].view(heads, d)
        dot = lambda a, b: torch.einsum("hd,phd->hp", a, b)
        scores = scale * dot(qi, keys)
        e_scores = scale * (dot(e_qi, keys.abs()) + dot(qi.abs(), e_keys) +
                            8 * math.sqrt(d) * F32 * dot(qi.abs(), keys.abs()))
        p = torch.softmax(scores, -1)
        mix = lambda w, x: torch.einsum("hp,phd->hd", w, x)
        out[i] = mix(p, values).flatten()
        spread = (2 * e_scores.amax(-1, keepdim=True) +
                  16 * F32 * (scores.abs().amax(-1, keepdim=True) + 1) +
                  8 * math.sqrt(keys.shape[0]) * F32)
        allowed[i] = (2 * spread * mix(p, values.abs()) +
                      mix(p, e_values)).flatten()
    return out, allowed


def reference(steps, tensors):
    """Each output in fp64, with an allowance per element: its own
    rounding, f32 accumulation, and what the errors of the intermediates it
    reads (rounded to their declared types, as the graph states) may
    carry through. `tensors` as they were before the launch."""
    results, out = {}, {}
    for i, s in enumerate(steps):
        a, e_a = source(s, "a", tensors, results)
        if kind(s) == "matmul":
            y, allowed = matmul_ref(s, tensors, a, e_a)
        elif kind(s) == "row":
            y, allowed = row_ref(s, tensors, a, e_a)
        elif kind(s) == "attention":
            a, e_a = rotate(s, tensors, a, e_a, s["heads"])
            k, e_k = rotate(s, tensors, *source(s, "b", tensors, results),
                            s["kv_heads"])
            new = (k, e_k, *source(s, "v", tensors, results))
            y, allowed = attention_ref(s, tensors, a, e_a, *new)
            if s.get("append"):
                # The cache holds the rotated keys as its type rounds them.
                cache = TORCH[s["in_type"]]
                k = k.to(cache).double()
                e_k = e_k + 2 * ROUNDOFF[s["in_type"]] * k.abs()
                out.update(append_ref(s, tensors, k, e_k, *new[2:]))
        else:
            b, e_b = source(s, "b", tensors, results)
            y, allowed = elementwise_ref(s, a, e_a, b, e_b)
        rounded = y.to(TORCH[s["out_type"]]).double()
        allowed = allowed + 2 * ROUNDOFF[s["out_type"]] * y.abs() + 1e-30
        results[i] = (rounded, allowed)
        if "c_output" in s:
            out[s["c_output"]] = (y, allowed)
    return out


def torch_cache(s, tensors):
    """torch's static KV cache for an attention step (made once, untimed):
    heads first as scaled_dot_product_attention takes them, one more
    position for the new token, the mask of each sequence's n_m + 1
    positions, and the rotary tables if the step rotates."""
    kc, vc = tensors[s["key_cache"]], tensors[s["value_cache"]]
    m, cache, kv_heads, d = kc.shape
    n = tensors[s["lengths"]].long().clamp(0, cache)
    def padded(c):
        t = torch.zeros(m, kv_heads, cache + 1, d, dtype=c.dtype,
                        device=c.device)
        t[:, :, :cache] = c.transpose(1, 2)
        return t
    mask = torch.arange(cache + 1, device=kc.device)[None, :] <= n[:, None]
    # Full caches need no mask (SDPA may then take its flash kernel).
    mask = None if bool(mask.all()) else mask[:, None, None, :]
    tables = (tensors[s["cos"]], tensors[s["sin"]]) if "cos" in s else None
    return padded(kc), padded(vc), n, mask, tables


def torch_attention(s, q, k, v, cache):
    """Decode attention as a torch user writes it: the new token into the
    static cache, then SDPA (grouped-query) under the lengths' mask."""
    keys, values, n, mask, tables = cache
    m, kv_heads, _, d = keys.shape
    heads = s["heads"]
    rows = torch.arange(m, device=q.device)
    if tables:  # Llama's rotate-half at each sequence's position
        cos, sin = tables
        def rotary(x, h):
            x = x.view(m, h, d)
            half = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
            return (x * cos[n][:, None] + half * sin[n][:, None]).to(x.dtype)
        q, k = rotary(q, heads), rotary(k, kv_heads)
    keys[rows, :, n] = k.view(m, kv_heads, d)
    values[rows, :, n] = v.view(m, kv_heads, d)
    query = q.view(m, heads, 1, d)
    try:
        o = F.scaled_dot_product_attention(query, keys, values, attn_mask=mask,
                                           scale=s["scale"],
                                           enable_gqa=heads != kv_heads)
    except TypeError:  # torch before 2.5: the heads' copies of the cache
        group = heads // kv_heads
        o = F.scaled_dot_product_attention(
            query, keys.repeat_interleave(group, dim=1),
            values.repeat_interleave(group, dim=1), attn_mask=mask,
            scale=s["scale"])
    return o.reshape(m, heads * d)


def torch_step(s, tensors, results, caches=None):
    """One step as torch ops (the eager and CUDA-graph baselines)."""
    def get(key):
        return (tensors[s[f"{key}_input"]] if f"{key}_input" in s
                else results[s[f"{key}_step"]])
    a = get("a")
    if kind(s) == "attention":
        return torch_attention(s, a, get("b"), get("v"),
                               caches[id(s)]).to(TORCH[s["out_type"]])
    weight = tensors[s["weights"]] if "weights" in s else None
    bias = tensors[s["bias"]] if "bias" in s else None
    if kind(s) == "matmul":
        y = F.linear(a, weight, bias)
        if s["alpha"] != 1:
            y = y * s["alpha"]
        y = ACTIVATIONS[s["activation"]](y)
    elif s["op"] == "softmax":
        y = torch.softmax(a, -1)
    elif s["op"] == "rms_norm":
        y = F.rms_norm(a, (a.shape[-1],), weight, s["eps"])
    elif s["op"] == "layer_norm":
        y = F.layer_norm(a, (a.shape[-1],), weight, bias, s["eps"])
    else:
        y = BINARY[s["op"]](a, get("b"))
    return y.to(TORCH[s["out_type"]])


def torch_graph(steps, tensors):
    """The same graph as torch ops, writing the outputs in place."""
    caches = {id(s): torch_cache(s, tensors) for s in steps
              if kind(s) == "attention"}
    def run():
        results = {}
        for i, s in enumerate(steps):
            results[i] = torch_step(s, tensors, results, caches)
            if "c_output" in s:
                tensors[s["c_output"]].copy_(results[i])
    return run


def bench_one(path, iters, flush, ceiling_tbps):
    bundle = Bundle(path)
    steps = bundle.problem["steps"]
    tensors = make_inputs(bundle)
    pointers = [t.data_ptr() for t in tensors]
    stream = torch.cuda.current_stream().cuda_stream
    run = bundle.bind(pointers, None, stream)
    # The reference reads the inputs as they were (an appending attention
    # updates its caches in place).
    before = [t.clone() for t in tensors]
    run()
    torch.cuda.synchronize()
    err = 0.0
    for index, (ref, allowed) in reference(steps, before).items():
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
        if manifest.get("family") != "graph" or not any(
                only in path for only in args.only.split(",")):
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
