//===- GraphModel.h - The megakernel family's model -------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// An `amk.graph` computed by one persistent, cooperative kernel
// (`#amk.graph_config`). Every step is split over all blocks: products
// and elementwise steps by output columns (block b owns the columns b,
// b + blocks, ..., or with mma_sync the tiles of 8 columns b, b + blocks,
// ...), row steps by rows; the writes of different blocks are disjoint by
// construction. A step that reads an earlier result another block wrote
// first waits on a counter, which each block signals once when its part
// is written; one reading only its own block's results needs a barrier.
// The kernel's buffers: the graph's operands, its internal buffers, then
// the counters (one i32 per step, zeroed by the launch).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GRAPH_GRAPHMODEL_H
#define AMK_FAMILY_GRAPH_GRAPHMODEL_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/Family.h"
#include "AMK/Family/RowReduce/RowReduceModel.h"

#include "llvm/Support/JSON.h"

namespace mlir::amk {

/// Where a step reads an activation from.
struct GraphSource {
  /// A graph input (its operand index), or the result of step `step`.
  std::optional<unsigned> input, step;
};

/// What a step computes.
enum class GraphStepKind {
  /// C[M, N] = act(alpha * A[M, K] W[N, K]^T + bias[N]).
  matmul,
  /// C[M, N] = a row op (softmax, rms_norm, layer_norm) of A[M, N], with
  /// the norm's weight[N] and bias[N].
  row,
  /// C[M, N] = A[M, N] op B[M, N] (add, sub, mul, div, max, min).
  elementwise,
  /// C[M, heads * D] = decode attention (amk.decode_attention) of the
  /// queries A over the caches and the new keys B and values V.
  attention,
};

enum class ElementwiseOp { add, sub, mul, div, max, min };
StringRef stringifyElementwiseOp(ElementwiseOp op);

/// One step. Operands are numbered as the graph's (inputs, then outputs).
/// Products and elementwise steps own output columns the same way (block
/// b the columns, or with mma_sync the tiles of 8 columns, b, b + blocks,
/// ...), so an elementwise step reads those results from its own block;
/// row steps own whole rows (block b the rows b, b + blocks, ...).
struct GraphStep {
  GraphStepKind kind = GraphStepKind::matmul;
  /// The result is [m, n]; k is a product's depth (0 for other steps).
  int64_t m = 0, n = 0, k = 0;
  /// A's element type and C's; `bType` is an elementwise step's B's.
  Type inType, outType, bType;
  Activation activation = Activation::none;
  double alpha = 1.0;
  RowOp rowOp = RowOp::rms_norm;
  double eps = 1e-5;
  ElementwiseOp binary = ElementwiseOp::add;
  GraphSource a, b;
  /// A product's weights, a norm's weight, and the bias of either.
  std::optional<unsigned> weights, bias;
  /// Attention: k is the head size D, alpha the scores' scale. Its heads
  /// (query and key/value), the positions L the caches hold, the source
  /// of the new values (the new keys are b), the caches and the lengths
  /// (graph inputs).
  int64_t heads = 0, kvHeads = 0, cacheLength = 0;
  GraphSource v;
  std::optional<unsigned> keyCache, valueCache, lengths;
  /// Attention's rotary tables (graph inputs, [L + 1, D]), when it rotates
  /// q and the new keys.
  std::optional<unsigned> cos, sin;
  /// Attention that appends the new keys and values to its caches (graph
  /// outputs then): after every block's reads of them, at the kernel's
  /// end; `appendWaits` when no later step's wait covers this step, so the
  /// end waits on its counter first.
  bool append = false, appendWaits = false;
  /// Where C goes: an output (its operand index) or internal buffer `buffer`.
  std::optional<unsigned> output, buffer;

  /// The ordering before the step runs, derived from the wiring by
  /// GraphProblem::connect: the counter of step `waitsOn` (the latest step
  /// whose result this one reads from other blocks; its release follows
  /// every earlier write of each block; none when an earlier wait covers
  /// it), or a block barrier when it reads earlier results only from its
  /// own block.
  std::optional<unsigned> waitsOn;
  bool barrierBefore = false;
  /// Whether a later step waits on this step's counter.
  bool signals = false;

  int64_t inBytes() const { return inType.getIntOrFloatBitWidth() / 8; }
  int64_t outBytes() const { return outType.getIntOrFloatBitWidth() / 8; }
  /// Elements per 16-byte load of a row: the largest that divides K (a
  /// product's depth, the row length otherwise).
  int64_t getVector() const;
  /// Whether the step writes by output columns (products, elementwise);
  /// row steps own rows, attention (row, head) pairs.
  bool ownsColumns() const {
    return kind == GraphStepKind::matmul || kind == GraphStepKind::elementwise;
  }
  /// Attention: the lanes that hold one position's D elements (a 16-byte
  /// run each), and the positions a warp takes at a time.
  int64_t getAttentionLanes() const { return k / getVector(); }
  int64_t getAttentionSlots() const { return 32 / getAttentionLanes(); }
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

