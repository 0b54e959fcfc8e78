//===- Uniformity.cpp - Thread-uniform and divergent values ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Uniformity.h"
#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/LaunchIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amk;

/// Ops whose results differ by thread no matter their operands.
static bool isDivergenceSource(Operation *op) {
  // A warp's id differs across the warps of a block: divergent for barriers.
  return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::GlobalIdOp, gpu::SubgroupIdOp,
             NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp,
             NVVM::LaneIdOp, NVVM::WarpIdOp, NVVM::ElectSyncOp>(op) ||
         // Per-lane data movement and math: every lane gets its own part.
         op->getName().getDialectNamespace() == "nvgpu" ||
         op->getName().getStringRef().starts_with("nvvm.mma") ||
         op->getName().getStringRef().starts_with("nvvm.ldmatrix") ||
         // Atomics return what each thread saw.
         op->getName().getStringRef().contains("atomic") ||
         op->getName().getStringRef().contains("shfl");
}

/// Threads in one group of `scope` (the block's: unbounded).
static int64_t groupThreads(ThreadScope scope) {
  return scope == ThreadScope::Warp ? 32 : 128;
}

/// Whether `cmp` compares a thread id (`isThreadId`) with a constant at a
/// boundary between groups of `group` consecutive ids (`tid < 256`,
/// `tid >= 128`, `tid > 127`): the threads of one group all pass or all
/// fail it.
static bool isGroupBoundaryTest(arith::CmpIOp cmp, int64_t group,
                                function_ref<bool(Value)> isThreadId) {
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  std::optional<int64_t> c = getConstantIntValue(cmp.getRhs());
  if (!isThreadId(cmp.getLhs())) {
    // c < tid is tid > c, and so on.
    if (!isThreadId(cmp.getRhs()))
      return false;
    c = getConstantIntValue(cmp.getLhs());
    pred = swapCmpIOperands(pred);
  }
  if (!c || *c < 0 || *c > (int64_t(1) << 40))
    return false;
  switch (pred) {
  case P::ult:
  case P::slt:
  case P::uge:
  case P::sge:
    // The first id past the boundary is c.
    return *c % group == 0;
  case P::ule:
  case P::sle:
  case P::ugt:
  case P::sgt:
    // ... is c + 1.
    return (*c + 1) % group == 0;
  default:
    return false;
  }
}

/// The dimension a thread-id op reads, if it is one.
static std::optional<unsigned> getThreadIdDim(Operation *op) {
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
    return unsigned(tid.getDimension());
  if (isa<NVVM::ThreadIdXOp>(op))
    return 0u;
  if (isa<NVVM::ThreadIdYOp>(op))
    return 1u;
  if (isa<NVVM::ThreadIdZOp>(op))
    return 2u;
  return std::nullopt;
}

/// A known size of three positive extents (a malformed one, a zero
/// extent say, is no size: the launch checks report it).
static std::optional<std::array<int64_t, 3>> getSize(DenseI32ArrayAttr size) {
  if (!size || size.size() != 3 ||
      llvm::any_of(size.asArrayRef(), [](int32_t d) { return d < 1; }))
    return std::nullopt;
  return std::array<int64_t, 3>{size[0], size[1], size[2]};
}

UniformityInfo::UniformityInfo(Operation *kernel) : kernel(kernel) {
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel)) {
    block = getSize(func.getKnownBlockSizeAttr());
    cluster = getSize(func.getKnownClusterSizeAttr());
  }
  for (ThreadScope scope :
       {ThreadScope::Grid, ThreadScope::Cluster, ThreadScope::Block,
        ThreadScope::Warpgroup, ThreadScope::Warp}) {
    // Monotone: values only ever become divergent, so iterate to a
    // fixpoint.
    bool changed = true;
    while (changed) {
      changed = false;
      kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op != kernel)
          changed |= update(op, scope);
      });
    }
  }
}

/// Whether `op` reads memory (its result may be what another block wrote).
static bool readsMemory(Operation *op) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  return op->getNumResults() > 0 &&
         (!iface || iface.hasEffect<MemoryEffects::Read>()) &&
         !isMemoryEffectFree(op);
}

bool UniformityInfo::isSource(Operation *op, ThreadScope scope) const {
  // The blocks of a cluster share its id, not their block ids.
  if (scope == ThreadScope::Cluster &&
      isa<gpu::ClusterIdOp, NVVM::ClusterIdXOp, NVVM::ClusterIdYOp,
          NVVM::ClusterIdZOp>(op))
    return false;
  if (scope == ThreadScope::Grid || scope == ThreadScope::Cluster)
    return isDivergenceSource(op) ||
           isa<gpu::BlockIdOp, gpu::ClusterIdOp, gpu::ClusterBlockIdOp,
               NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp,
               NVVM::ClusterIdXOp, NVVM::ClusterIdYOp, NVVM::ClusterIdZOp,
               NVVM::BlockInClusterIdXOp, NVVM::BlockInClusterIdYOp,
               NVVM::BlockInClusterIdZOp, NVVM::SmIdOp>(op) ||
           readsMemory(op);
  if (scope == ThreadScope::Block)
    return isDivergenceSource(op);
  // Within a group: thread ids of the dimensions a group spans. Groups are
  // runs of consecutive linear thread ids (x fastest): a dimension is
  // uniform over a group when the dimensions below it hold whole groups.
  if (std::optional<unsigned> dim = getThreadIdDim(op)) {
    if (*dim == 0 || !block)
      return true;
    int64_t below = *dim == 1 ? (*block)[0] : (*block)[0] * (*block)[1];
    return below % groupThreads(scope) != 0;
  }
  // The warp id is the same for a warp's lanes (a warpgroup has four).
  if (isa<gpu::SubgroupIdOp, NVVM::WarpIdOp>(op))
    return scope == ThreadScope::Warpgroup;
  return isDivergenceSource(op);
}

