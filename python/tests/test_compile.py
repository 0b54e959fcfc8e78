"""amk.compile on the CPU: a kernel object from MLIR, its decision, its
manifest and PTX, the cache, and what AMK refuses."""

import os

import pytest

import amk
from amk.ops import matmul_source, row_source


def test_compile_gives_a_verified_kernel(cache):
    k = amk.compile(matmul_source(1024, 512, 256, "bf16", "bf16",
                                  transpose_b=True), "h200", cache_dir=cache)
    assert k.args == ["A", "B", "C"]
    assert k.manifest["problem"]["family"] == "gemm"
    assert k.verdict["status"] == "verified"
    # An sm_90a target plans the TMA + wgmma path for B as [N, K].
    assert "math = wgmma" in k.config
    assert "remark: planned gemm_1024x512x256_bf16_f32_bf16_nt" in k.explain()
    assert "<amk.compile>" in k.explain()
    assert ".entry gemm_1024x512x256_bf16_f32_bf16_nt" in k.ptx
    assert k.predicted_us > 0 and len(k.cache_key) == 64


def test_other_targets_plan_other_kernels(cache):
    src = matmul_source(1024, 512, 256, "bf16", "bf16", transpose_b=True)
    a100 = amk.compile(src, "a100", cache_dir=cache)
    assert "math = mma_sync" in a100.config
    assert a100.manifest["arch"] == "sm_80"


def test_the_cache_returns_the_same_bundle(cache):
    src = matmul_source(128, 128, 64, "f16", "f32")
    first = amk.compile(src, cache_dir=cache)
    again = amk.compile(src, cache_dir=cache)
    assert first.path == again.path
    assert os.path.isfile(first.path)


def test_refusals_raise_with_diagnostics(cache):
    with pytest.raises(amk.AmkError, match="unknown target 'mi300'"):
        amk.compile(matmul_source(64, 64, 64, "f16", "f16"), "mi300",
                    cache_dir=cache)
    with pytest.raises(amk.AmkError, match="<amk.compile>:1:"):
        amk.compile("func.func @f( {", cache_dir=cache)
    with pytest.raises(amk.AmkError, match="expected one problem op"):
        amk.compile("func.func @f() {\n  return\n}\n", cache_dir=cache)
    with pytest.raises(TypeError):
        amk.compile(b"bytes", cache_dir=cache)


def test_bind_checks_buffers_without_a_gpu(cache):
    k = amk.compile(matmul_source(64, 32, 16, "f32", "f32"), cache_dir=cache)
    with pytest.raises(ValueError, match="takes 3 buffers"):
        k.bind([1, 2])
    # Raw device pointers bind as they are.
    assert k.bind([1 << 20, 2 << 20, 3 << 20]) == (
        [1 << 20, 2 << 20, 3 << 20], {})


def test_matmul_source_spells_the_problem():
    src = matmul_source(8, 16, 32, "bf16", "f32", transpose_a=True,
                        transpose_b=True, bias=True, activation="gelu",
                        alpha=0.5)
    assert "%a: memref<32x8xbf16>, %b: memref<16x32xbf16>" in src
    assert "bias(%bias)" in src and "memref<16xf32>" in src
    assert ("{transpose_a, transpose_b, activation = #amk.activation<gelu>, "
            "alpha = 0.5 : f64}") in src
    with pytest.raises(ValueError, match="activation must be one of"):
        matmul_source(8, 8, 8, "f16", "f16", activation="tanh")


def test_row_ops_compile(cache):
    k = amk.compile(row_source("softmax", (3, 100, 1000), "bf16", "bf16"),
                    "h200", cache_dir=cache)
    assert k.manifest["problem"]["family"] == "row_reduce"
    assert k.args == ["x", "y"] and "#amk.row_config" in k.config
    norm = row_source("layer_norm", (64, 4096), "f16", "f16", weight=True,
                      bias=True, eps=1e-5)
    assert "weight(%w) bias(%b)" in norm and "eps = 1.000000e-05" in norm
    amk.compile(norm, "h200", cache_dir=cache)
    with pytest.raises(ValueError, match="row op must be one of"):
        row_source("median", (4, 4), "f32", "f32")
    with pytest.raises(ValueError, match="2-D or 3-D"):
        row_source("sum", (4,), "f32", "f32")



