//===- TestKernelAnalyses.cpp - Print what the harness's analyses conclude
//-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// --amk-test-kernel-analyses: for every op of a gpu.func kernel that carries
// the unit attribute `amk.test`, one remark with what the harness's
// analyses conclude about it:
//
//   - each integer or index result's signed range (the kernel range
//     analysis every check reads) and the thread groups it is uniform over
//     (UniformityInfo: grid, block, warpgroup, warp);
//   - for a memref or vector load or store, or a memref atomic, the byte
//     address AddressModel gives it (the alignment and coalescing checks'
//     form);
//   - for a slot (SlotCounters: a counter's count, or a block's
//     reservation read back), its counter, element and add.
//
// Test-only: the lit tests of each analysis check these remarks with
// -verify-diagnostics.
//
//===----------------------------------------------------------------------===//

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/Uniformity.h"
#include "AMK/Harness/KernelSafety.h"
// (A private analysis of the harness: its header is not installed.)
#include "../../../lib/Harness/SlotCounters.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

namespace {

constexpr llvm::StringLiteral kTestAttr = "amk.test";

std::string describeRange(const DataFlowSolver &solver, Value v) {
  std::optional<ConstantIntRanges> r = getIntegerRanges(solver, v);
  if (!r)
    return "range unknown";
  return llvm::formatv("range [{0}, {1}]", r->smin().getSExtValue(),
                       r->smax().getSExtValue())
      .str();
}

std::string describeUniformity(const UniformityInfo &uniformity, Value v) {
  static constexpr std::pair<ThreadScope, llvm::StringLiteral> scopes[] = {
      {ThreadScope::Grid, "grid"},
      {ThreadScope::Cluster, "cluster"},
      {ThreadScope::Block, "block"},
      {ThreadScope::Warpgroup, "warpgroup"},
      {ThreadScope::Warp, "warp"}};
  std::string over;
  for (auto [scope, name] : scopes)
    if (!uniformity.isDivergent(v, scope))
      over += (over.empty() ? "" : ", ") + name.str();
  return over.empty() ? "divergent in every warp" : "uniform over " + over;
}

std::string describePoly(const AddressPoly &poly) {
  if (!poly.valid)
    return "not modelled";
  // Terms in text order: the polynomial orders them by value identity,
  // which differs from run to run.
  SmallVector<std::string> terms;
  for (const AddressTerm &term : poly.terms) {
    std::string t = std::to_string(term.coefficient);
    for (const AddressFactor &f : term.factors)
      t += " * (" + f.str() + ")";
    terms.push_back(std::move(t));
  }
  llvm::sort(terms);
  return terms.empty() ? "0" : llvm::join(terms, " + ");
}

/// The memref and indices of the accesses the address model is asked about.
std::optional<std::pair<Value, ValueRange>> getAccess(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return std::make_pair(load.getMemRef(), load.getIndices());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return std::make_pair(store.getMemRef(), store.getIndices());
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return std::make_pair(load.getBase(), load.getIndices());
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return std::make_pair(store.getBase(), store.getIndices());
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    return std::make_pair(rmw.getMemref(), rmw.getIndices());
  return std::nullopt;
}

struct TestKernelAnalysesPass
    : PassWrapper<TestKernelAnalysesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestKernelAnalysesPass)

  StringRef getArgument() const final { return "amk-test-kernel-analyses"; }
  StringRef getDescription() const final {
    return "Remark what the harness's analyses conclude about ops marked "
           "amk.test (test only)";
  }

  void runOnOperation() override {
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel() && failed(analyse(kernel)))
        signalPassFailure();
    });
  }

  LogicalResult analyse(gpu::GPUFuncOp kernel) {
    DataFlowSolver solver;
    if (failed(runKernelRangeAnalysis(solver, kernel)))
      return kernel.emitError("integer range analysis failed");
    UniformityInfo uniformity(kernel);
    AddressModel addresses;
    SlotCounters slots(kernel);
    kernel.walk([&](Operation *op) {
      if (!op->hasAttr(kTestAttr))
        return;
      SmallVector<std::string> parts;
      for (OpResult result : op->getResults()) {
        if (!result.getType().isIntOrIndex())
          continue;
        parts.push_back(llvm::formatv("result #{0}: {1}, {2}",
                                      result.getResultNumber(),
                                      describeRange(solver, result),
                                      describeUniformity(uniformity, result))
                            .str());
      }
      if (std::optional<std::pair<Value, ValueRange>> access = getAccess(op)) {
        std::string whyNot;
        FailureOr<AccessAddress> address =
            addresses.address(access->first, access->second, whyNot);
        parts.push_back(succeeded(address)
                            ? "address " + describePoly(address->bytes) +
                                  " bytes"
                            : "address not modelled: " + whyNot);
      }
      if (op->getNumResults() == 1)
        if (std::optional<SlotCounters::Slot> slot =
                slots.getSlot(op->getResult(0)))
          parts.push_back(
              llvm::formatv(
                  "slot of counter {0}, {1}, adding {2}{3}", slot->counter,
                  slot->element ? "element " + std::to_string(*slot->element)
                                : std::string("a varying element"),
                  slot->amount, slot->shared ? ", shared by the block" : "")
                  .str());
      if (parts.empty())
        parts.push_back("no integer result and no modelled access");
      op->emitRemark(llvm::join(parts, "; "));
    });
    return success();
  }
};

} // namespace

namespace mlir::amk::test {
void registerTestKernelAnalysesPass() {
  PassRegistration<TestKernelAnalysesPass>();
}
} // namespace mlir::amk::test
