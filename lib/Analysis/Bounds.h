//===- Bounds.h - The harness's memory bounds check -------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_LIB_ANALYSIS_BOUNDS_H
#define AMK_LIB_ANALYSIS_BOUNDS_H

#include "AMK/Analysis/KernelSafety.h"

namespace mlir::amk {

/// Proves every memory access of `kernel` inside its buffer; calls `report`
/// (check id, op, message, found, limit) for each access it cannot.
void checkKernelBounds(Operation *kernel,
                       llvm::function_ref<void(StringRef, Operation *,
                                               const Twine &, int64_t, int64_t)>
                           report);

} // namespace mlir::amk

#endif // AMK_LIB_ANALYSIS_BOUNDS_H