class FakeTensor:
    """What Kernel.bind reads of a tensor, without torch."""

    class Device:
        type = "cuda"

    def __init__(self, shape, dtype="bfloat16", ptr=1 << 20, contiguous=True):
        self.shape, self.dtype, self._ptr = tuple(shape), f"torch.{dtype}", ptr
        self.device, self._contiguous = FakeTensor.Device(), contiguous

    def data_ptr(self):
        return self._ptr

    def is_contiguous(self):
        return self._contiguous

    def stride(self):
        return (1,) * len(self.shape)


def test_bind_infers_dynamic_sizes_and_checks_them(cache):
    src = ("func.func @dyn(%a: memref<?x256xbf16>, %b: memref<128x256xbf16>, "
           "%c: memref<?x128xbf16>) {\n"
           "  amk.matmul %a, %b into %c {transpose_b} : memref<?x256xbf16>, "
           "memref<128x256xbf16>, memref<?x128xbf16>\n  return\n}\n")
    k = amk.compile(src, "h200", cache_dir=cache)
    a, b, c = FakeTensor((77, 256)), FakeTensor((128, 256)), FakeTensor((77, 128))
    assert k.bind([a, b, c]) == ([1 << 20] * 3, {"M": 77})
    with pytest.raises(ValueError, match=r"dimension 0 \(M\) is 78, but "
                                         r"another buffer has M = 77"):
        k.bind([a, b, FakeTensor((78, 128))])
    with pytest.raises(ValueError, match="dimension 1 must be 256, got 255"):
        k.bind([FakeTensor((77, 255)), b, c])
    with pytest.raises(TypeError, match="must be bfloat16, got float16"):
        k.bind([a, FakeTensor((128, 256), "float16"), c])
    with pytest.raises(ValueError, match="must be contiguous"):
        k.bind([a, b, FakeTensor((77, 128), contiguous=False)])
    with pytest.raises(ValueError, match="no value for dynamic size"):
        k.bind([1 << 20, 2 << 20, 3 << 20])


def test_an_incomplete_cache_entry_is_replaced(cache):
    src = matmul_source(64, 64, 64, "f16", "f32")
    k = amk.compile(src, cache_dir=cache)
    entry = os.path.dirname(k.path)
    os.remove(os.path.join(entry, "explain.txt"))
    again = amk.compile(src, cache_dir=cache)
    assert again.path == k.path and "remark: planned" in again.explain()



def test_batched_sources_compile(cache):
    """A batch of products: every operand with the batch first, a bias per
    matrix; B as [B, N, K] or [B, K, N]."""
    for tb in (False, True):
        k = amk.compile(matmul_source(96, 64, 32, "bf16", "bf16",
                                      transpose_b=tb, bias=True, batch=3),
                        "h200", cache_dir=cache)
        assert k.manifest["sizes"]["B"] == 3
        assert k.manifest["problem"]["batched"] is True
        assert k.args == ["A", "B", "bias", "C"]
        assert k.verdict["status"] == "verified"


MLP = """
func.func @mlp(%x: memref<2x256xbf16>, %w1: memref<1000x256xbf16>, %w2: memref<256x1000xbf16>, %y: memref<2x256xbf16>) {
  amk.graph ins(%x, %w1, %w2 : memref<2x256xbf16>, memref<1000x256xbf16>, memref<256x1000xbf16>) outs(%y : memref<2x256xbf16>) {
  ^bb0(%xa: memref<2x256xbf16>, %w1a: memref<1000x256xbf16>, %w2a: memref<256x1000xbf16>, %ya: memref<2x256xbf16>):
    %h = amk.graph_buffer : memref<2x1000xbf16>
    amk.matmul %xa, %w1a into %h {transpose_b, activation = #amk.activation<gelu>} : memref<2x256xbf16>, memref<1000x256xbf16>, memref<2x1000xbf16>
    amk.matmul %h, %w2a into %ya {transpose_b} : memref<2x1000xbf16>, memref<256x1000xbf16>, memref<2x256xbf16>
  }
  return
}
"""


