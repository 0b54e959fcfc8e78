"""Operators on torch tensors, compiled by AMK for their exact shapes.

    y = amk.ops.matmul(x, w.t(), bias=b, activation="gelu")

The first call at a new (shapes, dtypes, layouts, target) plans, verifies
and lowers a kernel (amk.compile: on disk once, then in this process's
table); later calls launch it on torch's current stream. What AMK cannot
take raises ValueError or TypeError naming the reason; nothing falls back
to torch silently.

The shape policy (set_shape_policy, or $AMK_SHAPE_POLICY) says which sizes
a kernel is compiled for, and each kernel's explain() says which it got:
- "exact" (the default): every distinct shape is a kernel of its own,
  planned and proven for exactly those sizes (the fastest kernels; a
  compile, about a second, per new shape).
- "dynamic": the row count (matmul's M; every dimension but the last of a
  row op) is left to the launch, so one kernel serves every row count of
  an (N, K, dtype, layout). Its bundle carries specializations by size
  bucket that the runtime chooses among at each launch (the planner adds
  one where a bucket's best config beats the general one by 10%).
"""

import os

from .compiler import compile as _compile
from .compiler import current_stream

SHAPE_POLICIES = ("exact", "dynamic")
_policy = os.environ.get("AMK_SHAPE_POLICY", "exact")
_KERNELS = {}
_ELEM = {"torch.float16": "f16", "torch.bfloat16": "bf16",
         "torch.float32": "f32"}
_ACTIVATIONS = ("relu", "gelu", "silu")


def _memref(elem, *shape):
    """The memref type of a static shape: memref<2x3xbf16>."""
    return "memref<" + "x".join(map(str, shape)) + f"x{elem}>"


def _check_activation(activation, op):
    if activation is not None and activation not in _ACTIVATIONS:
        raise ValueError(f"amk.ops.{op}: activation must be one of "
                         f"{', '.join(_ACTIVATIONS)}, got {activation!r}")


def _elem(dtype, what, op="matmul"):
    """The manifest element type of a torch dtype."""
    elem = _ELEM.get(str(dtype))
    if elem is None:
        raise TypeError(f"amk.ops.{op}: {what} is {dtype}; AMK takes "
                        f"float16, bfloat16 and float32")
    return elem


def set_shape_policy(policy):
    """"exact" (a kernel per shape) or "dynamic" (one kernel for every row
    count); applies to the calls that follow."""
    global _policy
    if policy not in SHAPE_POLICIES:
        raise ValueError(f"amk.ops: shape policy must be one of "
                         f"{', '.join(SHAPE_POLICIES)}, got {policy!r}")
    _policy = policy


def shape_policy():
    if _policy not in SHAPE_POLICIES:
        raise ValueError(f"AMK_SHAPE_POLICY must be one of "
                         f"{', '.join(SHAPE_POLICIES)}, got {_policy!r}")
    return _policy


def _kernel(source, target, policy, rows):
    """The Kernel of `source` for `target`: compiled once per process (and
    once on disk), its explain() headed by the shape policy it follows."""
    key = (source, target)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS[key] = _compile(source, target)
        kernel.policy_note = _policy_note(kernel, policy, rows)
    return kernel


def _policy_note(kernel, policy, rows):
    """What the shape policy made of this kernel, for explain()."""
    sizes = kernel.manifest["sizes"]
    static = ", ".join(f"{s} = {v}" for s, v in sizes.items() if v >= 0)
    if policy == "exact":
        return (f"amk.ops shape policy: exact: compiled for {static} only; "
                f"another shape compiles a kernel of its own "
                f"(set_shape_policy('dynamic'): one kernel for every "
                f"{rows})")
    dynamic = ", ".join(s for s, v in sizes.items() if v < 0)
    lines = [f"amk.ops shape policy: dynamic: {dynamic} chosen at launch "
             f"({static} fixed); one kernel serves every {rows}"]
    for variant in kernel.variants:
        when = variant.get("when") or "otherwise"
        steps = ", ".join(step.get("kernel") or "zero " + step["zero"]
                          for step in variant["steps"])
        lines.append(f"  variant when {when}: {steps}")
    return "\n".join(lines)


