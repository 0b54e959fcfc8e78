//===- AMKDialect.h - The AMK dialect ---------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKDIALECT_H
#define AMK_DIALECT_AMK_IR_AMKDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "AMK/Dialect/AMK/IR/AMKOpsDialect.h.inc"

#endif // AMK_DIALECT_AMK_IR_AMKDIALECT_H
