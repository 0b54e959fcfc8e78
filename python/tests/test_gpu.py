"""amk.ops and amk.Kernel on a GPU, against torch (marked gpu: run on the
device, skipped elsewhere)."""

import os

import pytest

import amk

pytestmark = pytest.mark.gpu


def torch_ref(a, b, bias=None, activation=None, alpha=1.0):
    import torch
    y = alpha * (a.double() @ b.double())
    if bias is not None:
        y = y + bias.double()
    if activation == "gelu":
        y = torch.nn.functional.gelu(y)
    elif activation == "relu":
        y = torch.relu(y)
    elif activation == "silu":
        y = torch.nn.functional.silu(y)
    return y


def close(out, ref, k):
    """Within a K-scaled bound of the fp64 reference (16-bit rounding)."""
    err = (out.double() - ref).abs().max().item()
    scale = ref.abs().max().item() + 1
    return err <= scale * (8e-3 if out.dtype != ref.dtype else 1e-6)


SHAPES = [(1, 4096, 4096), (77, 129, 65), (256, 1024, 512), (1000, 1000, 1000),
          (128, 192, 4096)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("layout", ["nn", "nt"])
def test_matmul_against_torch(m, n, k, dtype, layout):
    import torch
    torch.manual_seed(m * 31 + n)
    dt = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda", dtype=dt)
    w = torch.randn(n, k, device="cuda", dtype=dt)
    b = w.t() if layout == "nt" else w.t().contiguous()
    out = amk.ops.matmul(a, b)
    assert out.shape == (m, n) and out.dtype == dt
    assert close(out, torch_ref(a, b), k)


def test_matmul_epilogue_and_kernel_object():
    import torch
    a = torch.randn(300, 512, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(768, 512, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(768, device="cuda", dtype=torch.bfloat16)
    out = amk.ops.matmul(a, w.t(), bias=bias, activation="gelu", alpha=0.5)
    assert close(out, torch_ref(a, w.t(), bias, "gelu", 0.5), 512)
    k = amk.ops.matmul_kernel(a, w.t(), bias=bias, activation="gelu",
                              alpha=0.5)
    assert "remark: planned" in k.explain() and k.ptx


def test_a_last_split_launches_again_and_again():
    """Decode on Hopper plans split-K summed by the last split to arrive,
    whose tile counters no launch zeroes (the last arrival resets its
    tile's): every launch gives the first one's result."""
    import torch
    torch.manual_seed(16)
    a = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    first = amk.ops.matmul(a, w.t())
    assert close(first, torch_ref(a, w.t()), 4096)
    if torch.cuda.get_device_capability() == (9, 0):
        assert "split_reduce = last" in amk.ops.matmul_kernel(a, w.t()).config
    for _ in range(5):
        assert torch.equal(amk.ops.matmul(a, w.t()), first)


def test_matmul_under_a_cuda_graph():
    import torch
    a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    b = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    amk.ops.matmul(a, b)  # compile and load outside the capture
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        with torch.cuda.graph(g):
            out = amk.ops.matmul(a, b)
    a.copy_(torch.randn_like(a))
    g.replay()
    torch.cuda.synchronize()
    assert close(out, torch_ref(a, b), 256)


def test_bad_operands_raise():
    import torch
    a = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="a is 64x32 but b is 16x8"):
        amk.ops.matmul(a, torch.randn(16, 8, device="cuda",
                                      dtype=torch.float16))
    with pytest.raises(TypeError, match="a is torch.float16 but b is"):
        amk.ops.matmul(a, torch.randn(32, 8, device="cuda"))
    with pytest.raises(ValueError, match="must be contiguous or the "
                                         "transpose"):
        amk.ops.matmul(a, torch.randn(32, 16, device="cuda",
                                      dtype=torch.float16)[:, ::2])
    with pytest.raises(TypeError, match="AMK takes"):
        amk.ops.matmul(a.double(), torch.randn(32, 8, device="cuda").double())


def test_matmul_under_torch_compile():
    import torch
    w = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(256, device="cuda", dtype=torch.bfloat16)

    def block(x):
        return amk.ops.matmul(x, w.t(), bias=bias, activation="silu") * 2

    compiled = torch.compile(block, fullgraph=True)
    x = torch.randn(64, 512, device="cuda", dtype=torch.bfloat16)
    out = compiled(x)
    assert torch.equal(out, block(x))
    assert close(out / 2, torch_ref(x, w.t(), bias, "silu"), 512)
    # The custom op has a schema and a fake implementation.
    torch.library.opcheck(torch.ops.amk.matmul.default,
                          (x, w.t(), bias, "silu", 1.0, None, False, "h200"))


def test_target_from_device():
    import torch
    target = amk.target.from_device()
    assert amk.Target.from_device() == target
    props = torch.cuda.get_device_properties(0)
    # The device's own JSON (amk-device-info), or its preset.
    if target.endswith(".json"):
        import json
        desc = json.load(open(target))
        assert desc["sm_count"] == props.multi_processor_count
    else:
        assert target == amk.target.preset_for(props.name)


@pytest.mark.parametrize("shape", [(7, 1000), (2, 33, 4096), (1, 100003),
                                   (64, 100000)])
def test_row_ops_against_torch(shape):
    import torch
    x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(shape[-1], device="cuda", dtype=torch.bfloat16)
    b = torch.randn(shape[-1], device="cuda", dtype=torch.bfloat16)
    xd = x.double()
    ref = torch.softmax(xd, dim=-1)
    assert (amk.ops.softmax(x).double() - ref).abs().max() <= 1e-2
    rms = xd * torch.rsqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * w.double()
    assert close(amk.ops.rms_norm(x, w), rms, shape[-1])
    ln = torch.nn.functional.layer_norm(xd, (shape[-1],), w.double(),
                                        b.double(), 1e-5)
    assert close(amk.ops.layer_norm(x, w, b), ln, shape[-1])
    assert close(amk.ops.row_sum(x, out_dtype=torch.float32), xd.sum(-1),
                 shape[-1])
    assert torch.equal(amk.ops.row_max(x), x.max(-1).values)
    with pytest.raises(ValueError, match="last dimension only"):
        amk.ops.softmax(x, dim=0)



@pytest.fixture
def dynamic_policy():
    amk.ops.set_shape_policy("dynamic")
    yield
    amk.ops.set_shape_policy("exact")


def test_dynamic_policy_serves_every_row_count(dynamic_policy):
    """One kernel per (N, K, dtype, layout) under the dynamic policy, right
    at every M (one row, edges of tiles, a long M), under a CUDA graph too."""
    import torch
    torch.manual_seed(5)
    w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)
    kernels = set()
    for m in (1, 63, 64, 65, 777, 4096):
        x = torch.randn(m, 512, device="cuda", dtype=torch.bfloat16)
        out = amk.ops.matmul(x, w.t())
        assert close(out, torch_ref(x, w.t()), 512), m
        kernels.add(amk.ops.matmul_kernel(x, w.t()).path)
    assert len(kernels) == 1
    k = amk.ops.matmul_kernel(x, w.t())
    assert k.manifest["sizes"]["M"] == -1
    assert k.explain().startswith("amk.ops shape policy: dynamic: M chosen")
    x = torch.randn(100, 512, device="cuda", dtype=torch.bfloat16)
    amk.ops.matmul(x, w.t())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = amk.ops.matmul(x, w.t())
    x.copy_(torch.randn_like(x))
    g.replay()
    torch.cuda.synchronize()
    assert close(out, torch_ref(x, w.t()), 512)
    # Row ops: every leading dimension left to the launch.
    for shape in ((3, 1000), (2, 17, 1000)):
        v = torch.randn(*shape, device="cuda", dtype=torch.float32)
        ref = torch.softmax(v.double(), dim=-1)
        assert (amk.ops.softmax(v).double() - ref).abs().max() <= 1e-5


@pytest.mark.parametrize("layout", ["nn", "nt"])
@pytest.mark.parametrize("b_,m,n,k", [(4, 128, 256, 64), (3, 77, 129, 65),
                                       (2, 1, 4096, 512)])
def test_batched_matmul_against_torch(layout, b_, m, n, k):
    """Both operands batched (B as stored or transposed), with a bias per
    column; and a batched x against one weight, as torch.matmul takes them."""
    import torch
    torch.manual_seed(b_ * 7 + m)
    x = torch.randn(b_, m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(b_, n, k, device="cuda", dtype=torch.bfloat16)
    y = w.transpose(1, 2) if layout == "nt" else w.transpose(1, 2).contiguous()
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    for _ in range(2):  # the first call checks everything, the second not
        out = amk.ops.matmul(x, y, bias=bias)
        assert out.shape == (b_, m, n)
        assert close(out, torch_ref(x, y, bias), k)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    shared = w[0].t()
    out = amk.ops.matmul(x, shared, activation="relu")
    assert out.shape == (b_, m, n)
    assert close(out, torch_ref(x, shared, None, "relu"), k)
    other = torch.randn(b_ + 1, k, n, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=f"has {b_} matrices but b has"):
        amk.ops.matmul(x, other)


def test_strided_bias_on_cached_calls():
    """A bias that is a strided view is passed as a contiguous copy on the
    first and on every later (cached) call."""
    import torch
    a = torch.randn(96, 128, device="cuda", dtype=torch.float16)
    w = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    for _ in range(3):
        bias = torch.randn(512, device="cuda", dtype=torch.float16)[::2]
        out = amk.ops.matmul(a, w.t(), bias=bias)
        assert close(out, torch_ref(a, w.t(), bias), 128)


def compiled_mlp():
    """test_compile's decode MLP compiled for this GPU, and its tensors
    (x, w1, w2, y)."""
    import torch
    from test_compile import MLP
    k = amk.compile(MLP, amk.target.from_device())
    torch.manual_seed(0)
    x = torch.randn(2, 256, device="cuda").bfloat16()
    w1 = (torch.randn(1000, 256, device="cuda") / 16).bfloat16()
    w2 = (torch.randn(256, 1000, device="cuda") / 32).bfloat16()
    y = torch.empty(2, 256, device="cuda", dtype=torch.bfloat16)
    return k, (x, w1, w2, y)


def check_mlp_launches(k, x, w1, w2, y):
    """Launches the decode MLP kernel `k` three times (the counters start
    from zero at every launch) and checks y against Linear-GELU-Linear in
    fp64 with the activation rounded to bf16."""
    import torch
    for _ in range(3):
        k(x, w1, w2, y)
    torch.cuda.synchronize()
    h = torch.nn.functional.gelu(x.double() @ w1.double().t()).bfloat16()
    ref = h.double() @ w2.double().t()
    assert (y.double() - ref).abs().max().item() <= 0.02 * ref.abs().max().item()


def test_a_megakernel_runs_the_decode_mlp():
    """amk.compile of an amk.graph, launched on torch tensors: one
    cooperative kernel, against torch's Linear-GELU-Linear in fp64."""
    k, tensors = compiled_mlp()
    check_mlp_launches(k, *tensors)


def test_a_megakernel_runs_a_llama_block():
    """The Llama-style MLP block (RMSNorm, gate with SiLU, up, their
    product, down, the residual add) as one kernel, against the same ops
    in fp64 with the intermediates rounded to bf16 as the graph states."""
    import torch
    import torch.nn.functional as F
    from test_compile import BLOCK
    k = amk.compile(BLOCK, amk.target.from_device())
    torch.manual_seed(0)
    x = torch.randn(3, 256, device="cuda").bfloat16()
    g = (1 + torch.randn(256, device="cuda") / 4).bfloat16()
    wg, wu = [(torch.randn(640, 256, device="cuda") / 16).bfloat16()
              for _ in range(2)]
    wd = (torch.randn(256, 640, device="cuda") / 25).bfloat16()
    y = torch.empty(3, 256, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):  # the counters start from zero at every launch
        k(x, g, wg, wu, wd, y)
    torch.cuda.synchronize()
    d = lambda t: t.double()
    r = lambda t: t.bfloat16().double()
    xd = d(x)
    n = r(xd / (xd.pow(2).mean(-1, keepdim=True) + 1e-6).sqrt() * d(g))
    h = r(r(F.silu(n @ d(wg).t())) * r(n @ d(wu).t()))
    ref = xd + r(h @ d(wd).t())
    err = (d(y) - ref).abs().max().item()
    assert err <= 0.02 * ref.abs().max().item(), err



def test_a_function_of_steps_runs_as_one_megakernel():
    """amk.compile(form_graph=True) of a function of two products through
    an allocated buffer (as another compiler writes it): one kernel,
    against Linear-GELU-Linear in fp64 with the buffer rounded to bf16."""
    import torch
    from test_compile import MLP_FUNCTION
    k = amk.compile(MLP_FUNCTION, amk.target.from_device(), form_graph=True)
    assert k.manifest["problem"]["family"] == "graph"
    torch.manual_seed(1)
    x = torch.randn(1, 256, device="cuda").bfloat16()
    w1 = (torch.randn(512, 256, device="cuda") / 16).bfloat16()
    w2 = (torch.randn(256, 512, device="cuda") / 22).bfloat16()
    y = torch.empty(1, 256, device="cuda", dtype=torch.bfloat16)
    check_mlp_launches(k, x, w1, w2, y)


@pytest.mark.parametrize("m,dtype,act", [(1, "bfloat16", "gelu"),
                                         (7, "float16", "silu"),
                                         (3, "float32", None)])
def test_ops_mlp_matches_torch(m, dtype, act):
    """amk.ops.mlp on torch tensors: one megakernel, against Linear-act-
    Linear in fp64 with the activation rounded to the dtype."""
    import torch
    import torch.nn.functional as F
    dt = getattr(torch, dtype)
    torch.manual_seed(m)
    x = torch.randn(m, 512, device="cuda").to(dt)
    w1 = (torch.randn(1000, 512, device="cuda") / 22).to(dt)
    w2 = (torch.randn(384, 1000, device="cuda") / 32).to(dt)
    y = amk.ops.mlp(x, w1, w2, activation=act)
    assert y.shape == (m, 384) and y.dtype == dt
    h = x.double() @ w1.double().t()
    h = {"gelu": F.gelu, "silu": F.silu, None: lambda t: t}[act](h).to(dt)
    ref = h.double() @ w2.double().t()
    err = (y.double() - ref).abs().max().item()
    assert err <= 0.02 * ref.abs().max().item(), err
    # Shapes that do not chain, and mixed dtypes, are refused.
    with pytest.raises(ValueError, match="do not chain"):
        amk.ops.mlp(x, w1, w1)
    with pytest.raises(TypeError, match="one dtype"):
        amk.ops.mlp(x, w1.double(), w2)


def test_a_bound_launch_repeats_the_launch():
    """runtime.Bundle.bind: the launch's ctypes arguments built once, the
    same result as the kernel's own launch, again and again."""
    import torch
    from amk import runtime
    k, (x, w1, w2, y) = compiled_mlp()
    k(x, w1, w2, y)
    first = y.clone()
    y.fill_(float("nan"))
    pointers, sizes = k.bind([x, w1, w2, y])
    run = runtime.Bundle(k.path).bind(
        pointers, sizes, torch.cuda.current_stream().cuda_stream)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    assert torch.equal(y, first)


def _check_attention(o, q, kn, vn, kc, vc, lengths):
    """o of test_compile's ATTENTION graphs (3 sequences, 4 heads of 32 on
    2 key/value heads) against attention in fp64 over each sequence's
    cached positions (`kc`, `vc` as they were before the launch) and its
    new token."""
    import torch
    for m, n in enumerate(lengths):
        keys = torch.cat([kc[m, :n], kn[m].view(1, 2, 32)]).double()
        values = torch.cat([vc[m, :n], vn[m].view(1, 2, 32)]).double()
        for h in range(4):
            scores = keys[:, h // 2] @ q[m, 32 * h:32 * h + 32].double()
            ref = torch.softmax(scores / 32 ** 0.5, 0) @ values[:, h // 2]
            got = o[m, 32 * h:32 * h + 32].double()
            assert (got - ref).abs().max().item() <= 4e-3, (m, h)


def test_a_megakernel_runs_decode_attention():
    """Decode attention over f16 KV caches on torch tensors, the lengths
    ragged and out of range (clamped to [0, L]), against the same
    attention in fp64 over each sequence's cached positions and its new
    token."""
    import torch
    from test_compile import ATTENTION
    k = amk.compile(ATTENTION, amk.target.from_device())
    torch.manual_seed(0)
    rand = lambda *shape: torch.randn(*shape, device="cuda").half()
    q, kn, vn = rand(3, 128), rand(3, 64), rand(3, 64)
    kc, vc = rand(3, 9, 2, 32), rand(3, 9, 2, 32)
    lengths = torch.tensor([4, 12, -1], device="cuda", dtype=torch.int32)
    o = torch.empty(3, 128, device="cuda", dtype=torch.float16)
    for _ in range(2):
        k(q, kn, vn, kc, vc, lengths, o)
    torch.cuda.synchronize()
    _check_attention(o, q, kn, vn, kc, vc, [4, 9, 0])


def test_an_appending_attention_writes_the_new_token_into_its_caches():
    """With `append`: the same attention, then k and v at position n_m of
    each cache with room (a full cache and every other position keep their
    values)."""
    import torch
    from test_compile import APPENDING_ATTENTION
    k = amk.compile(APPENDING_ATTENTION, amk.target.from_device())
    torch.manual_seed(1)
    rand = lambda *shape: torch.randn(*shape, device="cuda").half()
    q, kn, vn = rand(3, 128), rand(3, 64), rand(3, 64)
    kc, vc = rand(3, 9, 2, 32), rand(3, 9, 2, 32)
    kc0, vc0 = kc.clone(), vc.clone()
    lengths = torch.tensor([4, 9, 0], device="cuda", dtype=torch.int32)
    o = torch.empty(3, 128, device="cuda", dtype=torch.float16)
    k(q, kn, vn, lengths, o, kc, vc)
    torch.cuda.synchronize()
    _check_attention(o, q, kn, vn, kc0, vc0, [4, 9, 0])
    expect_k, expect_v = kc0.clone(), vc0.clone()
    for m, n in enumerate([4, 9, 0]):
        if n < 9:
            expect_k[m, n] = kn[m].view(2, 32)
            expect_v[m, n] = vn[m].view(2, 32)
    assert torch.equal(kc, expect_k) and torch.equal(vc, expect_v)


def test_ops_decode_attention_matches_sdpa_and_appends():
    """amk.ops.decode_attention on torch tensors in the usual decode layout
    (q [M, heads, D], caches [M, L, kv_heads, D]): the output against
    torch's SDPA over each sequence's positions and new token (grouped
    query heads), and with append=True the new token in the caches."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(2)
    m, heads, kv_heads, d, length = 3, 8, 2, 64, 40
    rand = lambda *shape: torch.randn(*shape, device="cuda").bfloat16()
    q, kn, vn = rand(m, heads, d), rand(m, kv_heads, d), rand(m, kv_heads, d)
    kc, vc = rand(m, length, kv_heads, d), rand(m, length, kv_heads, d)
    n = [7, 40, 0]
    lengths = torch.tensor(n, device="cuda", dtype=torch.int32)
    refs = []
    for i in range(m):
        keys = torch.cat([kc[i, :n[i]], kn[i:i + 1]]).float()
        values = torch.cat([vc[i, :n[i]], vn[i:i + 1]]).float()
        group = heads // kv_heads
        refs.append(F.scaled_dot_product_attention(
            q[i].float()[:, None], keys.transpose(0, 1).repeat_interleave(
                group, 0), values.transpose(0, 1).repeat_interleave(group, 0))
            [:, 0])
    ref = torch.stack(refs)
    o = amk.ops.decode_attention(q, kn, vn, kc, vc, lengths,
                                 out_dtype=torch.float32)
    assert (o - ref).abs().max().item() <= 2e-3
    before_k, before_v = kc.clone(), vc.clone()
    o2 = amk.ops.decode_attention(q, kn, vn, kc, vc, lengths, append=True)
    assert (o2.float() - ref).abs().max().item() <= 2e-2
    for i in range(m):
        if n[i] < length:
            before_k[i, n[i]], before_v[i, n[i]] = kn[i], vn[i]
    assert torch.equal(kc, before_k) and torch.equal(vc, before_v)


def test_ops_decode_attention_rotates_q_and_the_keys():
    """With cos and sin tables (Llama's, theta 10000), q and the new key
    are rotated at each sequence's position before attention, and the
    cache receives the rotated key: against the same in float32."""
    import torch
    import torch.nn.functional as F
    torch.manual_seed(3)
    m, heads, kv_heads, d, length = 2, 4, 2, 64, 16
    rand = lambda *shape: torch.randn(*shape, device="cuda").bfloat16()
    q, kn, vn = rand(m, heads, d), rand(m, kv_heads, d), rand(m, kv_heads, d)
    kc, vc = rand(m, length, kv_heads, d), rand(m, length, kv_heads, d)
    n = [5, 16]
    lengths = torch.tensor(n, device="cuda", dtype=torch.int32)
    theta = 10000.0 ** (-torch.arange(0, d // 2, device="cuda") * 2 / d)
    angles = torch.arange(length + 1, device="cuda")[:, None] * theta
    angles = torch.cat([angles, angles], -1)
    cos, sin = angles.cos(), angles.sin()
    half = lambda x: torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
    rot = lambda x, p: x.float() * cos[p] + half(x.float()) * sin[p]
    before = kc.clone()
    o = amk.ops.decode_attention(q, kn, vn, kc, vc, lengths, append=True,
                                 cos=cos, sin=sin, out_dtype=torch.float32)
    for i in range(m):
        qr, kr = rot(q[i], n[i]), rot(kn[i], n[i])
        keys = torch.cat([before[i, :n[i]].float(), kr[None]])
        values = torch.cat([vc[i, :n[i]], vn[i:i + 1]]).float()
        ref = F.scaled_dot_product_attention(
            qr[:, None], keys.transpose(0, 1).repeat_interleave(2, 0),
            values.transpose(0, 1).repeat_interleave(2, 0))[:, 0]
        assert (o[i] - ref).abs().max().item() <= 2e-3, i
        if n[i] < length:
            assert (kc[i, n[i]].float() - kr).abs().max().item() <= 2e-2
