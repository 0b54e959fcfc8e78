//===- RowKernelBuilder.h - The row-wise kernel builder ---------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The builder the row-wise synthesizer's parts share: the skeleton and the
// problems' passes (RowReduceSynthesis.cpp), the runs of a row, streamed or
// cached (RowReduceRuns.cpp), and the statistics and their combines across
// a row's threads (RowReduceStats.cpp). Internal to the synthesizer.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_FAMILY_ROWREDUCE_ROWKERNELBUILDER_H
#define AMK_LIB_FAMILY_ROWREDUCE_ROWKERNELBUILDER_H

#include "AMK/Family/KernelBuilding.h"
#include "AMK/Family/RowReduce/RowReduceModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <functional>
#include <limits>

namespace mlir::amk::rows {

/// Runs a thread of a streamed row loads before it uses the first: the
/// run loop takes this many an iteration (the cost model's loads in
/// flight; ptxas does not unroll the loop itself where the row length is
/// dynamic, and one 16-byte load at a time left a few long rows latency
/// bound).
constexpr int64_t kStreamedRunsInFlight = 4;
/// The most scalar runs a thread caches in the element version of a
/// dynamic row length its vector does not divide.
constexpr int64_t kMaxElementRuns = 16;

/// A pass's statistics: a few f32 values per thread.
using Stats = SmallVector<Value, 2>;

/// What one statistics pass computes: its initial values, how an element
/// folds in, and how two threads' statistics combine.
struct StatPass {
  std::function<Stats()> init;
  std::function<Stats(const Stats &, Value)> fold;
  std::function<Stats(const Stats &, const Stats &)> combine;
  /// Folds a whole run at once where that is cheaper (online softmax:
  /// one rescale per run, not per element); null: element by element.
  std::function<Stats(const Stats &, ArrayRef<Value>)> foldRun;
};

class RowKernelBuilder {
public:
  RowKernelBuilder(ImplicitLocOpBuilder &b, RowConfigAttr config,
                   const RowProblem &p)
      : b(b), config(config), p(p) {}