def test_a_graph_compiles_to_one_cooperative_kernel(cache):
    k = amk.compile(MLP, "h200", cache_dir=cache)
    assert k.args == ["in0", "in1", "in2", "out0"]
    assert k.manifest["family"] == "graph"
    assert k.verdict["status"] == "verified"
    (kernel,) = k.manifest["kernels"]
    assert kernel["cooperative"] is True
    assert [w["name"] for w in k.manifest["workspace"]] == ["buf0", "counters"]
    steps = k.manifest["problem"]["steps"]
    assert [s.get("a_step") for s in steps] == [None, 0]
    assert "#amk.graph_config<" in k.config


BLOCK = """
func.func @block(%x: memref<3x256xbf16>, %g: memref<256xbf16>, %wg: memref<640x256xbf16>, %wu: memref<640x256xbf16>, %wd: memref<256x640xbf16>, %y: memref<3x256xbf16>) {
  amk.graph ins(%x, %g, %wg, %wu, %wd : memref<3x256xbf16>, memref<256xbf16>, memref<640x256xbf16>, memref<640x256xbf16>, memref<256x640xbf16>) outs(%y : memref<3x256xbf16>) {
  ^bb0(%xa: memref<3x256xbf16>, %ga: memref<256xbf16>, %wga: memref<640x256xbf16>, %wua: memref<640x256xbf16>, %wda: memref<256x640xbf16>, %ya: memref<3x256xbf16>):
    %n = amk.graph_buffer : memref<3x256xbf16>
    %gate = amk.graph_buffer : memref<3x640xbf16>
    %up = amk.graph_buffer : memref<3x640xbf16>
    %h = amk.graph_buffer : memref<3x640xbf16>
    %down = amk.graph_buffer : memref<3x256xbf16>
    amk.row_reduce %xa weight(%ga) into %n {kind = #amk.row_op<rms_norm>, eps = 1.0e-6} : memref<3x256xbf16>, memref<256xbf16>, memref<3x256xbf16>
    amk.matmul %n, %wga into %gate {transpose_b, activation = #amk.activation<silu>} : memref<3x256xbf16>, memref<640x256xbf16>, memref<3x640xbf16>
    amk.matmul %n, %wua into %up {transpose_b} : memref<3x256xbf16>, memref<640x256xbf16>, memref<3x640xbf16>
    linalg.mul ins(%gate, %up : memref<3x640xbf16>, memref<3x640xbf16>) outs(%h : memref<3x640xbf16>)
    amk.matmul %h, %wda into %down {transpose_b} : memref<3x640xbf16>, memref<256x640xbf16>, memref<3x256xbf16>
    linalg.add ins(%xa, %down : memref<3x256xbf16>, memref<3x256xbf16>) outs(%ya : memref<3x256xbf16>)
  }
  return
}
"""


def test_a_llama_block_compiles_with_two_grid_waits(cache):
    k = amk.compile(BLOCK, "h200", cache_dir=cache)
    assert k.verdict["status"] == "verified"
    assert k.args == ["in0", "in1", "in2", "in3", "in4", "out0"]
    steps = k.manifest["problem"]["steps"]
    assert [s["op"] for s in steps] == ["rms_norm", "matmul", "matmul", "mul",
                                        "matmul", "add"]
    assert [s.get("b_step") for s in steps] == [None, None, None, 2, None, 4]
    assert [w["name"] for w in k.manifest["workspace"]] == [
        "buf0", "buf1", "buf2", "buf3", "buf4", "counters"]