bool UniformityInfo::isGroupUniform(Operation *op, ThreadScope scope) const {
  if (scope == ThreadScope::Grid)
    return false;
  if (scope == ThreadScope::Cluster) {
    // A block id divided by a multiple of the cluster's extent in its
    // dimension: clusters tile the grid, so the blocks of one share it.
    if (!cluster || !isa<arith::DivUIOp>(op))
      return false;
    Operation *def = op->getOperand(0).getDefiningOp();
    std::optional<LaunchIndex> index =
        def ? getLaunchIndex(def) : std::nullopt;
    std::optional<int64_t> divisor = getConstantIntValue(op->getOperand(1));
    return index && index->kind == LaunchIndex::Kind::BlockId && divisor &&
           *divisor > 0 && *divisor % (*cluster)[index->dim] == 0;
  }
  // Every thread of the block gets the same reduction.
  if (isa<gpu::AllReduceOp>(op))
    return true;
  if (scope == ThreadScope::Block)
    return false;
  // A reduction over the whole warp is the same for its lanes.
  if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
    return !reduce.getClusterSize() || *reduce.getClusterSize() >= 32;
  // The group index: thread_id x divided by a multiple of the group size,
  // or compared with a group boundary, when the block's rows hold whole
  // groups (or the block is one row).
  if (!isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp, arith::ShRUIOp,
           arith::CmpIOp>(op) ||
      !block)
    return false;
  bool oneRow = (*block)[1] == 1 && (*block)[2] == 1;
  int64_t group = groupThreads(scope);
  if (!oneRow && (*block)[0] % group != 0)
    return false;
  auto isThreadIdX = [](Value v) {
    while (auto cast = v.getDefiningOp<arith::IndexCastOp>())
      v = cast.getIn();
    while (auto cast = v.getDefiningOp<arith::IndexCastUIOp>())
      v = cast.getIn();
    std::optional<unsigned> dim =
        v.getDefiningOp() ? getThreadIdDim(v.getDefiningOp()) : std::nullopt;
    return dim == 0u;
  };
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return isGroupBoundaryTest(cmp, group, isThreadIdX);
  std::optional<int64_t> divisor = getConstantIntValue(op->getOperand(1));
  if (!isThreadIdX(op->getOperand(0)) || !divisor || *divisor <= 0)
    return false;
  if (isa<arith::ShRUIOp>(op))
    return *divisor < 62 && (int64_t(1) << *divisor) % group == 0;
  return *divisor % group == 0;
}

bool UniformityInfo::hasDivergentControl(Operation *op,
                                         ThreadScope scope) const {
  auto div = [&](Value v) { return isDivergent(v, scope); };
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](scf::IfOp ifOp) { return div(ifOp.getCondition()); })
      .Case([&](scf::ForOp forOp) {
        return div(forOp.getLowerBound()) || div(forOp.getUpperBound()) ||
               div(forOp.getStep());
      })
      .Case([&](scf::WhileOp whileOp) {
        return div(whileOp.getConditionOp().getCondition());
      })
      .Case([&](scf::IndexSwitchOp op) { return div(op.getArg()); })
      // Any other op with regions: assume its control is thread-dependent
      // if any operand is.
      .Default(
          [&](Operation *op) { return llvm::any_of(op->getOperands(), div); });
}

Operation *UniformityInfo::getDivergentAncestor(Operation *op,
                                                ThreadScope scope) const {
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp())
    if (hasDivergentControl(parent, scope))
      return parent;
  return nullptr;
}

bool UniformityInfo::update(Operation *op, ThreadScope scope) {
  llvm::DenseSet<Value> &set = divergent[index(scope)];
  bool changed = false;
  auto mark = [&](Value v) { return set.insert(v).second; };
  auto markAll = [&](ValueRange values) {
    for (Value v : values)
      changed |= mark(v);
  };
  auto anyDivergent = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return set.contains(v); });
  };

  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    bool control = hasDivergentControl(op, scope);
    if (control)
      changed |= mark(forOp.getInductionVar());
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [init, arg, yielded, result] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                   yield.getOperands(), forOp.getResults())) {
      if (control || set.contains(init) || set.contains(yielded)) {
        changed |= mark(arg);
        changed |= mark(result);
      }
    }
    return changed;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool control = hasDivergentControl(op, scope);
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      bool div = control;
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty())
          div |= set.contains(region->front().getTerminator()->getOperand(i));
      if (div)
        changed |= mark(result);
    }
    return changed;
  }
  if (isGroupUniform(op, scope))
    return false;
  if (isa<scf::WhileOp, scf::IndexSwitchOp>(op) ||
      (op->getNumRegions() > 0 && !isa<scf::ParallelOp>(op))) {
    // Conservative for the rest: divergent control or any divergent value
    // flowing in makes every region argument and result divergent.
    bool div =
        hasDivergentControl(op, scope) || anyDivergent(op->getOperands());
    op->walk([&](Operation *nested) {
      if (nested != op && nested->hasTrait<OpTrait::IsTerminator>())
        div |= anyDivergent(nested->getOperands());
    });
    if (div) {
      markAll(op->getResults());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          markAll(block.getArguments());
    }
    return changed;
  }
  if (isSource(op, scope) || anyDivergent(op->getOperands()))
    markAll(op->getResults());
  return changed;
}
