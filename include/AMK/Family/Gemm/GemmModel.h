//===- GemmModel.h - What a GEMM kernel needs and does ----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One model of a planned GEMM kernel, shared by the planner (which must never
// propose what the harness rejects), the harness (`--amk-verify`) and the
// synthesizer (`--amk-lower`, which allocates exactly the shared memory
// described here and launches exactly the grid described here).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GEMM_GEMMMODEL_H
#define AMK_FAMILY_GEMM_GEMMMODEL_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"

#include "llvm/Support/JSON.h"

#include <array>
#include <string>

namespace mlir::amk {

/// A GEMM problem as the planner, harness and lowering see it. Sizes are
/// ShapedType::kDynamic when unknown at compile time. The fields are those
/// of GemmProblemFields.def, which the runtime shares.
struct GemmProblem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool batched = false;
  Type inType, accType, outType;
  bool transposeA = false, transposeB = false;
  Precision precision = Precision::ieee;
  double alpha = 1.0, beta = 0.0;
  bool bias = false;
  Activation activation = Activation::none;

  static GemmProblem get(MatmulOp op);
  /// The problem of a manifest's or tuning record's JSON (toJSON); failure
  /// on a missing field or an unknown type or spelling.
  static FailureOr<GemmProblem> fromJSON(MLIRContext *context,
                                         const llvm::json::Object &json);
  /// The fields of GemmProblemFields.def; sizes are -1 when dynamic.
  llvm::json::Object toJSON() const;

  bool isTF32() const { return precision == Precision::tf32; }

  int64_t inBytes() const { return inType.getIntOrFloatBitWidth() / 8; }
  int64_t outBytes() const { return outType.getIntOrFloatBitWidth() / 8; }
  bool hasDynamicSizes() const;
  /// Extent of the contiguous (innermost) dimension of A and of B: the
  /// leading dimension that global-load vector widths must divide.
  int64_t getContiguousExtentA() const { return transposeA ? m : k; }
  int64_t getContiguousExtentB() const { return transposeB ? k : n; }
};

/// The problem's sizes for each dimension of operand `i` (A, B, [bias], C):
/// dynamic only where no operand's type fixes the size.
SmallVector<int64_t> getOperandProblemShape(const GemmProblem &problem,
                                            unsigned i);

/// The type a kernel takes operand `i` as: `type` with every size the
/// problem fixes made static (a dynamic A whose M the type of C gives is
/// taken as static), so that kernels are built and proven for what the
/// problem knows. Launches cast to it.
MemRefType getKernelOperandType(const GemmProblem &problem, unsigned i,
                                MemRefType type);

/// Whether split-K kernels can compute `problem`: they add partial sums into
/// C with f32 atomics after the launch zeroes it, so C and the accumulator
/// are f32 and the epilogue is linear (no beta, bias or activation).
bool supportsSplitK(const GemmProblem &problem);

/// Whether `config` splits K and adds the partial tiles into C with f32
/// atomics (split_reduce = atomic).
bool isAtomicSplit(GemmConfigAttr config);

/// Whether `config` stores partial tiles to a workspace that a second kernel
/// sums (split_reduce = workspace), instead of adding them into C.
bool usesSplitWorkspace(GemmConfigAttr config);

/// Whether `config`'s splits sum their partial tiles in the kernel, taking
/// turns through a counter per tile (split_reduce = serial).
bool usesSerialSplit(GemmConfigAttr config);

/// Whether `config`'s splits sum their partial tiles in the kernel, the
/// last to arrive at a tile's counter summing them (split_reduce = last).
bool usesLastSplit(GemmConfigAttr config);

/// Whether `config`'s main kernel keeps a counter per output tile
/// (split_reduce = serial or last).
bool usesSplitCounters(GemmConfigAttr config);

/// Whether `config`'s main kernel keeps f32 partial tiles in a workspace
/// (split_reduce = workspace, serial or last).
bool storesSplitPartials(GemmConfigAttr config);

/// The workspace of a split_reduce = workspace, serial or last config: f32
/// partial tiles [B, split_k, M, N] (workspace, last: one per split) or
/// [B, 1, M, N] (serial: one running sum), B = 1 unbatched, static where
/// the problem is.
MemRefType getSplitWorkspaceType(GemmConfigAttr config,
                                 const GemmProblem &problem);

/// The counters of a split_reduce = serial or last config (static sizes):
/// one i32 per output tile of each batch, [B * tiles], zeroed by the
/// launch.
MemRefType getSplitCounterType(GemmConfigAttr config,
                               const GemmProblem &problem);