ATTENTION = """
func.func @attention(%q: memref<3x128xf16>, %k: memref<3x64xf16>, %v: memref<3x64xf16>, %kc: memref<3x9x2x32xf16>, %vc: memref<3x9x2x32xf16>, %len: memref<3xi32>, %o: memref<3x128xf16>) {
  amk.graph ins(%q, %k, %v, %kc, %vc, %len : memref<3x128xf16>, memref<3x64xf16>, memref<3x64xf16>, memref<3x9x2x32xf16>, memref<3x9x2x32xf16>, memref<3xi32>) outs(%o : memref<3x128xf16>) {
  ^bb0(%qa: memref<3x128xf16>, %ka: memref<3x64xf16>, %va: memref<3x64xf16>, %kca: memref<3x9x2x32xf16>, %vca: memref<3x9x2x32xf16>, %lena: memref<3xi32>, %oa: memref<3x128xf16>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) into %oa {heads = 4, kv_heads = 2} : memref<3x128xf16>, memref<3x64xf16>, memref<3x64xf16>, memref<3x9x2x32xf16>, memref<3x9x2x32xf16>, memref<3xi32>, memref<3x128xf16>
  }
  return
}
"""


def test_decode_attention_compiles_with_its_cache_and_lengths(cache):
    k = amk.compile(ATTENTION, "h200", cache_dir=cache)
    assert k.verdict["status"] == "verified"
    args = {a["name"]: a for a in k.manifest["args"]}
    assert args["in3"]["shape"] == ["M0", "L0", "H0", "D0"]
    assert args["in5"]["elem"] == "i32" and args["in5"]["shape"] == ["M0"]
    step = k.manifest["problem"]["steps"][0]
    assert (step["op"], step["heads"], step["kv_heads"], step["k"],
            step["cache_length"]) == ("attention", 4, 2, 32, 9)
    assert step["scale"] == pytest.approx(32 ** -0.5)


APPENDING_ATTENTION = """
func.func @attention(%q: memref<3x128xf16>, %k: memref<3x64xf16>, %v: memref<3x64xf16>, %len: memref<3xi32>, %o: memref<3x128xf16>, %kc: memref<3x9x2x32xf16>, %vc: memref<3x9x2x32xf16>) {
  amk.graph ins(%q, %k, %v, %len : memref<3x128xf16>, memref<3x64xf16>, memref<3x64xf16>, memref<3xi32>) outs(%o, %kc, %vc : memref<3x128xf16>, memref<3x9x2x32xf16>, memref<3x9x2x32xf16>) {
  ^bb0(%qa: memref<3x128xf16>, %ka: memref<3x64xf16>, %va: memref<3x64xf16>, %lena: memref<3xi32>, %oa: memref<3x128xf16>, %kca: memref<3x9x2x32xf16>, %vca: memref<3x9x2x32xf16>):
    amk.decode_attention %qa, %ka, %va cache(%kca, %vca) lengths(%lena) into %oa {heads = 4, kv_heads = 2, append} : memref<3x128xf16>, memref<3x64xf16>, memref<3x64xf16>, memref<3x9x2x32xf16>, memref<3x9x2x32xf16>, memref<3xi32>, memref<3x128xf16>
  }
  return
}
"""


def test_appending_attention_updates_its_caches_as_outputs(cache):
    """With `append`, the caches are graph outputs the kernel reads and
    then writes (the new token at position n_m), after a wait."""
    k = amk.compile(APPENDING_ATTENTION, "h200", cache_dir=cache)
    assert k.verdict["status"] == "verified"
    args = {a["name"]: a for a in k.manifest["args"]}
    assert args["out1"]["written"] and args["out1"]["shape"] == [
        "M0", "L0", "H0", "D0"]
    step = k.manifest["problem"]["steps"][0]
    assert step["append"] and (step["key_cache"], step["value_cache"]) == (5, 6)


