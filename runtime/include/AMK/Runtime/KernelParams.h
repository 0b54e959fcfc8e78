//===- KernelParams.h - Kernel parameters of the memref ABI -----*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Kernel parameters follow MLIR's default memref calling convention
// (docs/BUNDLE.md, "Argument ABI"). Calls no CUDA function: CUdeviceptr is
// only a type here.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELPARAMS_H
#define AMK_RUNTIME_KERNELPARAMS_H

#include "AMK/Runtime/Manifest.h"
#include "AMK/Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace amk::runtime {

/// The parameters of one launch in MLIR's memref calling convention: per
/// memref of rank r, allocated pointer, aligned pointer, offset, r sizes and
/// r strides, all 8 bytes wide. Copyable; pointers() is rebuilt on demand so
/// that it always points into this object.
class KernelParams {
public:
  size_t size() const { return values.size(); }
  /// The raw 64-bit value of parameter `i` (a pointer or an i64).
  uint64_t value(size_t i) const { return values[i]; }
  void append(uint64_t v) { values.push_back(v); }
  /// The `void **` array that cuLaunchKernel takes.
  void **pointers();

private:
  std::vector<uint64_t> values;
  std::vector<void *> addresses;
};

/// The device pointers of one launch: one per argument of `manifest.args`,
/// in order, and one per workspace buffer.
struct BufferBindings {
  std::vector<CUdeviceptr> args;
  std::vector<CUdeviceptr> workspace;

  /// The pointer of buffer `index` in Manifest::findBuffer's numbering.
  CUdeviceptr at(size_t index) const;
};

/// Builds the parameters of `kernel` at `sizes`: for each of its params, the
/// bound buffer (both pointers), offset 0, the shape's extents, contiguous
/// row-major strides; for a tensor map, its device copy from `tensorMaps`
/// (one per kernel.tensorMaps, in order). Fails when the bindings do not
/// match the manifest's buffers or a pointer is null.
Status buildKernelParams(const Manifest &manifest, const KernelSpec &kernel,
                         const Sizes &sizes, const BufferBindings &buffers,
                         KernelParams &params,
                         const std::vector<CUdeviceptr> &tensorMaps = {});

/// The same for the manifest's first kernel with `args` and no workspace
/// (a schema-1 bundle).
Status buildKernelParams(const Manifest &manifest, const Sizes &sizes,
                         const std::vector<CUdeviceptr> &args,
                         KernelParams &params);

} // namespace amk::runtime

#endif // AMK_RUNTIME_KERNELPARAMS_H
