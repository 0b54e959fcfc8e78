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

#endif // AMK_DIALECT_AMK_IR_AMKOPS_H
