//===- Arch.h - Which cubins and PTX run on which GPU -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The compatibility rules of NVIDIA machine code and PTX, so that a bundle
// built for another GPU fails with a message rather than a driver error.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_ARCH_H
#define AMK_RUNTIME_ARCH_H

#include "AMK/Runtime/Status.h"

#include <string>
#include <string_view>

namespace amk::runtime {

/// A parsed "sm_XY[a|f]" architecture name.
struct ArchName {
  int major = 0, minor = 0;
  char suffix = 0; ///< 'a' (arch-specific), 'f' (family) or 0.

  static bool parse(std::string_view text, ArchName &out);
  /// "sm_" followed by major and minor (no suffix), e.g. "sm_90".
  std::string base() const;
};

/// Whether a cubin built for `arch` runs on a device of compute capability
/// `ccMajor.ccMinor`. Machine code runs only within its major version, on
/// the same or a later minor; "a" cubins only on exactly their version; "f"
/// cubins on later minors of the same major. The message says e.g.
/// "bundle built for sm_80, device is sm_90".
Status checkCubinCompatible(std::string_view arch, int ccMajor, int ccMinor);

/// Whether the driver can JIT-compile PTX written for `arch` on a device of
/// compute capability `ccMajor.ccMinor`: any later device, except that "a"
/// and "f" PTX only serves its own version / family.
bool isPtxCompatible(std::string_view arch, int ccMajor, int ccMinor);

} // namespace amk::runtime

#endif // AMK_RUNTIME_ARCH_H
