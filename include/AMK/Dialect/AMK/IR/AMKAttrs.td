//===- AMKAttrs.td - AMK attributes and enums --------------*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKATTRS_TD
#define AMK_DIALECT_AMK_IR_AMKATTRS_TD

include "AMK/Dialect/AMK/IR/AMKDialect.td"
include "AMK/Dialect/AMK/IR/AMKInterfaces.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def AMK_MathInst : I32EnumAttr<"MathInst", "math instruction of a kernel", [
    I32EnumAttrCase<"simt", 0>,
    I32EnumAttrCase<"mma_sync", 1>,
    I32EnumAttrCase<"wgmma", 2>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}

def AMK_SplitReduce : I32EnumAttr<"SplitReduce",
    "how the K splits of a GEMM are summed", [
    I32EnumAttrCase<"atomic", 0>,
    I32EnumAttrCase<"workspace", 1>,
    I32EnumAttrCase<"serial", 2>,
    I32EnumAttrCase<"last", 3>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}

def AMK_Precision : I32EnumAttr<"Precision", "math mode of an f32 product", [
    I32EnumAttrCase<"ieee", 0>,
    I32EnumAttrCase<"tf32", 1>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}
def AMK_PrecisionAttr : EnumAttr<AMK_Dialect, AMK_Precision, "precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def AMK_Activation : I32EnumAttr<"Activation", "elementwise activation", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"gelu", 2>,
    I32EnumAttrCase<"silu", 3>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}
def AMK_ActivationAttr : EnumAttr<AMK_Dialect, AMK_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def AMK_RowOp : I32EnumAttr<"RowOp", "what a row-wise problem computes", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"mean", 2>,
    I32EnumAttrCase<"softmax", 3>,
    I32EnumAttrCase<"rms_norm", 4>,
    I32EnumAttrCase<"layer_norm", 5>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}
def AMK_RowOpAttr : EnumAttr<AMK_Dialect, AMK_RowOp, "row_op"> {
  let assemblyFormat = "`<` $value `>`";
}

def AMK_RowCache : I32EnumAttr<"RowCache", "where a row-wise kernel keeps a cached row", [
    I32EnumAttrCase<"registers", 0>,
    I32EnumAttrCase<"shared", 1>]> {
  let cppNamespace = "::mlir::amk";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// #amk.target
//===----------------------------------------------------------------------===//

def AMK_TargetAttr : AMK_Attr<"Target", "target"> {
  let summary = "A GPU: its limits and peak rates";
  let description = [{
    Everything the planner and the harness need to know about one GPU:
    architecture, SM count, shared memory per block (default and opt-in) and
    per SM, registers, threads, blocks, block and grid dimension limits, L2
    size, memory bandwidth and the peak rate of each math path. The fields and
    their units are listed once in `include/AMK/Target/TargetFields.def`.

    A named preset (`a100`, `rtx4060ti`, `l4`, `h100`, `h200`, `b200`,
    `rtx5060ti`) is written by name alone; fields after the name override the
    preset. A name that is not a preset must list every field. The printer
    writes the shortest form that parses back to the same target.

    ```mlir
    #amk.target<"h200">
    #amk.target<"h200", sm_count = 114>
    ```

    `amk-opt --amk-target=<preset>|<file.json>` puts a target on the module;
    the JSON form is what `amk-device-info` prints on a GPU.
  }];
  let parameters = (ins
    AttrParameter<"::mlir::amk::TargetSpec", "the target's limits and rates">:$spec);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::llvm::StringRef getName() const { return getSpec().name; }
    ::llvm::StringRef getArch() const { return getSpec().arch; }
    /// The SM version as a number: 90 for `sm_90a`.
    int64_t getSmVersion() const { return getSpec().getSmVersion(); }
  }];
}

//===----------------------------------------------------------------------===//
// #amk.gemm_config
//===----------------------------------------------------------------------===//

class AMK_DimsParameter<string desc>
    : ArrayRefParameter<"int64_t", desc> {
  let parser = "::mlir::amk::parseDims($_parser)";
  let printer = "::mlir::amk::printDims($_printer, $_self)";
}
class AMK_OptionalDimsParameter<string desc>
    : OptionalArrayRefParameter<"int64_t", desc> {
  let parser = "::mlir::amk::parseDims($_parser)";
  let printer = "::mlir::amk::printDims($_printer, $_self)";
}

// `atomic` unless written: configs from before it was a choice mean that.
def AMK_SplitReduceParameter : EnumParameter<AMK_SplitReduce> {
  let defaultValue = "::mlir::amk::SplitReduce::atomic";
}

