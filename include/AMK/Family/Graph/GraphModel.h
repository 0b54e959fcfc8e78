//===- GraphModel.h - The megakernel family's model -------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// An `amk.graph` computed by one persistent, cooperative kernel
// (`#amk.graph_config`). Every step is split over all blocks (block b owns
// the output columns b, b + blocks, ..., or with mma_sync the tiles of 8
// columns b, b + blocks, ...: the writes of different blocks are disjoint
// by construction); a step that reads an earlier step's result
// first waits on that step's counter, which each block signals once when
// its part is written. The kernel's buffers: the graph's operands, its
// internal buffers, then the counters (one i32 per step, zeroed by the
// launch).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GRAPH_GRAPHMODEL_H
#define AMK_FAMILY_GRAPH_GRAPHMODEL_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/Family.h"

#include "llvm/Support/JSON.h"

namespace mlir::amk {

/// Where a step reads its A from.
struct GraphSource {
  /// A graph input (its operand index), or the result of step `step`.
  std::optional<unsigned> input, step;
};

/// One step: C[M, N] = act(alpha * A[M, K] W[N, K]^T + bias[N]). Operands
/// are numbered as the graph's (inputs, then outputs).
struct GraphStep {
  int64_t m = 0, n = 0, k = 0;
  Type inType, outType;
  Activation activation = Activation::none;
  double alpha = 1.0;
  GraphSource a;
  /// The weights' and the bias's operands.
  unsigned weights = 0;
  std::optional<unsigned> bias;
  /// Where C goes: an output (its operand index) or internal buffer `buffer`.
  std::optional<unsigned> output, buffer;
  /// Whether a later step reads this step's result (it then signals).
  bool isRead = false;

  int64_t inBytes() const { return inType.getIntOrFloatBitWidth() / 8; }
  int64_t outBytes() const { return outType.getIntOrFloatBitWidth() / 8; }
  /// Elements per 16-byte load of a row: the largest that divides K.
  int64_t getVector() const;
};

struct GraphProblem {
  SmallVector<GraphStep> steps;
  /// Bytes of the kernel's parameters (a memref descriptor per operand,
  /// buffer and the counters); 0 when unknown (a problem from JSON).
  int64_t paramBytes = 0;

  static GraphProblem get(GraphOp op);
  /// The problem of a manifest's or tuning record's JSON; failure on a
  /// missing or malformed field.
  static FailureOr<GraphProblem> fromJSON(MLIRContext *context,
                                          const llvm::json::Object &json);
  llvm::json::Object toJSON() const;

  /// The most rows (M) of any step.
  int64_t getMaxRows() const;
  /// Bytes every step reads and writes once (weights, A, bias, C).
  double getBytes() const;
};

/// The most rows (M) a step may have: the tasks keep M x rows_per_warp
/// accumulators per lane.
constexpr int64_t kMaxGraphRows = 32;

/// The most bytes of parameters a kernel takes (PTX before ISA 8.1).
constexpr int64_t kMaxKernelParamBytes = 4352;

int64_t getGraphRegisters(GraphConfigAttr config, const GraphProblem &problem);

/// The mma body's split of K over a block's warps for `step`: the most
/// (a power of two) that still leaves a tile slot for each of the block's
/// tiles, so a step with few tiles per block keeps every warp streaming.
/// 1 for simt.
int64_t getGraphKSplit(GraphConfigAttr config, const GraphStep &step);
/// Shared memory for the split's partial sums (0 without a split).
int64_t getGraphSmemBytes(GraphConfigAttr config, const GraphProblem &problem);

KernelResources getGraphResources(GraphConfigAttr config,
                                  const GraphProblem &problem,
                                  const TargetSpec &target);

/// Whether the synthesizer serves `config` on `problem` and `target`
/// (including that every block is resident at once).
LogicalResult checkGraphLowerable(GraphConfigAttr config,
                                  const GraphProblem &problem,
                                  const TargetSpec &target,
                                  std::string &whyNot);

FailureOr<gpu::GPUFuncOp> synthesizeGraphKernel(gpu::GPUModuleOp module,
                                                KernelOp kernel,
                                                GraphConfigAttr config,
                                                StringRef name);

std::unique_ptr<KernelFamily> createGraphFamily();

} // namespace mlir::amk

#endif // AMK_FAMILY_GRAPH_GRAPHMODEL_H