def _layout(t, what):
    """(buffer, transposed): `t` itself when row-major contiguous, the
    contiguous tensor whose last two dimensions it swaps otherwise."""
    if t.dim() not in (2, 3):
        raise ValueError(f"amk.ops.matmul: {what} must be 2-D or 3-D "
                         f"(batched), got shape {tuple(t.shape)}")
    if t.is_contiguous():
        return t, False
    if t.transpose(-2, -1).is_contiguous():
        return t.transpose(-2, -1), True
    raise ValueError(f"amk.ops.matmul: {what} must be contiguous or the "
                     f"transpose of a contiguous tensor (strides "
                     f"{tuple(t.stride())})")


def matmul_source(m, n, k, elem, out_elem, transpose_a=False,
                  transpose_b=False, bias=False, activation=None, alpha=1.0,
                  tf32=False, batch=None):
    """The MLIR of C[m, n] = alpha * A B (+ bias, activation) with A given
    as [m, k] ([k, m] transposed) and B as [k, n] ([n, k] transposed); m
    None leaves M to the launch. With `batch`, every operand (the bias
    too) has that many matrices first."""
    _check_activation(activation, "matmul")
    m = "?" if m is None else m
    lead = "" if batch is None else f"{batch}x"
    a = (f"memref<{lead}{k}x{m}x{elem}>" if transpose_a
         else f"memref<{lead}{m}x{k}x{elem}>")
    b = (f"memref<{lead}{n}x{k}x{elem}>" if transpose_b
         else f"memref<{lead}{k}x{n}x{elem}>")
    c = f"memref<{lead}{m}x{n}x{out_elem}>"
    args, types, bias_use = [f"%a: {a}", f"%b: {b}"], [a, b], ""
    if bias:
        args.append(f"%bias: memref<{lead}{n}x{out_elem}>")
        types.append(f"memref<{lead}{n}x{out_elem}>")
        bias_use = " bias(%bias)"
    args.append(f"%c: {c}")
    types.append(c)
    attrs = []
    if transpose_a:
        attrs.append("transpose_a")
    if transpose_b:
        attrs.append("transpose_b")
    if activation:
        attrs.append(f"activation = #amk.activation<{activation}>")
    if alpha != 1.0:
        attrs.append(f"alpha = {float(alpha)!r} : f64")
    if tf32:
        attrs.append("precision = #amk.precision<tf32>")
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    return (f"func.func @amk_matmul({', '.join(args)}) {{\n"
            f"  amk.matmul %a, %b{bias_use} into %c{attr_text} : "
            f"{', '.join(types)}\n  return\n}}\n")


# Launches already checked, by everything that decides them: the kernel,
# whether each operand is read transposed, C's shape and dtype.
_CALLS = {}


def matmul(a, b, *, bias=None, activation=None, alpha=1.0, out_dtype=None,
           allow_tf32=False, target=None):
    """alpha * a @ b (+ bias) (then relu / gelu / silu), on the GPU, as a
    new tensor of `out_dtype` (default: a's). `a` and `b` are CUDA tensors
    of one dtype: 2-D, or both 3-D (a batch of products), or a contiguous
    3-D `a` with a 2-D `b` (one weight for every matrix); each contiguous
    or with its last two dimensions swapped from a contiguous one
    (x @ w.t() reads w as stored). `bias` has one value per column.
    `target` defaults to a's device (amk.target.from_device). Under
    torch.compile it is the custom op torch.ops.amk.matmul."""
    import torch

    if target is None:
        target = _device_target(a)
    if torch.compiler.is_compiling():
        return torch.ops.amk.matmul(a, b, bias, activation or "", float(alpha),
                                    out_dtype, allow_tf32, target)
    return _matmul_eager(a, b, bias, activation, alpha, out_dtype, allow_tf32,
                         target)


