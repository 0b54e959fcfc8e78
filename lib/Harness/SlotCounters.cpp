//===- SlotCounters.cpp - Counters that hand out slots --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "SlotCounters.h"
#include "Bounds.h"
#include "BoundsProver.h"
#include "ProgramOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"
#include <map>

using namespace mlir;
using namespace mlir::amk;

/// The most times `op` runs in one thread: the product of the trip counts
/// of the loops around it (constant bounds and step); nullopt for any other
/// op around it than a branch, or a product that overflows.
static std::optional<int64_t> runsPerThread(Operation *op, Operation *kernel) {
  int64_t runs = 1;
  for (Operation *p = op->getParentOp(); p && p != kernel;
       p = p->getParentOp()) {
    if (isa<scf::IfOp>(p))
      continue;
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      return std::nullopt;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    int64_t span;
    if (!lb || !ub || !step || *step <= 0 || loop.getUnsignedCmp() ||
        llvm::SubOverflow(*ub, *lb, span))
      return std::nullopt;
    int64_t trips = span > 0 ? (span - 1) / *step + 1 : 0;
    if (llvm::MulOverflow(runs, trips, runs))
      return std::nullopt;
  }
  return runs;
}

/// The thread-id dimension `v` is (through casts), if it is one.
static std::optional<unsigned> getThreadDim(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
      return unsigned(tid.getDimension());
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
             arith::ExtSIOp>(op))
      return std::nullopt;
    v = op->getOperand(0);
  }
  return std::nullopt;
}

/// The threads along each dimension that a test `thread id == c` (one) or
/// `thread id < c` (c) keeps, by its conjuncts; `block` where none.
static void narrowByThreadTests(Value cond, int64_t (&threads)[3]) {
  SmallVector<Value> parts;
  bounds::conjuncts(cond, parts);
  using P = arith::CmpIPredicate;
  for (Value part : parts) {
    auto cmp = part.getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    std::optional<unsigned> dim = getThreadDim(cmp.getLhs());
    std::optional<int64_t> c = getConstantIntValue(cmp.getRhs());
    if (!dim || !c || *c < 0)
      continue;
    if (cmp.getPredicate() == P::eq)
      threads[*dim] = std::min<int64_t>(threads[*dim], 1);
    else if (cmp.getPredicate() == P::ult || cmp.getPredicate() == P::slt)
      threads[*dim] = std::min<int64_t>(threads[*dim], *c);
  }
}

/// An upper bound on the threads of a block (`block`) that run `op`.
static int64_t runningThreads(Operation *op, Operation *kernel,
                              ArrayRef<int64_t> block) {
  int64_t threads[3] = {block[0], block[1], block[2]};
  for (Operation *child = op, *p = op->getParentOp(); p && p != kernel;
       child = p, p = p->getParentOp())
    if (auto ifOp = dyn_cast<scf::IfOp>(p);
        ifOp && child->getParentRegion() == &ifOp.getThenRegion())
      narrowByThreadTests(ifOp.getCondition(), threads);
  return threads[0] * threads[1] * threads[2];
}

/// Whether `op` runs in every block that reaches its ancestor in `stop`'s
/// block: only branches around it, each a test `thread id == c` with c
/// inside `block` (one thread passes) or `thread id < c` with c >= 1.
static bool runsInEveryBlock(Operation *op, Operation *stop,
                             ArrayRef<int64_t> block) {
  for (Operation *child = op, *p = op->getParentOp(); p && p != stop;
       child = p, p = p->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(p);
    if (!ifOp || child->getParentRegion() != &ifOp.getThenRegion())
      return false;
    SmallVector<Value> parts;
    bounds::conjuncts(ifOp.getCondition(), parts);
    for (Value part : parts) {
      auto cmp = part.getDefiningOp<arith::CmpIOp>();
      std::optional<unsigned> dim =
          cmp ? getThreadDim(cmp.getLhs()) : std::nullopt;
      std::optional<int64_t> c =
          cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
      using P = arith::CmpIPredicate;
      bool passes =
          dim && c &&
          ((cmp.getPredicate() == P::eq && *c >= 0 && *c < block[*dim]) ||
           ((cmp.getPredicate() == P::ult || cmp.getPredicate() == P::slt) &&
            *c >= 1));
      if (!passes)
        return false;
    }
  }
  return true;
}

