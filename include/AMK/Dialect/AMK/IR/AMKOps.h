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

#define GET_OP_CLASSES
#include "AMK/Dialect/AMK/IR/AMKOps.h.inc"

namespace mlir::amk {
/// The steps of a graph (its body's amk.matmul ops), in order.
llvm::SmallVector<MatmulOp> getGraphSteps(GraphOp graph);
/// The internal buffers of a graph, in order.
llvm::SmallVector<GraphBufferOp> getGraphBuffers(GraphOp graph);
} // namespace mlir::amk

#endif // AMK_DIALECT_AMK_IR_AMKOPS_H
