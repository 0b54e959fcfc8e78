//===- AMKOps.td - AMK operations --------------------------*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKOPS_TD
#define AMK_DIALECT_AMK_IR_AMKOPS_TD

include "AMK/Dialect/AMK/IR/AMKDialect.td"
include "AMK/Dialect/AMK/IR/AMKAttrs.td"
include "AMK/Dialect/AMK/IR/AMKInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// amk.matmul
//===----------------------------------------------------------------------===//

def AMK_MatmulOp : AMK_Op<"matmul", [
    DeclareOpInterfaceMethods<AMK_ProblemOpInterface>]> {
  let summary = "C = act(alpha * op(A) op(B) + beta * C + bias)";
  let description = [{
    A (batched) matrix product on buffers. `A` is `[M, K]` (`[K, M]` with
    `transpose_a`), `B` is `[K, N]` (`[N, K]` with `transpose_b`), `C` is
    `[M, N]`; with a leading batch dimension all three are rank 3 and agree
    on it. Sizes may be dynamic (`?`).

    Element types: A and B are both f32, f16 or bf16. C is f32, or the input
    type. The product accumulates in `acc` (default f32; f16 only for f16
    inputs). `precision = #amk.precision<tf32>` lets an f32 product round its
    inputs to tf32 and use tensor cores.

    Epilogue, applied per element of C in this order: scale by `alpha`
    (default 1), add `beta` times the old C (default 0: C is only written),
    add `bias[n]` (a rank-1 buffer of N elements of C's type, or
    `[batch, N]` for batched products), then `activation` (default none).

    ```mlir
    amk.matmul %a, %b into %c {transpose_b} : memref<?x4096xbf16>, memref<14336x4096xbf16>, memref<?x14336xf32>
    amk.matmul %a, %b bias(%bias) into %c {activation = #amk.activation<gelu>}
      : memref<16x64xf16>, memref<64x32xf16>, memref<32xf16>, memref<16x32xf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "A", [MemRead]>:$a,
    Arg<AnyMemRef, "B", [MemRead]>:$b,
    Arg<Optional<AnyMemRef>, "bias", [MemRead]>:$bias,
    Arg<AnyMemRef, "C", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    OptionalAttr<TypeAttr>:$acc,
    OptionalAttr<AMK_PrecisionAttr>:$precision,
    OptionalAttr<AMK_ActivationAttr>:$activation,
    OptionalAttr<F64Attr>:$alpha,
    OptionalAttr<F64Attr>:$beta);
  let assemblyFormat = [{
    $a `,` $b (`bias` `(` $bias^ `)`)? `into` $c attr-dict `:` type(operands)
  }];
  let builders = [
    // A plain product C = A B with default epilogue and layouts.
    OpBuilder<(ins "::mlir::Value":$a, "::mlir::Value":$b, "::mlir::Value":$c), [{
      $_state.addOperands({a, b, c});
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the operands carry a leading batch dimension.
    bool isBatched() { return getC().getType().getRank() == 3; }
    /// Static sizes, or ShapedType::kDynamic.
    int64_t getBatchSize();
    int64_t getM();
    int64_t getN();
    int64_t getK();
    /// The element type of the operands and the accumulator type.
    ::mlir::Type getInputElementType();
    ::mlir::Type getAccumulatorType();
    bool isTF32() {
      return getPrecision() && *getPrecision() == Precision::tf32;
    }
    double getAlphaValue() { return getAlpha() ? getAlpha()->convertToDouble() : 1.0; }
    double getBetaValue() { return getBeta() ? getBeta()->convertToDouble() : 0.0; }
    Activation getActivationValue() {
      return getActivation() ? *getActivation() : Activation::none;
    }
  }];
}

//===----------------------------------------------------------------------===//
// amk.row_reduce
//===----------------------------------------------------------------------===//

def AMK_RowReduceOp : AMK_Op<"row_reduce", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<AMK_ProblemOpInterface>]> {
  let summary = "A reduction, softmax or normalization of each row";
  let description = [{
    `x` is `[M, N]` or `[B, M, N]`; each of its rows (the last dimension)
    is reduced or normalized, accumulating in f32:

    - `sum`, `max`, `mean`: `y` is `[M]` (`[B, M]`), the row's sum, maximum
      or mean;
    - `softmax`: `y[i] = exp(x[i] - max) / sum_j exp(x[j] - max)`;
    - `rms_norm`: `y[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i]`;
    - `layer_norm`: `y[i] = (x[i] - mean) / sqrt(var + eps) * weight[i]
      (+ bias[i])`, the biased variance.

    The normalizations give `y` the shape of `x`; `weight` and `bias` are
    `[N]` of `y`'s type, and `eps` (default 1e-5) is in (0, 1]. Element
    types are f32, f16 or bf16, in and out independently. Sizes may be
    dynamic.

    ```mlir
    amk.row_reduce %x into %y {kind = #amk.row_op<softmax>}
      : memref<?x4096xbf16>, memref<?x4096xbf16>
    amk.row_reduce %x weight(%w) into %y {kind = #amk.row_op<rms_norm>, eps = 1.0e-6}
      : memref<16x4096xbf16>, memref<4096xbf16>, memref<16x4096xbf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "x", [MemRead]>:$x,
    Arg<Optional<AnyMemRef>, "weight", [MemRead]>:$weight,
    Arg<Optional<AnyMemRef>, "bias", [MemRead]>:$bias,
    Arg<AnyMemRef, "y", [MemWrite]>:$y,
    AMK_RowOpAttr:$kind,
    OptionalAttr<F64Attr>:$eps);
  let assemblyFormat = [{
    $x (`weight` `(` $weight^ `)`)? (`bias` `(` $bias^ `)`)? `into` $y
    attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isBatched() { return getX().getType().getRank() == 3; }
    /// Whether `y` has the shape of `x` (softmax and the norms) rather than
    /// one value per row.
    bool isElementwiseOutput() {
      return getKind() == RowOp::softmax || getKind() == RowOp::rms_norm ||
             getKind() == RowOp::layer_norm;
    }
    /// Static sizes, or ShapedType::kDynamic: batch (1 unbatched), rows and
    /// the row length.
    int64_t getBatchSize();
    int64_t getM();
    int64_t getN();
    double getEpsValue() { return getEps() ? getEps()->convertToDouble() : 1e-5; }
  }];
}

//===----------------------------------------------------------------------===//
// amk.decode_attention
//===----------------------------------------------------------------------===//

def AMK_DecodeAttentionOp : AMK_Op<"decode_attention",
    [AttrSizedOperandSegments]> {
  let summary = "Attention of one new token per sequence over its KV cache";
  let description = [{
    Decode attention of a batch of `M` sequences, one new token each, with
    `heads` query heads of `D` elements sharing `kv_heads` key/value heads
    (grouped-query attention: query head `h` reads key/value head
    `h / (heads / kv_heads)`):

    - `q` is `[M, heads * D]`, the new tokens' queries; `k` and `v` are
      `[M, kv_heads * D]`, their keys and values;
    - `key_cache` and `value_cache` are `[M, L, kv_heads, D]`: sequence
      `m`'s earlier tokens at positions `0 .. n_m - 1`, where `n_m` is
      `lengths[m]` (`[M]` of i32) clamped to `[0, L]`; the new token is
      position `n_m` (the caller appends `k` and `v` to the caches after);
    - `o[m, h * D + d] = sum_p softmax_p(scale * q_h . key_p) value_p[d]`
      over the `n_m + 1` positions, `scale` defaulting to `1 / sqrt(D)`;
    - with `rotary(%cos, %sin)` (`[L + 1, D]`, f32 or q's type, the tables
      of each position), `q` and `k` are first rotated at position `n_m`
      as Llama does (rotate-half: `x * cos + rotate_half(x) * sin`, where
      `rotate_half(x) = [-x[D/2:], x[:D/2]]`); the caches hold rotated
      keys;
    - with `append`, the step also writes `k` and `v` into the caches at
      position `n_m` (where `n_m < L`; a full cache is left as it is): in
      an `amk.graph` the caches are then its outputs, and the writes
      follow every read of them (the kernel orders them after a grid-wide
      wait), so the caller's next step finds the token in place.

    Scores, softmax and sums are f32. `q`, `k`, `v` and the caches share
    one element type (f32, f16 or bf16); `o`'s is any of those. It is a
    step of `amk.graph`.

    ```mlir
    amk.decode_attention %q, %k, %v cache(%kc, %vc) lengths(%len) into %o
        {heads = 32, kv_heads = 8}
      : memref<16x4096xbf16>, memref<16x1024xbf16>, memref<16x1024xbf16>,
        memref<16x4096x8x128xbf16>, memref<16x4096x8x128xbf16>,
        memref<16xi32>, memref<16x4096xbf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "q", [MemRead]>:$q,
    Arg<AnyMemRef, "k", [MemRead]>:$k,
    Arg<AnyMemRef, "v", [MemRead]>:$v,
    Arg<AnyMemRef, "key_cache", [MemRead]>:$key_cache,
    Arg<AnyMemRef, "value_cache", [MemRead]>:$value_cache,
    Arg<AnyMemRef, "lengths", [MemRead]>:$lengths,
    Arg<Optional<AnyMemRef>, "rotary cos", [MemRead]>:$cos,
    Arg<Optional<AnyMemRef>, "rotary sin", [MemRead]>:$sin,
    Arg<AnyMemRef, "o", [MemWrite]>:$o,
    I64Attr:$heads,
    I64Attr:$kv_heads,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$append);
  let assemblyFormat = [{
    $q `,` $k `,` $v `cache` `(` $key_cache `,` $value_cache `)`
    `lengths` `(` $lengths `)` (`rotary` `(` $cos^ `,` $sin `)`)? `into` $o
    attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getM() { return getQ().getType().getDimSize(0); }
    /// D, the elements of a head.
    int64_t getHeadDim() { return getQ().getType().getDimSize(1) / getHeads(); }
    /// L, the positions a cache holds.
    int64_t getCacheLength() { return getKeyCache().getType().getDimSize(1); }
    double getScaleValue() {
      return getScale() ? getScale()->convertToDouble()
                        : 1.0 / std::sqrt(double(getHeadDim()));
    }
  }];
}

//===----------------------------------------------------------------------===//
// amk.graph
//===----------------------------------------------------------------------===//

def AMK_GraphBufferOp : AMK_Op<"graph_buffer", [HasParent<"GraphOp">,
    MemoryEffects<[MemAlloc]>]> {
  let summary = "A buffer internal to an amk.graph";
  let description = [{
    An intermediate result of a graph: one step writes it, later steps read
    it. The launch allocates it (a workspace buffer of the kernel); its
    type is static, contiguous and row-major.

    ```mlir
    %h = amk.graph_buffer : memref<16x14336xbf16>
    ```
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "", [MemAlloc]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def AMK_GraphOp : AMK_Op<"graph", [AttrSizedOperandSegments, SingleBlock,
    NoTerminator, IsolatedFromAbove,
    DeclareOpInterfaceMethods<AMK_ProblemOpInterface>]> {
  let summary = "Several ops computed by one persistent kernel (a megakernel)";
  let description = [{
    A problem made of steps that run, in order, as one kernel. The body's
    block arguments are the operands (`ins`, then `outs`); its ops are the
    steps and `amk.graph_buffer`s, buffers internal to the graph (the launch
    allocates them). A step reads graph inputs and what earlier steps
    wrote; each output and each buffer is written by exactly one step, and
    nothing writes an input.

    The steps, on static, contiguous f32, f16 or bf16 buffers, none
    batched:

    - decode-shaped products: `amk.matmul` with `transpose_b` (weights
      stored `[N, K]`, as torch's Linear), f32 accumulation and no beta;
    - row steps: `amk.row_reduce` softmax, rms_norm or layer_norm of an
      `[M, N]` activation;
    - elementwise steps: `linalg.add`, `sub`, `mul`, `div`, `max` or `min`
      of two `[M, N]` activations of one shape (no broadcast).

    The activations a step reads (A, x, the elementwise inputs) are graph
    inputs or what earlier steps wrote; weights, norm weights and biases
    are graph inputs. A Llama-style MLP block:

    ```mlir
    %n = amk.graph_buffer : memref<1x4096xbf16>
    amk.row_reduce %x weight(%g) into %n {kind = #amk.row_op<rms_norm>}
      : memref<1x4096xbf16>, memref<4096xbf16>, memref<1x4096xbf16>
    amk.matmul %n, %wg into %gate {transpose_b, activation = #amk.activation<silu>}
      : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
    amk.matmul %n, %wu into %up {transpose_b}
      : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
    linalg.mul ins(%gate, %up : memref<1x14336xbf16>, memref<1x14336xbf16>)
               outs(%h : memref<1x14336xbf16>)
    amk.matmul %h, %wd into %down {transpose_b}
      : memref<1x14336xbf16>, memref<4096x14336xbf16>, memref<1x4096xbf16>
    linalg.add ins(%x, %down : memref<1x4096xbf16>, memref<1x4096xbf16>)
               outs(%y : memref<1x4096xbf16>)
    ```

    A decode MLP, whole:

    ```mlir
    amk.graph ins(%x, %w1, %w2 : memref<1x4096xbf16>, memref<14336x4096xbf16>,
                  memref<4096x14336xbf16>) outs(%y : memref<1x4096xbf16>) {
    ^bb0(%xa: memref<1x4096xbf16>, %w1a: memref<14336x4096xbf16>,
         %w2a: memref<4096x14336xbf16>, %ya: memref<1x4096xbf16>):
      %h = amk.graph_buffer : memref<1x14336xbf16>
      amk.matmul %xa, %w1a into %h {transpose_b, activation = #amk.activation<gelu>}
        : memref<1x4096xbf16>, memref<14336x4096xbf16>, memref<1x14336xbf16>
      amk.matmul %h, %w2a into %ya {transpose_b}
        : memref<1x14336xbf16>, memref<4096x14336xbf16>, memref<1x4096xbf16>
    }
    ```
  }];
  let arguments = (ins
    Arg<Variadic<AnyMemRef>, "graph inputs", [MemRead]>:$inputs,
    Arg<Variadic<AnyMemRef>, "graph outputs", [MemWrite]>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)` `outs` `(` $outputs `:` type($outputs) `)`
    attr-dict-with-keyword $body
  }];
  // Its steps and buffers: getGraphSteps and getGraphBuffers (AMKOps.h).
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// amk.kernel
//===----------------------------------------------------------------------===//

def AMK_KernelOp : AMK_Op<"kernel", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "A planned kernel: a problem and the design chosen for it";
  let description = [{
    The kernel descriptor `--amk-plan` writes. Its body holds exactly one
    problem op (an op implementing `ProblemOpInterface`, such as
    `amk.matmul`); `config` is the chosen design of the same family, and
    `ladder` optionally lists the runners-up with their predicted times, best
    first. `--amk-verify` checks the config against the module's target and
    `--amk-lower` replaces the kernel with generated GPU code.

    The name becomes the GPU function's symbol and the file names of its
    bundle, so it is an identifier: `[A-Za-z_][A-Za-z0-9_]*`, at most 200
    characters, and no two kernels of a module share one.

    ```mlir
    amk.kernel "gemm_4096x4096x4096_bf16" config(#amk.gemm_config<...>) {
      amk.matmul %a, %b into %c : memref<4096x4096xbf16>, ...
    }
    ```
  }];
  let arguments = (ins
    StrAttr:$sym_name,
    AMK_KernelConfigAttrInterface:$config,
    OptionalAttr<TypedArrayAttrBase<AMK_CandidateAttr, "ladder">>:$ladder);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `config` `(` $config `)` (`ladder` $ladder^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The single problem op of the body.
    ProblemOpInterface getProblem();

    /// The longest kernel name: with ".cubin" it stays a valid file name.
    static constexpr size_t kMaxNameLength = 200;
    /// Whether `name` may name a kernel: `[A-Za-z_][A-Za-z0-9_]*`, at most
    /// kMaxNameLength characters. Symbols, bundle files and cache entries
    /// are derived from names the verifier checked with this.
    static bool isValidName(::llvm::StringRef name);
  }];
}

#endif // AMK_DIALECT_AMK_IR_AMKOPS_TD