/// The product of a known size attribute's entries (nullopt: not known).
static std::optional<int64_t> product(DenseI32ArrayAttr sizes) {
  if (!sizes)
    return std::nullopt;
  int64_t n = 1;
  for (int32_t d : sizes.asArrayRef())
    if (d <= 0 || llvm::MulOverflow(n, int64_t(d), n))
      return std::nullopt;
  return n;
}

/// The ops on each argument of `kernel`: slot adds only (`adds`), or also
/// any other use (`other`; a view included).
static void
collectAdds(Operation *kernel,
            llvm::MapVector<Value, SmallVector<memref::AtomicRMWOp>> &adds,
            llvm::DenseSet<Value> &other) {
  kernel->walk([&](Operation *op) {
    auto rmw = dyn_cast<memref::AtomicRMWOp>(op);
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner()->getParentOp() != kernel ||
          !isa<MemRefType>(arg.getType()))
        continue;
      bool slot = rmw && operand == rmw.getMemref() && getPositiveAdd(rmw);
      if (slot)
        adds[arg].push_back(rmw);
      else
        other.insert(arg);
    }
  });
}

/// Every add `rmw` can make in a launch of `blocks` blocks of `block`
/// (nullopt: not counted). A work queue's next slot (kWorkQueueBound) is
/// run once per loop in the checks' copy; the slots below n it took are at
/// most n more, counted from a zeroed counter's 0.
static std::optional<int64_t> countAdds(memref::AtomicRMWOp rmw,
                                        Operation *kernel,
                                        ArrayRef<int64_t> block, int64_t blocks,
                                        bool zeroed) {
  std::optional<int64_t> runs = runsPerThread(rmw, kernel);
  int64_t amount = *getConstantIntValue(rmw.getValue()), total;
  int64_t threads = block[0] ? runningThreads(rmw, kernel, block) : 0;
  if (!runs || !threads || !blocks ||
      llvm::MulOverflow(*runs, threads, total) ||
      llvm::MulOverflow(total, blocks, total) ||
      llvm::MulOverflow(total, amount, total))
    return std::nullopt;
  if (!rmw->hasAttr(SlotCounters::kWorkQueueBound))
    return total;
  auto bound = rmw->getAttrOfType<IntegerAttr>(SlotCounters::kWorkQueueBound);
  int64_t more;
  if (!bound || !zeroed || bound.getInt() < 0 ||
      llvm::MulOverflow(bound.getInt(), amount, more) ||
      llvm::AddOverflow(total, more, total))
    return std::nullopt;
  return total;
}

bool SlotCounters::isSlotAdd(memref::AtomicRMWOp rmw, Operation *kernel) {
  llvm::MapVector<Value, SmallVector<memref::AtomicRMWOp>> adds;
  llvm::DenseSet<Value> other;
  collectAdds(kernel, adds, other);
  auto it = adds.find(rmw.getMemref());
  return it != adds.end() && !other.contains(rmw.getMemref()) &&
         llvm::is_contained(it->second, rmw);
}