def AMK_GemmConfigAttr : AMK_Attr<"GemmConfig", "gemm_config",
    [DeclareAttrInterfaceMethods<AMK_KernelConfigAttrInterface>]> {
  let summary = "A planned GEMM kernel design";
  let description = [{
    One block computes a `block = [BM, BN, BK]` tile of C, stepping through K
    by BK; each warp owns a `warp = [WM, WN]` sub-tile. The math path is
    `simt` (each thread computes a `thread = [TM, TN]` register tile with
    FMAs), `mma_sync` (warp-level tensor core instructions of shape
    `inst = [M, N, K]`) or `wgmma` (Hopper warpgroup instructions, one
    warpgroup per 64 rows of the warp tile). `stages` shared-memory buffers
    pipeline the K loop; `vector` is the width in elements of each global
    load; `swizzle` groups block rows for L2 reuse (1: none); `split_k`
    splits K across blocks (1: none). `split_reduce` says how the splits are
    summed: `atomic` adds each split's partial tile into C with f32 atomics
    (C zeroed first; f32 C without beta, bias or activation), `workspace`
    stores the partial tiles to a workspace that a second kernel sums in
    split order, then applies the epilogue: deterministic, any output type.
    `serial` sums in the kernel: the splits of a tile take turns in split
    order (a counter per tile in global memory), each adding its partial
    tile to the one in an f32 workspace, the last applying the epilogue to
    C; deterministic, one kernel, and all blocks resident at once (the
    launch is cooperative). `last` sums in the kernel with no turns: every
    split stores its partial tile to the workspace and signals the tile's
    counter; the split that arrives last sums the tile's partials in split
    order and applies the epilogue: deterministic, one kernel, no block
    waits for another.

    ```mlir
    #amk.gemm_config<block = [128, 128, 32], warp = [64, 64], math = mma_sync,
                     inst = [16, 8, 16], stages = 3, vector = 8, threads = 128>
    ```

    The verifier rejects structurally impossible configs (a warp tile that
    does not divide the block tile, a thread count that disagrees with the
    warp layout, an instruction shape the math path does not have, ...).
    Limits of a particular GPU are checked by `--amk-verify`.
  }];
  let parameters = (ins
    AMK_DimsParameter<"block tile [BM, BN, BK]">:$block,
    AMK_DimsParameter<"warp tile [WM, WN]">:$warp,
    EnumParameter<AMK_MathInst>:$math,
    AMK_OptionalDimsParameter<"instruction shape [M, N, K] (mma_sync, wgmma)">:$inst,
    AMK_OptionalDimsParameter<"per-thread tile [TM, TN] (simt)">:$thread,
    "int64_t":$stages,
    "int64_t":$vector,
    "int64_t":$threads,
    DefaultValuedParameter<"int64_t", "1", "block rasterization group">:$swizzle,
    DefaultValuedParameter<"int64_t", "1", "K splits across blocks">:$split_k,
    AMK_SplitReduceParameter:$split_reduce
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getBlockM() const { return getBlock()[0]; }
    int64_t getBlockN() const { return getBlock()[1]; }
    int64_t getBlockK() const { return getBlock()[2]; }
    int64_t getWarpM() const { return getWarp()[0]; }
    int64_t getWarpN() const { return getWarp()[1]; }
    /// Warps that compute (the warp layout of the block tile).
    int64_t getNumComputeWarps() const;
  }];
}

//===----------------------------------------------------------------------===//
// #amk.row_config
//===----------------------------------------------------------------------===//

// `registers` unless written.
def AMK_RowCacheParameter : EnumParameter<AMK_RowCache> {
  let defaultValue = "::mlir::amk::RowCache::registers";
}

def AMK_RowConfigAttr : AMK_Attr<"RowConfig", "row_config",
    [DeclareAttrInterfaceMethods<AMK_KernelConfigAttrInterface>]> {
  let summary = "A planned row-wise kernel design (reductions, softmax, norms)";
  let description = [{
    `threads_per_row` threads share one row (a power of two: lanes of a
    warp up to 32, whole warps above, up to the block), a block holds
    `rows_per_block` rows, each thread loads `vector` adjacent elements at a
    time. `passes` is how often the
    statistics read the row before the output pass: 1 (online softmax: max
    and sum together; sum and sum of squares for LayerNorm) or 2 (the max,
    then the sum of exponentials; the mean, then the variance).
    `cached_runs = K` (K >= 1) keeps each thread's K runs of the row in
    registers: the row is read from memory once, whatever the passes (0:
    every pass reads the row again). A row of dynamic length is cached
    where it has at most `threads_per_row * vector * K` elements and
    streamed where it has more (the kernel tests its length).
    `cache = shared` keeps those runs in shared memory instead, as stored
    (static row lengths): the first statistics pass folds each run as it
    arrives and copies it there, later passes and the output read it back.
    Each thread reads only what it wrote, so no barrier orders the copy; a
    16-bit row takes half its f32 registers' bytes and leaves the register
    file to more blocks, whose loads then overlap each other's passes.
    `cluster = C` (2, 4 or 8; sm_90 and later; one row per block, a static
    2-D row) spreads each row over a thread-block cluster of C blocks: the
    row's runs interleave over their C x threads_per_row threads, and each
    statistics pass meets through a workspace in global memory that a
    cluster barrier orders (rows too long, and too few, for one block
    each).

    ```mlir
    #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 4>
    #amk.row_config<threads_per_row = 256, rows_per_block = 1, vector = 8, cached_runs = 16, cache = shared>
    #amk.row_config<threads_per_row = 1024, rows_per_block = 1, vector = 8, cluster = 4>
    ```
  }];
  let parameters = (ins
    "int64_t":$threads_per_row,
    "int64_t":$rows_per_block,
    "int64_t":$vector,
    DefaultValuedParameter<"int64_t", "1", "statistics passes over a row">:$passes,
    DefaultValuedParameter<"int64_t", "0", "runs kept in registers">:$cached_runs,
    AMK_RowCacheParameter:$cache,
    DefaultValuedParameter<"int64_t", "1", "blocks sharing a row">:$cluster
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getThreads() const { return getThreadsPerRow() * getRowsPerBlock(); }
    /// Warps one row spans (0: a row takes part of a warp).
    int64_t getWarpsPerRow() const { return getThreadsPerRow() / 32; }
  }];
}