def _matmul_eager(a, b, bias, activation, alpha, out_dtype, allow_tf32,
                  target):
    import torch

    # [B, M, K] @ [K, N]: one product over the B x M rows.
    if a.dim() == 3 and b.dim() == 2 and a.is_contiguous():
        out = _matmul_eager(a.reshape(-1, a.shape[-1]), b, bias, activation,
                            alpha, out_dtype, allow_tf32, target)
        return out.view(a.shape[0], a.shape[1], out.shape[-1])

    key = (a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(),
           b.dtype, b.device,
           None if bias is None else (bias.shape, bias.stride(), bias.dtype,
                                      bias.device),
           activation, alpha, out_dtype, allow_tf32, target, _policy)
    call = _CALLS.get(key)
    if call is None:
        kernel, buffers, shape, dtype = _prepare(a, b, bias, activation,
                                                 alpha, out_dtype, allow_tf32,
                                                 target)
        ta, tb = buffers[0] is not a, buffers[1] is not b
        # The first launch goes through every check (and infers M).
        out = torch.empty(shape, dtype=dtype, device=a.device)
        kernel(*buffers, out)
        sizes = ({"M": shape[-2]} if kernel.manifest["sizes"]["M"] < 0
                 else {})
        _CALLS[key] = (kernel, ta, tb, shape, dtype, sizes)
        return out
    kernel, ta, tb, shape, dtype, sizes = call
    out = torch.empty(shape, dtype=dtype, device=a.device)
    pointers = [(a.transpose(-2, -1) if ta else a).data_ptr(),
                (b.transpose(-2, -1) if tb else b).data_ptr()]
    if bias is not None:
        # As _prepare passed it: contiguous, one row per matrix if batched.
        pointers.append(_bias_buffer(bias, shape).data_ptr())
    pointers.append(out.data_ptr())
    kernel.launch(pointers, sizes, current_stream(a.device))
    return out


def _bias_buffer(bias, shape):
    """The bias as the kernel of a C of `shape` takes it: contiguous, and a
    row per matrix when batched. Kept alive by the caller's stream order
    (torch's allocator reuses it only after the launch)."""
    if len(shape) == 3:
        bias = bias.expand(shape[0], shape[2])
    return bias.contiguous()


def _device_target(t):
    """The target of tensor `t`'s device, once per device."""
    index = getattr(t.device, "index", None)
    target = _TARGETS.get(index)
    if target is None:
        from .target import from_device
        target = _TARGETS[index] = from_device(t.device)
    return target


_TARGETS = {}


def matmul_kernel(a, b, **options):
    """The Kernel that matmul(a, b, **options) launches (compiled if new),
    to look at its config, explain() and PTX."""
    return _prepare(a, b, options.get("bias"), options.get("activation"),
                    options.get("alpha", 1.0), options.get("out_dtype"),
                    options.get("allow_tf32", False),
                    options.get("target") or _device_target(a))[0]


def _prepare(a, b, bias, activation, alpha, out_dtype, allow_tf32, target):
    """Checks the operands; the kernel, its input buffers, C's shape and
    dtype."""
    import torch

    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        raise TypeError("amk.ops.matmul takes torch tensors")
    elem = _elem(a.dtype, "a")
    if b.dtype != a.dtype:
        raise TypeError(f"amk.ops.matmul: a is {a.dtype} but b is {b.dtype}")
    a_buf, ta = _layout(a, "a")
    b_buf, tb = _layout(b, "b")
    if a.dim() != b.dim():
        raise ValueError(f"amk.ops.matmul: a is {tuple(a.shape)} but b is "
                         f"{tuple(b.shape)}: batched products take two 3-D "
                         f"operands, or a contiguous 3-D a and a 2-D b")
    batch = a.shape[0] if a.dim() == 3 else None
    if batch is not None and b.shape[0] != batch:
        raise ValueError(f"amk.ops.matmul: a has {batch} matrices but b has "
                         f"{b.shape[0]}")
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise ValueError(f"amk.ops.matmul: a is {m}x{k} but b is {k2}x{n}")
    if min(m, n, k, batch or 1) < 1:
        raise ValueError("amk.ops.matmul: empty operands")
    if a.device != b.device or a.device.type != "cuda":
        raise ValueError("amk.ops.matmul: a and b must be on one CUDA device")
    out_dtype = out_dtype or a.dtype
    out_elem = _elem(out_dtype, "out_dtype")
    if bias is not None:
        if tuple(bias.shape) != (n,) or bias.dtype != out_dtype:
            raise ValueError(f"amk.ops.matmul: bias must be [{n}] of "
                             f"{out_dtype}, got {tuple(bias.shape)} of "
                             f"{bias.dtype}")
        bias = _bias_buffer(bias, (batch, m, n) if batch else (m, n))
    policy = shape_policy()
    source = matmul_source(None if policy == "dynamic" else m, n, k, elem,
                           out_elem, ta, tb, bias is not None, activation,
                           alpha, allow_tf32 and elem == "f32", batch)
    kernel = _kernel(source, target, policy, "M")
    buffers = [a_buf, b_buf] + ([bias] if bias is not None else [])
    shape = (batch, m, n) if batch else (m, n)
    return kernel, buffers, shape, out_dtype


