//===- DriverUtil.h - Shared by the driver half of the runtime --*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Private to the runtime library: what Kernel.cpp and Launcher.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_LIB_DRIVERUTIL_H
#define AMK_RUNTIME_LIB_DRIVERUTIL_H

#include "AMK/Runtime/Launcher.h"

#include <cuda.h>

#include <array>
#include <cstdint>

/// Evaluates a driver call and returns its error from the enclosing function.
#define AMK_CU(call, what)                                                     \
  do {                                                                         \
    CUresult amkResult = (call);                                               \
    if (amkResult != CUDA_SUCCESS)                                             \
      return ::amk::runtime::cudaDriverError(amkResult, what);                 \
  } while (false)

namespace amk::runtime {

/// The device of the current context and what the loader needs to know
/// about it.
struct DeviceFacts {
  CUdevice device = 0;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int smemOptin = 0;
  std::array<int64_t, 3> maxGrid = {0, 0, 0};
};

/// Fails when no context is current.
Status queryCurrentDevice(DeviceFacts &facts);

} // namespace amk::runtime

#endif // AMK_RUNTIME_LIB_DRIVERUTIL_H
