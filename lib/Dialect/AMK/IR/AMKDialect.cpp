//===- AMKDialect.cpp - The AMK dialect -----------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Dialect/AMK/IR/AMKOps.h"

using namespace mlir;
using namespace mlir::amk;

#include "AMK/Dialect/AMK/IR/AMKOpsDialect.cpp.inc"

void AMKDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "AMK/Dialect/AMK/IR/AMKOps.cpp.inc"
      >();
}