_ROW_KINDS = ("softmax", "rms_norm", "layer_norm", "sum", "max", "mean")


def row_source(kind, shape, elem, out_elem, weight=False, bias=False,
               eps=None):
    """The MLIR of one row-wise op over the last dimension of `shape` (2-D
    or batched 3-D): softmax and the norms keep the shape, the reductions
    drop the last dimension; the norms take a weight (and optional bias)
    per column. A dimension given as None is left to the launch."""
    if kind not in _ROW_KINDS:
        raise ValueError(f"amk.ops: row op must be one of "
                         f"{', '.join(_ROW_KINDS)}, got {kind!r}")
    if len(shape) not in (2, 3) or shape[-1] is None or min(
            d for d in shape if d is not None) < 1:
        raise ValueError(f"amk.ops.{kind}: takes 2-D or 3-D non-empty "
                         f"tensors, got shape {tuple(shape)}")
    shape = ["?" if d is None else d for d in shape]
    dims = "x".join(str(d) for d in shape)
    x = f"memref<{dims}x{elem}>"
    keeps = kind in ("softmax", "rms_norm", "layer_norm")
    y = (f"memref<{dims}x{out_elem}>" if keeps else
         f"memref<{'x'.join(str(d) for d in shape[:-1])}x{out_elem}>")
    vec = f"memref<{shape[-1]}x{out_elem}>"
    operands = [("x", x)] + ([("w", vec)] if weight else []) + \
        ([("b", vec)] if bias else []) + [("y", y)]
    uses = (" weight(%w)" if weight else "") + (" bias(%b)" if bias else "")
    attrs = [f"kind = #amk.row_op<{kind}>"]
    if eps is not None:
        attrs.append(f"eps = {float(eps):.6e}")
    args = ", ".join(f"%{n}: {t}" for n, t in operands)
    types = ", ".join(t for _, t in operands)
    return (f"func.func @amk_{kind}({args}) {{\n"
            f"  amk.row_reduce %x{uses} into %y {{{', '.join(attrs)}}} : "
            f"{types}\n  return\n}}\n")


def _row(kind, x, weight=None, bias=None, eps=None, dim=-1, out_dtype=None,
         target=None):
    """One row-wise op on a contiguous CUDA tensor, over its last dim."""
    import torch

    if not isinstance(x, torch.Tensor):
        raise TypeError(f"amk.ops.{kind} takes a torch tensor")
    if dim not in (-1, x.dim() - 1):
        raise ValueError(f"amk.ops.{kind}: reduces the last dimension only "
                         f"(dim=-1), got dim={dim}")
    if not x.is_contiguous():
        raise ValueError(f"amk.ops.{kind}: x must be contiguous")
    if x.device.type != "cuda":
        raise ValueError(f"amk.ops.{kind}: x must be on a CUDA device")
    elem = _elem(x.dtype, "x", kind)
    out_dtype = out_dtype or x.dtype
    out_elem = _elem(out_dtype, "out_dtype", kind)
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and (tuple(v.shape) != (x.shape[-1],) or
                              v.dtype != out_dtype):
            raise ValueError(f"amk.ops.{kind}: {name} must be "
                             f"[{x.shape[-1]}] of {out_dtype}")
    policy = shape_policy()
    shape = tuple(x.shape)
    if policy == "dynamic":
        shape = (None,) * (len(shape) - 1) + shape[-1:]
    source = row_source(kind, shape, elem, out_elem, weight is not None,
                        bias is not None, eps)
    kernel = _kernel(source, target or _device_target(x), policy, "row count")
    keeps = kind in ("softmax", "rms_norm", "layer_norm")
    out = torch.empty(x.shape if keeps else x.shape[:-1], dtype=out_dtype,
                      device=x.device)
    buffers = [x] + [v.contiguous() for v in (weight, bias) if v is not None]
    kernel(*buffers, out)
    return out