/// Whether `config` first copies operand A (`isA`) or B transposed into a
/// workspace: wgmma reads tf32 operands K-major only, and nvgpu's wgmma
/// takes an M-major A only beside an N-major B, so a tf32 operand stored
/// MN-major and a 16-bit A stored [K, M] beside a B stored [N, K] are copied
/// K-major by kernels that run before the product's, which reads the copies.
/// (A 16-bit A as [K, M] beside a B as [K, N] is read in place: wgmma
/// transposes both through their descriptors.)
bool repacksOperand(GemmConfigAttr config, const GemmProblem &problem,
                    bool isA);

/// Whether an operand's rows (its contiguous extent, static) are not a
/// multiple of 16 bytes: TMA cannot move them, and mma.sync realigns them.
bool hasMisalignedRows(const GemmProblem &problem);

/// Whether a wgmma product reads `problem` through K-major copies of both
/// operands whose rows are padded with zeros to a multiple of 16 bytes
/// (getPaddedK): an operand's rows (static) break TMA's 16-byte rule, K is
/// static (an odd K, or A as [K, M] of an odd M).
bool padsRowsForTma(const GemmProblem &problem);
/// K rounded up to 16 bytes of the input type.
int64_t getPaddedK(const GemmProblem &problem);

/// The problem the product's kernel computes: `problem` with A as [M, K]
/// and B as [N, K] where `config` repacks them.
GemmProblem getProductProblem(GemmConfigAttr config,
                              const GemmProblem &problem);

/// A repacked operand: [B,] M, K (A) or [B,] N, K (B) of the input type,
/// static where the problem is.
MemRefType getRepackedType(const GemmProblem &problem, bool isA);

/// The repack kernel: kRepackTile x kRepackTile tiles of its operand
/// through shared memory (rows padded by one element), kRepackThreads
/// threads per block; grid x over M's (N's) tiles, y over K's, z the batch.
constexpr int64_t kRepackTile = 32;
constexpr int64_t kRepackThreads = 256;
/// Its register budget (.maxnreg): a few addresses and one value.
constexpr int64_t kRepackRegs = 32;
/// Its kernel's name after the entry's: `_repack_a` or `_repack_b`.
inline StringRef getRepackSuffix(bool isA) {
  return isA ? "_repack_a" : "_repack_b";
}
/// Its dynamic shared memory: one padded tile.
int64_t getRepackSmemBytes(const GemmProblem &problem);
/// The most tiles grid y holds (the hardware's limit).
constexpr int64_t kRepackMaxTilesK = 65535;

/// wgmma: the alignment the kernel's dynamic shared memory needs (the
/// 128-byte swizzle repeats every 1024 bytes).
constexpr int64_t kWgmmaSmemAlignBytes = 1024;
/// wgmma: the bytes of one tile row (BK elements of a K-major operand, 64
/// of an MN-major one): one 128-byte swizzle row.
constexpr int64_t kWgmmaRowBytes = 128;
/// wgmma: an MN-major operand's chunk width (elements of 16-bit types).
constexpr int64_t kWgmmaMNChunk = 64;

/// wgmma: the TMA box of A (`isA`) or B, innermost first: {BK, rows} for a
/// K-major operand, {64, BK} (one chunk) for an MN-major one; then 1 for
/// the batch of a batched product.
SmallVector<int64_t> getWgmmaBox(GemmConfigAttr config,
                                 const GemmProblem &problem, bool isA);

/// The kernel that sums a workspace split: each of its threads sums
/// getSplitReduceVector() adjacent elements of C over the splits, in order,
/// then applies the epilogue.
constexpr int64_t kSplitReduceThreads = 256;
/// Its register budget (.maxnreg): a few accumulators and addresses.
constexpr int64_t kSplitReduceRegs = 64;
/// Elements per thread: 4 (one 16-byte load per split) when N is a static
/// multiple of 4, else 1.
int64_t getSplitReduceVector(const GemmProblem &problem);

