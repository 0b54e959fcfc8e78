//===- SlotCounters.cpp - Counters that hand out slots --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "SlotCounters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    int64_t trips = *ub > *lb ? (*ub - *lb - 1) / *step + 1 : 0;
    if (llvm::MulOverflow(runs, trips, runs))
      return std::nullopt;
  }
  return runs;
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

SlotCounters::SlotCounters(Operation *kernel) {
  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  if (!func)
    return;
  // The ops on each argument: slot adds only (any other use, a view
  // included, makes it no slot counter).
  llvm::DenseMap<Value, SmallVector<memref::AtomicRMWOp>> adds;
  llvm::DenseSet<Value> other;
  kernel->walk([&](Operation *op) {
    auto rmw = dyn_cast<memref::AtomicRMWOp>(op);
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner()->getParentOp() != kernel ||
          !isa<MemRefType>(arg.getType()))
        continue;
      std::optional<int64_t> amount =
          rmw ? getConstantIntValue(rmw.getValue()) : std::nullopt;
      bool slot = rmw && operand == rmw.getMemref() &&
                  rmw.getKind() == arith::AtomicRMWKind::addi && amount &&
                  *amount > 0 &&
                  getConstantIntValues(getAsOpFoldResult(rmw.getIndices()));
      if (slot)
        adds[arg].push_back(rmw);
      else
        other.insert(arg);
    }
  });
  int64_t blockThreads = product(func.getKnownBlockSizeAttr()).value_or(0);
  int64_t blocks = product(func.getKnownGridSizeAttr()).value_or(0);
  unsigned next = 0;
  for (auto &[counter, ops] : adds) {
    if (other.contains(counter))
      continue;
    auto arg = cast<BlockArgument>(counter);
    bool zeroed =
        static_cast<bool>(func.getArgAttr(arg.getArgNumber(), "amk.counter"));
    // Per element: its ops and the sum of every add the launch can make.
    std::map<SmallVector<int64_t>, std::pair<unsigned, std::optional<int64_t>>>
        elements;
    for (memref::AtomicRMWOp rmw : ops) {
      SmallVector<int64_t> at =
          *getConstantIntValues(getAsOpFoldResult(rmw.getIndices()));
      auto [it, fresh] = elements.try_emplace(at, next, 0);
      if (fresh)
        ++next;
      std::optional<int64_t> runs = runsPerThread(rmw, kernel);
      int64_t amount = *getConstantIntValue(rmw.getValue()), total;
      std::optional<int64_t> &sum = it->second.second;
      if (!sum || !runs || !blockThreads || !blocks ||
          llvm::MulOverflow(*runs, blockThreads, total) ||
          llvm::MulOverflow(total, blocks, total) ||
          llvm::MulOverflow(total, amount, total) ||
          llvm::AddOverflow(*sum, total, *sum))
        sum = std::nullopt;
    }
    Type type = getElementTypeOrSelf(counter.getType());
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    for (memref::AtomicRMWOp rmw : ops) {
      SmallVector<int64_t> at =
          *getConstantIntValues(getAsOpFoldResult(rmw.getIndices()));
      auto [id, sum] = elements[at];
      // Distinct while the adds cannot wrap: counted below the signed
      // limit, or a 64-bit counter (2^63 adds would take a launch years).
      bool noWrap = width >= 64 ||
                    (sum && width > 1 && *sum < (int64_t(1) << (width - 1)));
      if (!noWrap)
        continue;
      slotOf[rmw] = {id, *getConstantIntValue(rmw.getValue())};
      if (zeroed && sum)
        ranges[rmw] = {0, *sum - *getConstantIntValue(rmw.getValue())};
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
