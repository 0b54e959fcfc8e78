//===- DimIndex.h - Dimension indices the analyses may use ------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// `memref.dim %a, %c` verifies for any constant %c (MLIR makes an index
// outside the rank undefined at run time, not invalid IR), so a kernel can
// ask for dimension -1 or 65536 of a rank-1 memref, or for a dimension of an
// unranked one. The analyses read such indices only through these functions:
// an index that names no dimension is an unknown size, never a subscript of
// a shape.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_DIMINDEX_H
#define AMK_ANALYSIS_DIMINDEX_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cstdint>
#include <optional>

namespace mlir::amk {

/// Whether `dim` is a dimension of `memref`: a ranked memref and
/// 0 <= dim < its rank.
inline bool isDimensionOf(Value memref, int64_t dim) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && dim >= 0 && dim < type.getRank();
}

/// The dimension `op` reads when its index is a constant that names one of
/// its source's; std::nullopt for a dynamic index, an unranked source or a
/// constant outside the rank.
inline std::optional<unsigned> getDimIndex(memref::DimOp op) {
  std::optional<int64_t> index = op.getConstantIndex();
  if (!index || !isDimensionOf(op.getSource(), *index))
    return std::nullopt;
  return static_cast<unsigned>(*index);
}

} // namespace mlir::amk

#endif // AMK_ANALYSIS_DIMINDEX_H