def test_the_ops_decode_attention_source_compiles_both_ways(cache):
    from amk.ops import decode_attention_source
    for append in (False, True):
        src = decode_attention_source(2, 8, 2, 64, 33, "bf16", "f32",
                                      scale=0.1, append=append)
        k = amk.compile(src, "h200", cache_dir=cache)
        assert k.verdict["status"] == "verified"
        step = k.manifest["problem"]["steps"][0]
        assert step["scale"] == pytest.approx(0.1)
        assert step.get("append", False) == append
        written = [a["name"] for a in k.manifest["args"] if a["written"]]
        assert written == (["out0", "out1", "out2"] if append else ["out0"])
    with pytest.raises(ValueError, match="kv_heads must divide heads"):
        decode_attention_source(2, 6, 4, 64, 33, "bf16", "bf16")
    src = decode_attention_source(2, 8, 2, 64, 33, "bf16", "bf16",
                                  append=True, rotary_elem="f32")
    k = amk.compile(src, "h200", cache_dir=cache)
    step = k.manifest["problem"]["steps"][0]
    assert (step["cos"], step["sin"]) == (4, 5)
    args = {a["name"]: a for a in k.manifest["args"]}
    assert args["in4"]["shape"] == ["P0", "D0"] and args["in4"]["elem"] == "f32"


def test_a_graph_read_before_its_write_is_refused(cache):
    lines = MLP.splitlines()
    first = next(i for i, l in enumerate(lines) if "amk.matmul" in l)
    lines[first], lines[first + 1] = lines[first + 1], lines[first]
    with pytest.raises(amk.AmkError, match="reads an activation before any step writes it"):
        amk.compile("\n".join(lines), "h200", cache_dir=cache)


MLP_FUNCTION = """
func.func @mlp(%x: memref<1x256xbf16>, %w1: memref<512x256xbf16>,
               %w2: memref<256x512xbf16>, %y: memref<1x256xbf16>) {
  %h = memref.alloc() : memref<1x512xbf16>
  amk.matmul %x, %w1 into %h {transpose_b, activation = #amk.activation<gelu>}
    : memref<1x256xbf16>, memref<512x256xbf16>, memref<1x512xbf16>
  amk.matmul %h, %w2 into %y {transpose_b}
    : memref<1x512xbf16>, memref<256x512xbf16>, memref<1x256xbf16>
  memref.dealloc %h : memref<1x512xbf16>
  return
}
"""


def test_form_graph_makes_a_function_of_steps_one_megakernel(cache):
    k = amk.compile(MLP_FUNCTION, cache_dir=cache, form_graph=True)
    assert k.manifest["problem"]["family"] == "graph"
    # The graph's inputs (x, w1, w2) then its output (y), in order of first
    # use; the buffer is the launch's workspace.
    assert k.args == ["in0", "in1", "in2", "out0"]
    assert k.manifest["workspace"]
    # Without it, the two products are two kernels: not one problem.
    with pytest.raises(amk.AmkError, match="got 2 kernels"):
        amk.compile(MLP_FUNCTION, cache_dir=cache)


@pytest.mark.parametrize("m,hidden,inner,out,elem,act", [
    (1, 256, 512, 256, "bf16", "gelu"), (5, 100, 300, 70, "f32", "relu"),
    (16, 64, 128, 64, "f16", None), (32, 96, 160, 40, "bf16", "silu")])
def test_ops_mlp_source_is_one_megakernel(cache, m, hidden, inner, out, elem,
                                          act):
    from amk.ops import mlp_source
    k = amk.compile(mlp_source(m, hidden, inner, out, elem, act),
                    cache_dir=cache)
    assert k.manifest["problem"]["family"] == "graph"
    assert k.args == ["in0", "in1", "in2", "out0"]


def test_ops_mlp_source_refuses_what_a_graph_cannot_take(cache):
    from amk.ops import mlp_source
    # More rows than a decode product's: AMK says so.
    with pytest.raises(amk.AmkError, match="at most 32 rows"):
        amk.compile(mlp_source(33, 64, 128, 64, "bf16"), cache_dir=cache)
    with pytest.raises(ValueError, match="activation must be one of"):
        mlp_source(1, 64, 128, 64, "bf16", "tanh")
    with pytest.raises(ValueError, match="sizes must be positive"):
        mlp_source(0, 64, 128, 64, "bf16")
