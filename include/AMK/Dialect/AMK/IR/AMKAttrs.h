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

namespace mlir::amk {
/// The largest tile extent, stage count, thread count, swizzle group and
/// split count a kernel config may state: far past any kernel, and small
/// enough that a product of four of them and an element size is exact in
/// int64_t.
constexpr int64_t kMaxConfigValue = int64_t(1) << 16;

/// The largest operand a problem may state, in bytes: 1 TiB, more than any
/// GPU holds. With every operand of a GEMM under it, B * M * N * K is under
/// 2^60, so the planner's and synthesizer's size products are exact.
constexpr int64_t kMaxOperandBytes = int64_t(1) << 40;

/// The ProblemOpInterface verifier: every memref operand's static extents
/// times its element size (checked) is at most kMaxOperandBytes.
LogicalResult verifyProblemOperands(Operation *op);
} // namespace mlir::amk

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
