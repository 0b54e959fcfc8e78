//===- AMKDialect.cpp - The AMK dialect -----------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Dialect/AMK/IR/AMKDialect.h"
#include "AMK/Dialect/AMK/IR/AMKAttrs.h"
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

LogicalResult AMKDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #amk.target, not "
                           << attr.getValue();
  return success();
}