def softmax(x, dim=-1, *, out_dtype=None, target=None):
    """softmax over the last dimension (f32 accumulation)."""
    return _row("softmax", x, dim=dim, out_dtype=out_dtype, target=target)


def rms_norm(x, weight, eps=1e-6, *, out_dtype=None, target=None):
    """x / sqrt(mean(x^2) + eps) * weight, per row."""
    return _row("rms_norm", x, weight=weight, eps=eps, out_dtype=out_dtype,
                target=target)


def layer_norm(x, weight, bias=None, eps=1e-5, *, out_dtype=None,
               target=None):
    """(x - mean) / sqrt(var + eps) * weight (+ bias), per row."""
    return _row("layer_norm", x, weight=weight, bias=bias, eps=eps,
                out_dtype=out_dtype, target=target)


def row_sum(x, dim=-1, *, out_dtype=None, target=None):
    return _row("sum", x, dim=dim, out_dtype=out_dtype, target=target)


def row_max(x, dim=-1, *, out_dtype=None, target=None):
    return _row("max", x, dim=dim, out_dtype=out_dtype, target=target)


def row_mean(x, dim=-1, *, out_dtype=None, target=None):
    return _row("mean", x, dim=dim, out_dtype=out_dtype, target=target)


def decode_attention_source(m, heads, kv_heads, d, cache, elem, out_elem,
                            scale=None, append=False, rotary_elem=None):
    """The MLIR of decode attention as a one-step amk.graph: q [m, heads *
    d], the new keys and values [m, kv_heads * d], caches [m, cache,
    kv_heads, d] (graph outputs when `append` writes the new token into
    them), lengths [m] of i32, o [m, heads * d]; with `rotary_elem`, cos
    and sin tables [cache + 1, d] of that type rotate q and the keys."""
    if min(m, heads, kv_heads, d, cache) < 1 or heads % kv_heads:
        raise ValueError(f"amk.ops.decode_attention: {heads} query heads of "
                         f"{d} on {kv_heads} key/value heads, {m} sequences "
                         f"and caches of {cache}: every size must be "
                         f"positive and kv_heads must divide heads")
    q, kv = _memref(elem, m, heads * d), _memref(elem, m, kv_heads * d)
    c, n, o = _memref(elem, m, cache, kv_heads, d), _memref("i32", m), \
        _memref(out_elem, m, heads * d)
    ins = [("q", q), ("k", kv), ("v", kv)]
    outs = [("o", o)]
    (outs if append else ins).extend([("kc", c), ("vc", c)])
    ins.append(("len", n))
    table = _memref(rotary_elem, cache + 1, d) if rotary_elem else None
    if table:
        ins += [("cos", table), ("sin", table)]
    attrs = [f"heads = {heads}", f"kv_heads = {kv_heads}"]
    if scale is not None:
        attrs.append(f"scale = {float(scale):.9e}")
    if append:
        attrs.append("append")
    args = ", ".join(f"%{a}: {ty}" for a, ty in ins + outs)
    body = ", ".join(f"%{a}a: {ty}" for a, ty in ins + outs)
    names = lambda group: ", ".join(f"%{a}" for a, _ in group)
    types = lambda group: ", ".join(ty for _, ty in group)
    return (f"func.func @amk_decode_attention({args}) {{\n"
            f"  amk.graph ins({names(ins)} : {types(ins)}) "
            f"outs({names(outs)} : {types(outs)}) {{\n"
            f"  ^bb0({body}):\n"
            f"    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) "
            f"lengths(%lena){' rotary(%cosa, %sina)' if table else ''} "
            f"into %oa {{{', '.join(attrs)}}} : "
            f"{q}, {kv}, {kv}, {c}, {c}, {n}"
            f"{f', {table}, {table}' if table else ''}, {o}\n"
            f"  }}\n  return\n}}\n")