/// The dynamic shared memory of a GEMM kernel: per pipeline stage one tile of
/// A and one of B, each `rows x pitch` elements of the input type (pitch >=
/// cols; the extra columns are padding against bank conflicts). Every stage
/// buffer starts 128-byte aligned.
///
/// simt:     A is stored K-major [BK][BM], B is [BK][BN] (transposed on the
///           way in when the global layout differs).
/// mma_sync: tiles keep the global layout (A [BM][BK] or [BK][BM] with
///           transpose_a; B [BK][BN] or [BN][BK] with transpose_b) and are
///           XOR-swizzled in 16-byte chunks instead of padded.
/// wgmma:    tiles of 128-byte rows as TMA writes them with the 128-byte
///           swizzle: A [BM][BK], B [BN][BK] (B as [K, N]: [BN / 64][BK][64]
///           chunks, the same bytes); stages and tiles start on the
///           swizzle's 1024-byte pattern.
struct GemmSmemLayout {
  struct Tile {
    int64_t rows = 0, cols = 0, pitch = 0;
    int64_t elements() const { return rows * pitch; }
  };
  Tile a, b;
  int64_t stages = 1;
  int64_t elemBytes = 4;
  /// Alignment of each stage and tile.
  int64_t alignBytes = 128;

  /// Byte offset of each tile inside one stage, and the stage stride.
  int64_t aOffsetBytes() const { return 0; }
  int64_t bOffsetBytes() const;
  int64_t stageBytes() const;
  /// Dynamic shared memory the kernel requests.
  int64_t totalBytes() const { return stages * stageBytes(); }
};

GemmSmemLayout getGemmSmemLayout(GemmConfigAttr config,
                                 const GemmProblem &problem);

/// The launch grid for concrete sizes: x enumerates the output tiles
/// (ceil(M/BM) * ceil(N/BN), remapped in the kernel for `swizzle`), z the
/// batch times split_k; y is 1. Keeping tiles on x avoids the 65535 limit of
/// grid y and z.
/// Whether `config` is warp specialized: a producer warpgroup beside the
/// compute warpgroups (wgmma only).
bool isWarpSpecialized(GemmConfigAttr config);

/// The k-tiles each split of `config` runs over a static K: the last split
/// pads with zero tiles up to the same count.
int64_t getKTilesPerSplit(GemmConfigAttr config, int64_t k);

/// The blocks of a persistent kernel: warp specialized with static M and N,
/// min(tiles, SMs) blocks each loop over the tiles bid, bid + G, ... of
/// their batch (0: not persistent, one block per tile).
int64_t getPersistentBlocks(GemmConfigAttr config, const GemmProblem &problem,
                            const TargetSpec &target);

std::array<int64_t, 3> getGemmGrid(GemmConfigAttr config, int64_t batch,
                                   int64_t m, int64_t n);

/// The load vector width (elements) operand A (`isA`) or B uses: the widest
/// power of two up to the config's `vector` that divides the operand's
/// contiguous extent. An odd K narrows only the operand whose rows run along
/// K; the other keeps full-width loads.
int64_t getOperandVector(GemmConfigAttr config, const GemmProblem &problem,
                         bool isA);

/// The load vector width operand A (`isA`) or B uses when its contiguous
/// extent turns out, at run time, to be a multiple of it: the config's
/// `vector` for a dynamic extent (tensor-core kernels test `extent % vector
/// == 0` once and take the cp.async version of their main loop when it
/// holds), getOperandVector otherwise.
int64_t getOperandVersionedVector(GemmConfigAttr config,
                                  const GemmProblem &problem, bool isA);

/// How many k-tiles ahead of its shared-memory store a register-staged copy
/// (an operand too narrow for cp.async: under 4 bytes per copy) is loaded:
/// the loads stay in flight across that many main-loop iterations. At most
/// stages - 2, so that a barrier separates every store from the reads of its
/// stage.
int64_t getRegisterLookahead(GemmConfigAttr config);

/// Whether `--amk-lower` can synthesize `config` for `problem`: the
/// synthesizer's own limits beyond the attribute verifier (supported math
/// paths and element types, a load vector width that some operand's
/// contiguous extent allows, tile shapes its data movement distributes evenly
/// over the threads, ...). On failure, `whyNot` says which limit. The part
/// that does not depend on the target: stages use the overload below.
LogicalResult checkGemmLowerable(GemmConfigAttr config,
                                 const GemmProblem &problem,
                                 std::string &whyNot);

/// checkGemmLowerable, and whether `target`'s arch has every instruction
/// the kernel of `config` uses (the table of TargetSpec.h: mma_sync needs
/// cp.async, ldmatrix and the mma.sync shape of its input type, so sm_80).
/// This is the check the planner, the harness and the synthesizer share.
LogicalResult checkGemmLowerable(GemmConfigAttr config,
                                 const GemmProblem &problem,
                                 const TargetSpec &target, std::string &whyNot);

} // namespace mlir::amk

#endif // AMK_FAMILY_GEMM_GEMMMODEL_H
