//===- RowReduceStats.cpp - Statistics and their combines ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The statistics passes (sums, max, online softmax) and their combine over
// a row's threads: xor shuffles within a warp, then shared memory, one
// barrier and xor shuffles across warps, outside every thread-dependent
// branch.
//
//===----------------------------------------------------------------------===//

#include "RowKernelBuilder.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::rows;

Stats RowKernelBuilder::combineRow(const StatPass &pass, Stats stats,
                                   int64_t stage) {
  Type i32 = b.getI32Type();
  Value width = arith::ConstantIntOp::create(b, i32, 32);
  // Folds aligned groups of `lanes` lanes by xor shuffles: every lane of a
  // group ends with the group's statistics.
  auto butterfly = [&](Stats s, int64_t lanes) {
    for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
      Value off = arith::ConstantIntOp::create(b, i32, offset);
      Stats other;
      for (Value v : s)
        other.push_back(
            gpu::ShuffleOp::create(b, v, off, width, gpu::ShuffleMode::XOR)
                .getShuffleResult());
      s = pass.combine(s, other);
    }
    return s;
  };
  // Within a warp: the row's lanes are an aligned group of threads_per_row.
  stats = butterfly(stats, std::min<int64_t>(config.getThreadsPerRow(), 32));
  int64_t warps = config.getWarpsPerRow();
  if (warps <= 1)
    return combineCluster(pass, stats, stage);
  // Across the row's warps: each warp's first lane publishes, one barrier,
  // then the row's warps fold their parts (below).
  int64_t rowsPerBlock = config.getRowsPerBlock();
  auto slot = [&](Value warp, int64_t k) {
    Value base = arith::AddIOp::create(
        b, arith::MulIOp::create(b, c(stage * rowsPerBlock), c(1)), rowInBlock);
    Value index = arith::AddIOp::create(
        b, arith::MulIOp::create(b, base, c(warps)), warp);
    return arith::AddIOp::create(b, arith::MulIOp::create(b, index, c(2)),
                                 c(k));
  };
  Value leader =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, lane, c(32)), c(0));
  {
    auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [k, v] : llvm::enumerate(stats))
      memref::StoreOp::create(b, v, smem, ValueRange{slot(warpInRow, k)});
  }
  gpu::BarrierOp::create(b);
  // Each lane reads warp (lane mod warps)'s part, so every aligned group of
  // `warps` lanes holds all of them, and xor shuffles within the group fold
  // them: log2(warps) steps (one read each) rather than a read per warp,
  // and the same tree, so the same bits, in every lane.
  Value part = arith::RemUIOp::create(
      b, arith::RemUIOp::create(b, lane, c(32)), c(warps));
  Stats total;
  for (int64_t k = 0, e = stats.size(); k < e; ++k)
    total.push_back(memref::LoadOp::create(b, smem, ValueRange{slot(part, k)}));
  return combineCluster(pass, butterfly(total, warps), stage);
}

Stats RowKernelBuilder::combineCluster(const StatPass &pass, Stats stats,
                                       int64_t stage) {
  int64_t cluster = config.getCluster();
  if (cluster == 1)
    return stats;
  // The block's first thread publishes its statistics in the block's slots
  // of the row's workspace (each pass its own), a cluster barrier, then
  // every thread folds the cluster's parts in rank order: the same order,
  // so the same bits, in every block.
  auto slot = [&](Value r, int64_t k) {
    Value part = arith::AddIOp::create(b, c(stage * cluster), r);
    return arith::AddIOp::create(b, arith::MulIOp::create(b, part, c(2)), c(k));
  };
  // (The launch gives the workspace a row per row; the guard says so to
  // the bounds proof, the same for the cluster's blocks.)
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row,
                                       dim(workspace, 0));
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, c(0));
  {
    auto ifOp = scf::IfOp::create(b, arith::AndIOp::create(b, inside, first),
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [k, v] : llvm::enumerate(stats))
      memref::StoreOp::create(b, v, workspace, ValueRange{row, slot(rank, k)});
  }
  NVVM::ClusterArriveOp::create(b, /*aligned=*/b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, /*aligned=*/b.getUnitAttr());
  SmallVector<Type> types(stats.size(), b.getF32Type());
  auto fold = [&] {
    Stats total;
    for (int64_t r = 0; r < cluster; ++r) {
      Stats part;
      for (int64_t k = 0, e = stats.size(); k < e; ++k)
        part.push_back(memref::LoadOp::create(b, workspace,
                                              ValueRange{row, slot(c(r), k)}));
      total = r == 0 ? part : pass.combine(total, part);
    }
    return llvm::to_vector(total);
  };
  return Stats(
      buildIfElse(inside, types, fold, [&] { return llvm::to_vector(stats); }));
}

StatPass RowKernelBuilder::sumPass(std::function<Value(Value)> term) {
  StatPass pass;
  pass.init = [this] { return Stats{f32(0.0)}; };
  pass.fold = [this, term](const Stats &s, Value v) {
    return Stats{add(s[0], term(v))};
  };
  pass.combine = [this](const Stats &a, const Stats &o) {
    return Stats{add(a[0], o[0])};
  };
  return pass;
}

StatPass RowKernelBuilder::maxPass() {
  StatPass pass;
  pass.init = [this] {
    return Stats{f32(-std::numeric_limits<double>::infinity())};
  };
  auto max = [this](const Stats &s, Value v) {
    return Stats{arith::MaximumFOp::create(b, s[0], v)};
  };
  pass.fold = max;
  pass.combine = [max](const Stats &a, const Stats &o) { return max(a, o[0]); };
  return pass;
}

/// (max, sum of exp(x - max)) of two parts. A part that has seen only
/// -inf contributes nothing (its exp(-inf - -inf) would be NaN).
Stats RowKernelBuilder::combineOnline(ImplicitLocOpBuilder &b, const Stats &a,
                                      const Stats &o) {
  Value m = arith::MaximumFOp::create(b, a[0], o[0]);
  Value negInf = arith::ConstantOp::create(
      b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0));
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m, negInf);
  auto scaled = [&](const Stats &part) {
    Value e = math::ExpOp::create(b, arith::SubFOp::create(b, part[0], m));
    return arith::SelectOp::create(b, empty, zero,
                                   arith::MulFOp::create(b, part[1], e));
  };
  return Stats{m, arith::AddFOp::create(b, scaled(a), scaled(o))};
}

StatPass RowKernelBuilder::onlineSoftmaxPass() {
  StatPass pass;
  pass.init = [this] {
    return Stats{f32(-std::numeric_limits<double>::infinity()), f32(0.0)};
  };
  pass.fold = [this](const Stats &s, Value v) {
    return combineOnline(b, s, Stats{v, f32(1.0)});
  };
  pass.combine = [this](const Stats &a, const Stats &o) {
    return combineOnline(b, a, o);
  };
  // A run's own (max, sum), then one combine: width + 2 exponentials per
  // run instead of two per element. A run of only -inf sums to 0.
  pass.foldRun = [this](const Stats &s, ArrayRef<Value> run) {
    Value m = run.front();
    for (Value v : run.drop_front())
      m = arith::MaximumFOp::create(b, m, v);
    Value sum = f32(0.0);
    for (Value v : run)
      sum = add(sum, math::ExpOp::create(b, sub(v, m)));
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m,
                              f32(-std::numeric_limits<double>::infinity()));
    sum = arith::SelectOp::create(b, empty, f32(0.0), sum);
    return combineOnline(b, s, Stats{m, sum});
  };
  return pass;
}