  void build(gpu::GPUFuncOp func);
  /// The body of one row inside another kernel (buildRowTile).
  void buildTile(const RowTile &tile);

private:
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value toF32(Value v) {
    return v.getType().isF32() ? v
                               : arith::ExtFOp::create(b, b.getF32Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }

  Value dim(Value memref, int64_t d);
  /// An scf.if on `cond` of results `types`: what `then` builds and
  /// returns where `cond` holds, what `otherwise` does where not (each
  /// built in its own branch, `otherwise` first).
  ResultRange buildIfElse(Value cond, TypeRange types,
                          llvm::function_ref<SmallVector<Value>()> then,
                          llvm::function_ref<SmallVector<Value>()> otherwise);
  /// The row length as f32.
  Value lengthF32();

  /// `width` elements of `memref` at [row, col] (or [col] for rank 1), as
  /// f32 (or as stored).
  SmallVector<Value> loadRun(Value memref, ValueRange at, bool asF32 = true);
  /// Those elements as one vector (a scalar where `width` is 1), and its
  /// elements.
  Value loadVector(Value memref, ValueRange at);
  SmallVector<Value> splitRun(Value run, bool asF32);
  /// A cached run as f32.
  SmallVector<Value> cachedAsF32(ArrayRef<Value> run) {
    SmallVector<Value> out;
    for (Value v : run)
      out.push_back(toF32(v));
    return out;
  }
  /// `index` (the start of a run of `width`) into dimension `d` of
  /// `memref`, clamped to 0 where that is dynamic (the run never leaves it;
  /// the clamp says so to the bounds proof, which does not relate different
  /// buffers' dynamic sizes or take a loop bound for a guard).
  Value clampTo(Value memref, int64_t d, Value index);
  /// Column `col + i` of dimension `d` of `memref`, clamped to 0 where it
  /// leaves it: a split run's elements, each clamped on its own (the bounds
  /// proof does not carry the run's clamp through the addition).
  Value clampElement(Value memref, int64_t d, Value col, int64_t i);
  /// Folds this thread's elements of the row into `pass`'s statistics.
  Stats foldRow(const StatPass &pass);
  /// The row's statistics, combined over its threads (all threads call).
  Stats combineRow(const StatPass &pass, Stats stats, int64_t stage);
  /// A block's statistics of its part of the row, combined over the row's
  /// cluster (all threads of the cluster call; `stats` where cluster = 1).
  Stats combineCluster(const StatPass &pass, Stats stats, int64_t stage);
  /// Where a run of the row is: its column, and whether it is in the row
  /// (a static row's column is clamped into it; a dynamic row's run must
  /// be touched under `valid` only).
  struct RunPlace {
    Value col, valid;
  };
  RunPlace locateRun(Value run, bool nearLane);
  /// The run's elements as stored (zeros where a dynamic row has none).
  SmallVector<Value> loadPlacedRun(const RunPlace &at);
  /// The runs of an iteration of buildRunLoop, all loaded first (as
  /// stored: widened where used, they take half the registers in flight).
  SmallVector<std::pair<RunPlace, SmallVector<Value>>>
  loadRunGroup(scf::ForOp loop);
  /// Calls `body(col, values)` for this thread's runs of an existing row
  /// (values as f32).
  void forEachRun(llvm::function_ref<void(Value, ArrayRef<Value>)> body);
  /// With split loads, loops over this thread's elements past the row's
  /// last whole run (`width` is 1 in `body`), carrying `init` through
  /// `body(col, carried)`; `results` are what the loop yields (`init`
  /// without split loads).
  void forEachTail(ValueRange init,
                   llvm::function_ref<Stats(Value, ValueRange)> body,
                   SmallVectorImpl<Value> &results);
  scf::ForOp buildRunLoop(ValueRange init);

  StatPass sumPass(std::function<Value(Value)> term);
  StatPass maxPass();
  StatPass onlineSoftmaxPass();
  static Stats combineOnline(ImplicitLocOpBuilder &b, const Stats &a,
                             const Stats &c);

  void writeReduction(Value value);
  using ElementFn = llvm::function_ref<Value(Value, int64_t, Value)>;
  /// Writes y: `element(v, i, col)` of each element v of this thread's
  /// runs (for a cached row, `values[k]` in place of run k where given).
  void writeRows(ElementFn element, ArrayRef<SmallVector<Value>> values = {});

  /// Loads this thread's `count` runs of the row once (clamped into the
  /// row; `cachedValid` says which exist); a staged row only places them
  /// (stageRow loads them).
  void loadCachedRow(int64_t count);
  /// Whether the passes being built read a cached row (in registers or
  /// staged).
  bool isCached() const { return !cachedValid.empty(); }
  /// Cached run `k` as stored: its registers, or a read of its staged copy.
  SmallVector<Value> cachedRun(int64_t k);
  /// Folds the cached runs that exist into `pass`'s statistics.
  Stats foldCached(const StatPass &pass);
  /// The first pass over a staged row: loads its runs a group at a time,
  /// copies each to the thread's own slots of the staged row and folds it.
  Stats stageRow(const StatPass &pass);
  /// `stats` with `run` folded in where `valid`.
  Stats foldValidRun(const StatPass &pass, const Stats &stats,
                     ArrayRef<Value> run, Value valid);

  /// The statistics and output passes over this thread's runs (after the
  /// row and shared memory are set up), `width` elements per run: a cached
  /// row where the config caches one and, for a dynamic length, where the
  /// row fits; a streamed one otherwise.
  void buildRows();
  /// Those passes over `cachedCount` cached runs a thread (0: streamed).
  /// (Split loads stream only.)
  void buildPasses(int64_t cachedCount);

  ImplicitLocOpBuilder &b;
  RowConfigAttr config;
  const RowProblem &p;
  /// Elements per run in the version being built: the config's vector, or
  /// 1 in the fallback of a dynamic row length it does not divide.
  int64_t width = 1;
  /// Streamed runs loaded and stored element by element, and the row's
  /// last n mod width elements after them: how the version of a dynamic
  /// row length that the vector does not divide streams (its rows start
  /// anywhere).
  bool splitLoads = false;
  Value x, weight, bias, y;
  /// The cached runs (as stored), whether each is in the row, and its
  /// column (clamped into the row).
  SmallVector<SmallVector<Value>> cachedRuns;
  SmallVector<Value> cachedValid, cachedColumn;
  /// A staged row (cache = shared): the block's rows in shared memory, each
  /// cached run's column there (unclamped: a thread's own slots, past the
  /// row for runs that do not exist), and whether the first pass has
  /// copied the row yet.
  Value staged;
  SmallVector<Value> stagedColumn;
  bool rowStaged = false;
  /// The weight and bias of the run being written (f32).
  SmallVector<Value> runWeight, runBias;
  Value tid, lane, warpInRow, rowInBlock, row, active;
  /// A clustered row (cluster > 1): the block's rank in the row's cluster,
  /// and the workspace its blocks meet through.
  Value rank, workspace;
  /// The thread's place among the row's threads (all its blocks'), and
  /// their number: the runs of the row interleave over them.
  Value rowLane;
  int64_t rowThreads = 1;
  Value smem;
};
} // namespace mlir::amk::rows

#endif // AMK_LIB_FAMILY_ROWREDUCE_ROWKERNELBUILDER_H