SlotCounters::SlotCounters(Operation *kernel) {
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  if (!func)
    return;
  llvm::MapVector<Value, SmallVector<memref::AtomicRMWOp>> adds;
  llvm::DenseSet<Value> other;
  collectAdds(kernel, adds, other);
  SmallVector<int64_t, 3> block = {0, 0, 0};
  if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr();
      size && size.size() == 3 && product(size))
    block.assign(size.asArrayRef().begin(), size.asArrayRef().end());
  int64_t blocks = product(func.getKnownGridSizeAttr()).value_or(0);
  unsigned nextElement = 0, nextCounter = 0;
  for (auto &[counter, ops] : adds) {
    if (other.contains(counter))
      continue;
    unsigned counterId = nextCounter++;
    auto arg = cast<BlockArgument>(counter);
    bool zeroed =
        static_cast<bool>(func.getArgAttr(arg.getArgNumber(), "amk.counter"));
    // Every add the launch can make to each constant element, and to the
    // counter (what bounds an element where some op's element varies).
    std::map<SmallVector<int64_t>, std::pair<unsigned, std::optional<int64_t>>>
        elements;
    std::optional<int64_t> total = 0;
    bool varies = false;
    auto add = [&](std::optional<int64_t> &sum, std::optional<int64_t> adds) {
      if (!sum || !adds || llvm::AddOverflow(*sum, *adds, *sum))
        sum = std::nullopt;
    };
    for (memref::AtomicRMWOp rmw : ops) {
      std::optional<int64_t> adds =
          countAdds(rmw, kernel, block, blocks, zeroed);
      add(total, adds);
      std::optional<SmallVector<int64_t>> at =
          getConstantIntValues(getAsOpFoldResult(rmw.getIndices()));
      if (!at) {
        varies = true;
        continue;
      }
      auto [it, fresh] =
          elements.try_emplace(*at, nextElement, std::optional<int64_t>(0));
      if (fresh)
        ++nextElement;
      add(it->second.second, adds);
    }
    Type type = getElementTypeOrSelf(counter.getType());
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    for (memref::AtomicRMWOp rmw : ops) {
      std::optional<SmallVector<int64_t>> at =
          getConstantIntValues(getAsOpFoldResult(rmw.getIndices()));
      std::optional<unsigned> element;
      std::optional<int64_t> sum = total;
      if (at) {
        element = elements[*at].first;
        if (!varies)
          sum = elements[*at].second;
      }
      // Distinct while the adds cannot wrap: counted below the signed
      // limit, or a 64-bit counter (2^63 adds would take a launch years).
      bool noWrap = width >= 64 ||
                    (sum && width > 1 && *sum < (int64_t(1) << (width - 1)));
      if (!noWrap)
        continue;
      int64_t amount = *getConstantIntValue(rmw.getValue());
      slotOf[rmw] = {counterId, element, rmw, amount};
      if (zeroed && sum)
        ranges[rmw] = {0, *sum - amount};
    }
  }
  if (block[0])
    addBroadcasts(kernel, block);
}

void SlotCounters::addBroadcasts(Operation *kernel, ArrayRef<int64_t> block) {
  // (Collected first: the map grows below.)
  SmallVector<std::pair<Operation *, Slot>> atomics(slotOf.begin(),
                                                    slotOf.end());
  for (auto [rmw, slot] : atomics) {
    for (Operation *user : rmw->getResult(0).getUsers()) {
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!store || store.getValue() != rmw->getResult(0))
        continue;
      // (Of a constant element: its indices are the storing thread's.)
      for (memref::LoadOp load : slot.element ? getSharedLoads(store, kernel)
                                              : SmallVector<memref::LoadOp>()) {
        auto [common, a, b] = getCommonBlock(store, load, kernel);
        if (!runsInEveryBlock(store, a->getParentOp(), block))
          continue;
        Slot shared = slot;
        shared.shared = true;
        slotOf[load] = shared;
        if (auto it = ranges.find(rmw); it != ranges.end())
          ranges[load] = it->second;
      }
    }
  }
}

std::optional<SlotCounters::Slot> SlotCounters::getSlot(Value v) const {
  for (int depth = 0; depth < 4; ++depth) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto it = slotOf.find(op); it != slotOf.end())
      return it->second;
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
             arith::ExtSIOp>(op))
      return std::nullopt;
    v = op->getOperand(0);
  }
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>>
SlotCounters::getRange(Operation *op) const {
  auto it = ranges.find(op);
  if (it == ranges.end())
    return std::nullopt;
  return it->second;
}
