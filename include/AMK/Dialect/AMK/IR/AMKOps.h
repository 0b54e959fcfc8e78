//===- AMKOps.h - AMK operations --------------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKOPS_H
#define AMK_DIALECT_AMK_IR_AMKOPS_H

#include "AMK/Dialect/AMK/IR/AMKAttrs.h"
#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

#define GET_OP_CLASSES
#include "AMK/Dialect/AMK/IR/AMKOps.h.inc"

namespace mlir::amk {
/// A graph step's operands by role: the activations it reads (graph inputs
/// or what earlier steps wrote), its parameters (weights, norm weights,
/// bias: graph inputs only, by name), the buffer it writes, and the graph
/// outputs it reads and updates in place (an appending attention's
/// caches).
struct GraphStepOperands {
  llvm::SmallVector<Value, 2> reads;
  llvm::SmallVector<std::pair<llvm::StringRef, Value>, 2> parameters;
  Value result;
  llvm::SmallVector<std::pair<llvm::StringRef, Value>, 2> updates;
};
/// The operands of a step kind (amk.matmul, amk.row_reduce,
/// amk.decode_attention, and the elementwise linalg.add, sub, mul, div, max
/// and min); nullopt for any other op.
std::optional<GraphStepOperands> getGraphStepOperands(Operation *op);
/// The steps of a graph (its body's ops but amk.graph_buffer), in order.
llvm::SmallVector<Operation *> getGraphSteps(GraphOp graph);
/// The internal buffers of a graph, in order.
llvm::SmallVector<GraphBufferOp> getGraphBuffers(GraphOp graph);
} // namespace mlir::amk

#endif // AMK_DIALECT_AMK_IR_AMKOPS_H
