//===- Version.h - AMK's version ---------------------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_VERSION_H
#define AMK_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace mlir::amk {

/// AMK's version: part of every compile-cache key and tuning record.
inline constexpr llvm::StringLiteral kAMKVersion = "0.1.0";

} // namespace mlir::amk

#endif // AMK_VERSION_H
