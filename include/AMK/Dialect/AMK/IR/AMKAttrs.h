//===- AMKAttrs.h - AMK attributes, enums and interfaces --------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_DIALECT_AMK_IR_AMKATTRS_H
#define AMK_DIALECT_AMK_IR_AMKATTRS_H

#include "AMK/Target/TargetSpec.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"

#include "AMK/Dialect/AMK/IR/AMKAttrInterfaces.h.inc"
#include "AMK/Dialect/AMK/IR/AMKEnums.h.inc"
#include "AMK/Dialect/AMK/IR/AMKOpInterfaces.h.inc"

namespace mlir::amk {
/// `[1, 2, 3]`: the syntax of tile shapes in `#amk.gemm_config`.
FailureOr<llvm::SmallVector<int64_t>> parseDims(AsmParser &parser);
void printDims(AsmPrinter &printer, llvm::ArrayRef<int64_t> dims);
} // namespace mlir::amk

#define GET_ATTRDEF_CLASSES
#include "AMK/Dialect/AMK/IR/AMKAttrs.h.inc"

namespace mlir::amk {
class TargetAttr;
/// The `#amk.target` that applies to `op`: the nearest `amk.target`
/// attribute on `op` or an ancestor, or null.
TargetAttr lookupTarget(Operation *op);
} // namespace mlir::amk

#endif // AMK_DIALECT_AMK_IR_AMKATTRS_H