  /// Derives each step's ordering (waitsOn, barrierBefore, signals) from
  /// where its activations come from.
  void connect();
  /// The most rows (M) of any product.
  int64_t getMaxRows() const;
  /// Bytes every step reads and writes once (weights, activations, bias,
  /// C).
  double getBytes() const;
};

/// The most rows (M) a product may have: the tasks keep M x rows_per_warp
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
/// The TMA ring of a product (config stages > 0): each stage holds, for
/// each of the block's `getGraphStageTiles` tiles at a time and each group
/// of the K split, a box of 8 weight rows by `getGraphStageColumns`
/// columns of K (group p's the p-th of the stage's consecutive boxes of
/// K): a stage is a box per warp and tile slot whatever the split. The
/// ring sits at offset 0 of shared memory; what the steps' combines use
/// follows it.
int64_t getGraphStageColumns(const GraphStep &step);
int64_t getGraphStageTiles(GraphConfigAttr config, const GraphStep &step);
int64_t getGraphStageBoxes(GraphConfigAttr config, const GraphStep &step);
/// Whether a stage also holds A's rows for its columns, copied by all
/// threads with cp.async (16 bytes each, as many per thread): then the
/// block reads A once per stage, not once per warp, and A needs no room in
/// L1, which the ring takes.
bool getGraphRingStagesA(GraphConfigAttr config, const GraphStep &step);
int64_t getGraphStageBytes(GraphConfigAttr config, const GraphStep &step);
int64_t getGraphRingBytes(GraphConfigAttr config, const GraphProblem &problem);
/// The ring's tile iterations of a step are unrolled (each has its own
/// constant stages and phases): at most this many.
constexpr int64_t kMaxGraphRingIterations = 8;
/// The alignment of shared memory the ring asks for (TMA boxes land on
/// 128-byte boundaries).
constexpr int64_t kGraphSmemAlignBytes = 128;

/// Attention: the positions each lane group takes per iteration of its
/// loop (their loads are in flight together).
constexpr int64_t kGraphAttentionUnroll = 4;
/// The split parts a merge loads at once, before folding them.
constexpr int64_t kGraphAttentionMergeGroup = 8;
/// The positions a block's warps take in one round of their loop (each
/// lane group kGraphAttentionUnroll of them).
int64_t getGraphAttentionRound(GraphConfigAttr config, const GraphStep &step);
/// The most query heads of one key/value head a block takes together
/// (each lane keeps a query run and a state per head).
constexpr int64_t kMaxGraphAttentionUnitHeads = 4;
/// The registers a lane of an attention step takes with `unitHeads` heads
/// a unit.
int64_t getGraphAttentionRegisters(const GraphStep &step, int64_t unitHeads);
/// The most registers a unit's heads may take: 16 warps of them fit an
/// SM, and the whole megakernel is sized by its widest step.
constexpr int64_t kMaxGraphAttentionRegisters = 128;
/// The query heads a block takes together, sharing each key and value
/// load (a divisor of the group, at most kMaxGraphAttentionUnitHeads, in
/// kMaxGraphAttentionRegisters): a unit, or a part of one, streams one
/// sequence's cache of one key/value head whatever its heads, so the
/// fewest rounds of positions per block (its tasks times each task's
/// rounds), and of those the most heads (no repeated reads).
int64_t getGraphAttentionUnitHeads(GraphConfigAttr config,
                                   const GraphStep &step);
/// The parts a unit's positions split into when units are fewer than
/// blocks (each part a task of its own, at least a round of the block's
/// positions): their states meet in a workspace, combined after a wait on
/// a counter of their own. 1 when units fill the blocks.
int64_t getGraphAttentionSplits(GraphConfigAttr config, const GraphStep &step);
/// A split attention step's workspace: per task and head of its unit, the
/// D unnormalized outputs, the maximum and the sum (f32).
int64_t getGraphAttentionPartials(GraphConfigAttr config,
                                  const GraphStep &step);
/// The counters: one per step, then one per split attention step (its
/// parts' wait), in step order.
int64_t getGraphCounters(GraphConfigAttr config, const GraphProblem &problem);
/// The f32 a block's attention combine takes: each warp's maximum, sum
/// and D partial outputs per head of its unit.
int64_t getGraphAttentionFloats(GraphConfigAttr config, const GraphStep &step);

/// The row-tile design of a row step: the block's threads on one row.
RowConfigAttr getGraphRowConfig(GraphConfigAttr config, const GraphStep &step);
RowProblem getGraphRowProblem(const GraphStep &step);

/// Warp staging (config warp_staged): each warp loads its weight rows (8
/// per tile slot) in chunks of kGraphStagedColumns columns, a row's 512
/// contiguous bytes per load, and transposes them in registers.
constexpr int64_t kGraphStagedColumns = 256;

/// Shared memory: the TMA ring, then the split's
/// partial sums or the row steps' block reductions (0 without any).
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
