//===- RowReduceModel.h - What a row-wise kernel needs and does -*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The row-wise family (amk.row_reduce): reductions of the last dimension,
// softmax, RMSNorm, LayerNorm. One model of a kernel, shared by the planner,
// the harness and the synthesizer.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_ROWREDUCE_ROWREDUCEMODEL_H
#define AMK_FAMILY_ROWREDUCE_ROWREDUCEMODEL_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/Family.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/JSON.h"

namespace mlir::amk {

/// A row-wise problem; sizes are ShapedType::kDynamic when unknown. The
/// fields are those of RowReduceProblemFields.def.
struct RowProblem {
  RowOp kind = RowOp::sum;
  int64_t batch = 1, m = 0, n = 0;
  bool batched = false;
  Type inType, outType;
  bool weight = false, bias = false;
  double eps = 1e-5;

  static RowProblem get(RowReduceOp op);
  /// The problem of a manifest's or tuning record's JSON; failure on a
  /// missing or malformed field.
  static FailureOr<RowProblem> fromJSON(MLIRContext *context,
                                        const llvm::json::Object &json);
  llvm::json::Object toJSON() const;

  /// Softmax and the norms write a row per row; the reductions a value.
  bool isElementwiseOutput() const {
    return kind == RowOp::softmax || kind == RowOp::rms_norm ||
           kind == RowOp::layer_norm;
  }
  /// Whether passes = 2 means something (a second statistics pass).
  bool hasTwoPassForm() const {
    return kind == RowOp::softmax || kind == RowOp::layer_norm;
  }
  int64_t inBytes() const { return inType.getIntOrFloatBitWidth() / 8; }
  int64_t outBytes() const { return outType.getIntOrFloatBitWidth() / 8; }
  bool hasDynamicSizes() const {
    return ShapedType::isDynamic(batch) || ShapedType::isDynamic(m) ||
           ShapedType::isDynamic(n);
  }
};

/// The register budget of a row-wise kernel (.maxnreg): 64 for a streamed
/// or staged row; a cached one's registers and 32 beside them, at least 64.
int64_t getRowRegisters(RowConfigAttr config, const RowProblem &problem);

/// Most registers a thread gives to a cached row. A whole long row in
/// registers, all its loads issued at once, is what keeps the memory busy
/// at one block per SM (a 512-thread block of 32768 f32 columns: 64).
constexpr int64_t kMaxCachedRegisters = 64;

/// Registers a thread's `runs` cached runs of `vector` elements take. A
/// reduction keeps them as stored (32-bit registers hold one f32 or two
/// 16-bit values). Softmax and the norms read the row again in the output
/// pass, and the compiler keeps the f32 values widened for the statistics
/// rather than widen twice (ptxas: 256 threads of 16 bf16 runs of 8 want
/// 148 registers, the f32 row's 128 and 20), so theirs take f32 registers;
/// so do a dynamic row's runs, each loaded under its own guard (ptxas
/// spilled 16 guarded bf16 runs of 8 at 104).
inline int64_t getCachedRegisters(int64_t runs, int64_t vector,
                                  const RowProblem &problem) {
  if (problem.isElementwiseOutput() || ShapedType::isDynamic(problem.n))
    return runs * vector;
  return (runs * vector * problem.inType.getIntOrFloatBitWidth() + 31) / 32;
}

/// Shared memory for the cross-warp combine of rows wider than a warp: per
/// row, per warp, two f32 statistics, for each of the two combines.
int64_t getRowCombineBytes(RowConfigAttr config);

/// Elements of each row a block stages: its threads' cached runs.
inline int64_t getRowStagedColumns(RowConfigAttr config) {
  return config.getCachedRuns() * config.getThreadsPerRow() *
         config.getVector();
}

/// Shared memory for the rows a `cache = shared` block stages: each row's
/// cached runs as stored (a multiple of 16 bytes; 0 for other configs).
int64_t getRowStagedBytes(RowConfigAttr config, const RowProblem &problem);

/// A block's shared memory: its staged rows, then the combine's
/// statistics.
inline int64_t getRowSmemBytes(RowConfigAttr config,
                               const RowProblem &problem) {
  return getRowStagedBytes(config, problem) + getRowCombineBytes(config);
}

/// Threads, shared memory, registers, occupancy and grid of `config`.
KernelResources getRowResources(RowConfigAttr config, const RowProblem &problem,
                                const TargetSpec &target);

/// What the synthesizer can generate: `vector` must divide a static row
/// length (a dynamic one takes vector 1), `passes = 2` only where it means
/// something, a cluster only on a target that has clusters (when given).
LogicalResult checkRowLowerable(RowConfigAttr config, const RowProblem &problem,
                                std::string &whyNot,
                                const TargetSpec *target = nullptr);

/// Columns of a clustered row's workspace: per block of the cluster, two
/// f32 statistics for each of the two combines.
inline int64_t getRowWorkspaceColumns(RowConfigAttr config) {
  return config.getCluster() * 2 * 2;
}

/// The workspace a `cluster > 1` kernel takes (rows x getRowWorkspaceColumns
/// f32), or null.
MemRefType getRowWorkspaceType(RowConfigAttr config, const RowProblem &problem);

/// Builds the kernel `name` in `module` for `kernel`'s problem.
FailureOr<gpu::GPUFuncOp> synthesizeRowKernel(gpu::GPUModuleOp module,
                                              KernelOp kernel,
                                              RowConfigAttr config,
                                              StringRef name,
                                              const TargetSpec &target);

/// One row of a static problem inside another kernel (the megakernel's
/// row steps): row `row` of `x` into `y`, by every thread of the block
/// (config: threads_per_row = the block, rows_per_block = 1, cached_runs =
/// 0). All threads must reach it (it has barriers); a row past x's does
/// nothing. `smem` holds getRowCombineBytes(config) bytes of f32 when that is
/// not 0; the caller orders its reuse by the next tile with a barrier.
struct RowTile {
  Value x, weight, bias, y, row, smem;
};
void buildRowTile(ImplicitLocOpBuilder &b, RowConfigAttr config,
                  const RowProblem &p, const RowTile &tile);

/// Replaces a linalg.softmax or linalg.reduce (see ImportLinalg.cpp) by
/// amk.row_reduce.
LogicalResult importLinalgRowOp(RewriterBase &rewriter, Operation *op,
                                ImportDecline &why);

/// The family, for registerAllFamilies.
std::unique_ptr<KernelFamily> createRowReduceFamily();

} // namespace mlir::amk

#endif // AMK_FAMILY_ROWREDUCE_ROWREDUCEMODEL_H