def decode_attention(q, k, v, key_cache, value_cache, lengths, *, scale=None,
                     append=False, cos=None, sin=None, out_dtype=None,
                     target=None):
    """Attention of one new token per sequence over its KV cache:
    q [M, heads, D], k and v [M, kv_heads, D] (the new token's), the caches
    [M, L, kv_heads, D] holding positions 0 .. lengths[m] - 1 (lengths: int32
    [M], clamped to [0, L]); the new token is position lengths[m]. Returns
    o [M, heads, D]. With `append`, k and v are also written into the
    caches at that position where it is below L (in place). With `cos` and
    `sin` ([L + 1, D], float32 or q's dtype), q and k are first rotated at
    that position (Llama's rotate-half); the caches hold rotated keys."""
    import torch

    tensors = {"q": q, "k": k, "v": v, "key_cache": key_cache,
               "value_cache": value_cache, "lengths": lengths}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"amk.ops.decode_attention: {name} must be a "
                            f"torch tensor")
        if t.device.type != "cuda" or not t.is_contiguous():
            raise ValueError(f"amk.ops.decode_attention: {name} must be a "
                             f"contiguous CUDA tensor")
    if q.dim() != 3 or key_cache.dim() != 4:
        raise ValueError("amk.ops.decode_attention: q must be [M, heads, D] "
                         "and the caches [M, L, kv_heads, D]")
    m, heads, d = q.shape
    cache, kv_heads = key_cache.shape[1], key_cache.shape[2]
    want = {"k": (m, kv_heads, d), "v": (m, kv_heads, d),
            "key_cache": (m, cache, kv_heads, d),
            "value_cache": (m, cache, kv_heads, d), "lengths": (m,)}
    for name, shape in want.items():
        if tuple(tensors[name].shape) != shape:
            raise ValueError(f"amk.ops.decode_attention: {name} must be "
                             f"{list(shape)} (q is {list(q.shape)}), got "
                             f"{list(tensors[name].shape)}")
    if lengths.dtype != torch.int32:
        raise TypeError("amk.ops.decode_attention: lengths must be int32")
    elem = _elem(q.dtype, "q", "decode_attention")
    for name in ("k", "v", "key_cache", "value_cache"):
        if tensors[name].dtype != q.dtype:
            raise TypeError(f"amk.ops.decode_attention: {name} must be "
                            f"{q.dtype} like q")
    out_dtype = out_dtype or q.dtype
    out_elem = _elem(out_dtype, "out_dtype", "decode_attention")
    if (cos is None) != (sin is None):
        raise ValueError("amk.ops.decode_attention: rotary takes both cos "
                         "and sin")
    tables = [] if cos is None else [cos, sin]
    for name, t in zip(("cos", "sin"), tables):
        if (not isinstance(t, torch.Tensor) or t.device.type != "cuda" or
                not t.is_contiguous() or tuple(t.shape) != (cache + 1, d) or
                t.dtype not in (torch.float32, q.dtype)):
            raise ValueError(f"amk.ops.decode_attention: {name} must be a "
                             f"contiguous CUDA tensor [{cache + 1}, {d}] of "
                             f"float32 or {q.dtype}")
    rotary_elem = _elem(cos.dtype, "cos", "decode_attention") if tables \
        else None
    source = decode_attention_source(m, heads, kv_heads, d, cache, elem,
                                     out_elem, scale, append, rotary_elem)
    kernel = _kernel(source, target or _device_target(q), "exact",
                     "sequence count")
    # The graph's activations are [M, heads * D] (free views here).
    o = torch.empty(m, heads * d, dtype=out_dtype, device=q.device)
    rows = [t.view(m, -1) for t in (q, k, v)]
    if append:
        kernel(*rows, lengths, *tables, o, key_cache, value_cache)
    else:
        kernel(*rows, key_cache, value_cache, lengths, *tables, o)
    return o.view(m, heads, d)


