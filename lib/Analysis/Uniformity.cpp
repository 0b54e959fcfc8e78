//===- Uniformity.cpp - Thread-uniform and divergent values ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amk;

/// Ops whose results differ by thread no matter their operands.
static bool isDivergenceSource(Operation *op) {
  // A warp's id differs across the warps of a block: divergent for barriers.
  return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::GlobalIdOp,
             gpu::SubgroupIdOp, NVVM::ThreadIdXOp, NVVM::ThreadIdYOp,
             NVVM::ThreadIdZOp, NVVM::LaneIdOp, NVVM::WarpIdOp>(op) ||
         // Per-lane data movement and math: every lane gets its own part.
         op->getName().getDialectNamespace() == "nvgpu" ||
         op->getName().getStringRef().starts_with("nvvm.mma") ||
         op->getName().getStringRef().starts_with("nvvm.ldmatrix") ||
         // Atomics return what each thread saw.
         op->getName().getStringRef().contains("atomic") ||
         op->getName().getStringRef().contains("shfl");
}

UniformityInfo::UniformityInfo(Operation *kernel) : kernel(kernel) {
  // Monotone: values only ever become divergent, so iterate to a fixpoint.
  bool changed = true;
  while (changed) {
    changed = false;
    kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != kernel)
        changed |= update(op);
    });
  }
}

bool UniformityInfo::mark(Value value) {
  return divergent.insert(value).second;
}

bool UniformityInfo::hasDivergentControl(Operation *op) const {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](scf::IfOp ifOp) { return isDivergent(ifOp.getCondition()); })
      .Case([&](scf::ForOp forOp) {
        return isDivergent(forOp.getLowerBound()) ||
               isDivergent(forOp.getUpperBound()) ||
               isDivergent(forOp.getStep());
      })
      .Case([&](scf::WhileOp whileOp) {
        return isDivergent(whileOp.getConditionOp().getCondition());
      })
      .Case([&](scf::IndexSwitchOp op) { return isDivergent(op.getArg()); })
      // Any other op with regions: assume its control is thread-dependent
      // if any operand is.
      .Default([&](Operation *op) {
        return llvm::any_of(op->getOperands(),
                            [&](Value v) { return isDivergent(v); });
      });
}

Operation *UniformityInfo::getDivergentAncestor(Operation *op) const {
  for (Operation *parent = op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp())
    if (hasDivergentControl(parent))
      return parent;
  return nullptr;
}

bool UniformityInfo::update(Operation *op) {
  bool changed = false;
  auto markAll = [&](ValueRange values) {
    for (Value v : values)
      changed |= mark(v);
  };
  auto anyDivergent = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return isDivergent(v); });
  };

  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    bool control = hasDivergentControl(op);
    if (control)
      changed |= mark(forOp.getInductionVar());
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [init, arg, yielded, result] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                   yield.getOperands(), forOp.getResults())) {
      if (control || isDivergent(init) || isDivergent(yielded)) {
        changed |= mark(arg);
        changed |= mark(result);
      }
    }
    return changed;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool control = hasDivergentControl(op);
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      bool div = control;
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty())
          div |= isDivergent(region->front().getTerminator()->getOperand(i));
      if (div)
        changed |= mark(result);
    }
    return changed;
  }
  if (isa<scf::WhileOp, scf::IndexSwitchOp>(op) ||
      (op->getNumRegions() > 0 && !isa<scf::ParallelOp>(op))) {
    // Conservative for the rest: divergent control or any divergent value
    // flowing in makes every region argument and result divergent.
    bool div = hasDivergentControl(op) || anyDivergent(op->getOperands());
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
  if (isDivergenceSource(op) || anyDivergent(op->getOperands()))
    markAll(op->getResults());
  return changed;
}
