//===- ScalarType.h - Element types of bundle buffers -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The element types a manifest names for its buffers ("elem") and, in the
// GEMM family, for its problem. Shared by every family.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_SCALARTYPE_H
#define AMK_RUNTIME_SCALARTYPE_H

#include <cstdint>
#include <string_view>

namespace amk::runtime {

/// Element types a manifest can name.
/// I32 is for integer workspace (a cooperative kernel's counters); no
/// family computes in it.
enum class ScalarType { F16, BF16, F32, F64, I32 };

/// Parses "f16", "bf16", "f32", "f64" or "i32"; false for anything else.
bool parseScalarType(std::string_view text, ScalarType &type);
/// The manifest spelling of `type`, e.g. "bf16".
const char *toString(ScalarType type);
/// Bytes per element of `type`.
int64_t byteSize(ScalarType type);

} // namespace amk::runtime

#endif // AMK_RUNTIME_SCALARTYPE_H