def mlp_source(m, hidden, inner, out, elem, activation="gelu"):
    """The MLIR of the decode MLP y = act(x W1^T) W2^T as a two-step
    amk.graph: x [m, hidden], W1 [inner, hidden], W2 [out, inner] (torch's
    Linear weights), y [m, out], the activation kept in a graph buffer."""
    if min(m, hidden, inner, out) < 1:
        raise ValueError(f"amk.ops.mlp: sizes must be positive, got x "
                         f"[{m}, {hidden}], W1 [{inner}, {hidden}], W2 "
                         f"[{out}, {inner}]")
    _check_activation(activation, "mlp")
    x, w1, w2, h, y = (_memref(elem, m, hidden), _memref(elem, inner, hidden),
                       _memref(elem, out, inner), _memref(elem, m, inner),
                       _memref(elem, m, out))
    act = (f", activation = #amk.activation<{activation}>"
           if activation else "")
    return (f"func.func @amk_mlp(%x: {x}, %w1: {w1}, %w2: {w2}, %y: {y}) {{\n"
            f"  amk.graph ins(%x, %w1, %w2 : {x}, {w1}, {w2}) "
            f"outs(%y : {y}) {{\n"
            f"  ^bb0(%xa: {x}, %w1a: {w1}, %w2a: {w2}, %ya: {y}):\n"
            f"    %h = amk.graph_buffer : {h}\n"
            f"    amk.matmul %xa, %w1a into %h {{transpose_b{act}}} : "
            f"{x}, {w1}, {h}\n"
            f"    amk.matmul %h, %w2a into %ya {{transpose_b}} : "
            f"{h}, {w2}, {y}\n"
            f"  }}\n  return\n}}\n")


def mlp(x, w1, w2, *, activation="gelu", target=None):
    """The decode MLP y = act(x W1^T) W2^T in one persistent kernel (a
    megakernel: the activation never leaves the GPU's caches between the
    products): x [M, H] with M <= 32 rows, W1 [F, H] and W2 [H2, F] as
    torch's Linear weights, one dtype (float16, bfloat16 or float32);
    activation "gelu", "silu", "relu" or None. Returns y [M, H2]."""
    import torch

    for name, t in (("x", x), ("w1", w1), ("w2", w2)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"amk.ops.mlp: {name} must be a torch tensor")
        if t.device.type != "cuda" or not t.is_contiguous() or t.dim() != 2:
            raise ValueError(f"amk.ops.mlp: {name} must be a contiguous 2-D "
                             f"CUDA tensor, got shape {tuple(t.shape)}")
        if t.dtype != x.dtype:
            raise TypeError(f"amk.ops.mlp: {name} is {t.dtype}, x is "
                            f"{x.dtype}: one dtype for all three")
    (m, hidden), (inner, k1), (out, k2) = x.shape, w1.shape, w2.shape
    if k1 != hidden or k2 != inner:
        raise ValueError(f"amk.ops.mlp: x {list(x.shape)}, w1 "
                         f"{list(w1.shape)} and w2 {list(w2.shape)} do not "
                         f"chain (w1 is [F, H], w2 [H2, F])")
    source = mlp_source(m, hidden, inner, out, _elem(x.dtype, "x", "mlp"),
                        activation)
    kernel = _kernel(source, target or _device_target(x), "exact",
                     "row count")
    y = torch.empty(m, out, dtype=x.dtype, device=x.device)
    kernel(x, w1, w2, y)
    return y


def _register_torch_ops(torch):
    """torch.ops.amk.matmul: the real implementation and a fake one (shape
    and dtype only), so that torch.compile traces through it."""
    from typing import Optional

    @torch.library.custom_op("amk::matmul", mutates_args=())
    def _op(a: torch.Tensor, b: torch.Tensor, bias: Optional[torch.Tensor],
            activation: str, alpha: float, out_dtype: Optional[torch.dtype],
            allow_tf32: bool, target: str) -> torch.Tensor:
        return _matmul_eager(a, b, bias, activation or None, alpha, out_dtype,
                             allow_tf32, target)

    @_op.register_fake
    def _(a, b, bias, activation, alpha, out_dtype, allow_tf32, target):
        if (a.dim() not in (2, 3) or b.dim() not in (2, a.dim()) or
                a.shape[-1] != b.shape[-2] or
                (b.dim() == 3 and b.shape[0] != a.shape[0])):
            raise ValueError(f"amk.ops.matmul: a is {tuple(a.shape)} but b is "
                             f"{tuple(b.shape)}")
        return a.new_empty(tuple(a.shape[:-1]) + (b.shape[-1],),
                           dtype=out_dtype or a.dtype)


try:
    import torch as _torch
except ImportError:  # the CPU-only parts work without torch
    _torch = None
if _torch is not None:
    _register_torch_ops(_torch)