//===----------------------------------------------------------------------===//
// #amk.graph_config
//===----------------------------------------------------------------------===//

// `simt` unless written.
def AMK_GraphMathParameter : EnumParameter<AMK_MathInst> {
  let defaultValue = "::mlir::amk::MathInst::simt";
}

def AMK_GraphConfigAttr : AMK_Attr<"GraphConfig", "graph_config",
    [DeclareAttrInterfaceMethods<AMK_KernelConfigAttrInterface>]> {
  let summary = "A planned megakernel design (an amk.graph as one kernel)";
  let description = [{
    `blocks` persistent blocks of `threads` threads, all resident at once
    (the kernel is launched cooperatively). Every step is split over all
    blocks: block b computes the output columns n = b, b + blocks, ...,
    each warp `rows_per_warp` of them at a time (rows of the weights),
    each lane keeping `unroll` 16-byte loads per row in flight; the lanes'
    f32 FMAs are summed by shuffles (`math = simt`). With `math =
    mma_sync` (f16 and bf16, K a multiple of 8, at most 16 rows) the unit
    is a tile of 8 columns: block b computes tiles b, b + blocks, ...,
    each warp `rows_per_warp` tiles at a time with m16n8k16 tensor-core
    products whose K order follows the 16-byte loads. `stages = S` (S >= 2,
    mma_sync only) streams each product's weights through a ring of S
    shared-memory stages that TMA fills (one box of 8 rows per tile and
    chunk of K, an mbarrier per stage) instead of loading them into
    registers; 0 (the default) loads them directly. `warp_staged` (mma_sync
    without stages) loads each warp's weight rows whole instead, 512
    contiguous bytes of one row per load (the stream of the simt body), in
    chunks of 256 columns, one chunk ahead, and turns each tile's 8 x 8
    blocks of 16 bytes into the products' fragments with three rounds of
    xor shuffles (a transpose in registers, no shared memory). A step that
    reads an earlier step's result waits for that step's blocks on a
    counter in global memory (release and acquire, gpu scope).

    ```mlir
    #amk.graph_config<blocks = 264, threads = 256, rows_per_warp = 2, unroll = 4>
    #amk.graph_config<blocks = 396, threads = 128, rows_per_warp = 1, unroll = 4, math = mma_sync, stages = 4>
    #amk.graph_config<blocks = 264, threads = 256, rows_per_warp = 1, unroll = 4, math = mma_sync, warp_staged = true>
    ```
  }];
  let parameters = (ins
    "int64_t":$blocks,
    "int64_t":$threads,
    "int64_t":$rows_per_warp,
    "int64_t":$unroll,
    AMK_GraphMathParameter:$math,
    DefaultValuedParameter<"int64_t", "0", "TMA stages of the weights">:$stages,
    DefaultValuedParameter<"bool", "false",
                           "weight rows loaded whole, transposed by shuffles">:$warp_staged
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getWarps() const { return getThreads() / 32; }
  }];
}

//===----------------------------------------------------------------------===//
// #amk.candidate
//===----------------------------------------------------------------------===//

def AMK_CandidateAttr : AMK_Attr<"Candidate", "candidate"> {
  let summary = "A rung of a kernel's performance ladder";
  let description = [{
    A config the planner kept as an alternative, with the time its cost model
    predicts, in nanoseconds. `amk.kernel` carries its ladder best first.

    ```mlir
    #amk.candidate<config = #amk.gemm_config<...>, predicted_ns = 51200>
    ```
  }];
  let parameters = (ins
    AttrParameter<"::mlir::amk::KernelConfigAttrInterface", "config">:$config,
    "int64_t":$predicted_ns);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // AMK_DIALECT_AMK_IR_AMKATTRS_TD
