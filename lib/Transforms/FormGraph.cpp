//===- FormGraph.cpp - A function of graph steps as one amk.graph ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Other compilers hand AMK a function of ops on buffers, not an amk.graph.
// Where every op of such a function is a step a graph takes (or allocates
// and frees a buffer only the steps use), the steps move into one graph:
// arguments no step writes are its inputs, the written ones its outputs,
// the allocations its internal buffers. The graph's own verifier decides
// whether the steps keep a graph's rules; where they do not, the function
// stays as it was and a remark says why.
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKFORMGRAPHPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;

namespace {
/// What a function holds, when it is all steps and their buffers.
struct GraphParts {
  SmallVector<Operation *> steps;
  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
};

/// The function's steps and buffers, or the reason it is not a graph.
FailureOr<GraphParts> collectParts(func::FuncOp func, std::string &why) {
  GraphParts parts;
  if (!func.getBody().hasOneBlock()) {
    why = "its body is not one block";
    return failure();
  }
  Block &body = func.front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret || ret.getNumOperands() != 0) {
    why = "it returns values (a graph writes its outputs in place)";
    return failure();
  }
  for (Operation &op : body.without_terminator()) {
    if (getGraphStepOperands(&op)) {
      parts.steps.push_back(&op);
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      parts.allocs.push_back(alloc);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      parts.deallocs.push_back(dealloc);
    } else if (isOpTriviallyDead(&op)) {
      // Left behind by an import (the zero a folded linalg.fill took).
      continue;
    } else {
      why = llvm::formatv("'{0}' is not a graph step",
                          op.getName().getStringRef())
                .str();
      return failure();
    }
  }
  if (parts.steps.size() < 2) {
    why = "it has fewer than two steps";
    return failure();
  }
  for (memref::AllocOp alloc : parts.allocs) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getMemorySpace() || alloc.getAlignment()) {
      why = "a buffer it allocates is dynamic, strided, aligned or in another "
            "memory space (graph buffers are static, contiguous and global)";
      return failure();
    }
    for (Operation *user : alloc->getUsers())
      if (!isa<memref::DeallocOp>(user) && !getGraphStepOperands(user)) {
        why = "a buffer it allocates is used by an op that is not a step";
        return failure();
      }
  }
  for (memref::DeallocOp dealloc : parts.deallocs)
    if (!dealloc.getMemref().getDefiningOp<memref::AllocOp>()) {
      why = "it frees a buffer it did not allocate";
      return failure();
    }
  return parts;
}

/// The graph of `parts` before the function's return: the arguments the
/// steps use, inputs then outputs in order of first use.
GraphOp buildGraph(func::FuncOp func, const GraphParts &parts) {
  llvm::SetVector<Value> used, written;
  for (Operation *step : parts.steps) {
    std::optional<GraphStepOperands> operands = getGraphStepOperands(step);
    written.insert(operands->result);
    for (auto [name, value] : operands->updates)
      written.insert(value);
    for (Value operand : step->getOperands())
      if (!operand.getDefiningOp<memref::AllocOp>())
        used.insert(operand);
  }
  SmallVector<Value> inputs, outputs;
  for (Value v : used)
    (written.contains(v) ? outputs : inputs).push_back(v);

  OpBuilder b(func.front().getTerminator());
  auto graph = GraphOp::create(b, func.getLoc(), inputs, outputs);
  SmallVector<Value> operands(inputs);
  llvm::append_range(operands, outputs);
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value v : operands) {
    types.push_back(v.getType());
    locs.push_back(v.getLoc());
  }
  Block *body = b.createBlock(&graph.getBody(), {}, types, locs);
  IRMapping map;
  map.map(operands, body->getArguments());
  for (memref::AllocOp alloc : parts.allocs)
    map.map(alloc.getResult(),
            GraphBufferOp::create(b, alloc.getLoc(), alloc.getType()));
  for (Operation *step : parts.steps)
    b.clone(*step, map);
  return graph;
}

/// Makes `func` one graph where it can; else a remark says why.
void formGraph(func::FuncOp func) {
  // Functions without a step are not this pass's business.
  if (llvm::none_of(func.getBody().getOps(), [](Operation &op) {
        return getGraphStepOperands(&op).has_value();
      }))
    return;
  std::string why;
  FailureOr<GraphParts> parts = collectParts(func, why);
  if (failed(parts)) {
    func.emitRemark("not made one amk.graph: ") << why;
    return;
  }
  GraphOp graph = buildGraph(func, *parts);
  // The graph's verifier holds its rules; its first complaint is the reason
  // to keep the function as it was. (A module pass: no other thread emits
  // diagnostics on this context meanwhile.)
  std::optional<std::string> complaint;
  LogicalResult verified = [&] {
    ScopedDiagnosticHandler capture(func.getContext(), [&](Diagnostic &d) {
      if (!complaint)
        complaint = d.str();
      return success();
    });
    return verify(graph);
  }();
  if (failed(verified)) {
    graph.erase();
    func.emitRemark("not made one amk.graph: ")
        << complaint.value_or("its steps break a graph's rules");
    return;
  }
  for (memref::DeallocOp dealloc : parts->deallocs)
    dealloc.erase();
  for (Operation *step : llvm::reverse(parts->steps))
    step->erase();
  for (memref::AllocOp alloc : parts->allocs)
    alloc.erase();
}

struct AMKFormGraphPass
    : public amk::impl::AMKFormGraphPassBase<AMKFormGraphPass> {
  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override {
    // Upstream ops a family imports are steps too (linalg.matmul after the
    // zero fill of its output is an amk.matmul). Quietly: what stays is
    // planning's to report, when it imports again.
    if (failed(importUpstreamOps(getOperation(), "", /*warn=*/false)))
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>())
      formGraph(func);
  }
};
} // namespace
