//===- Bundle.h - Kernel bundles for the runtime ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A bundle is one kernel's cubin, PTX and JSON manifest (docs/BUNDLE.md): all
// a machine with the CUDA driver and no MLIR needs to launch it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_BUNDLE_H
#define AMK_TRANSFORMS_BUNDLE_H

#include "AMK/Analysis/GemmModel.h"

#include <array>
#include <string>

namespace mlir::amk {

/// The manifest schema version written into every bundle.
constexpr int64_t kBundleSchemaVersion = 1;

/// What a manifest records about one lowered kernel.
struct BundleKernel {
  std::string name;
  KernelConfigAttrInterface config;
  GemmProblem problem;
  std::string signature;
  int64_t threads = 0;
  int64_t smemBytes = 0;
  /// The harness's register estimate (checked against ptxas in the tests).
  int64_t estimatedRegs = 0;
  std::array<std::string, 3> grid;
  /// The block tile (M, N, K), for the runtime's partial-tile diagnosis.
  std::array<int64_t, 3> tile = {0, 0, 0};
  /// The planner's predicted time (0: unknown), us.
  double predictedUs = 0;
  SmallVector<std::string> argNames;
  /// Code generation flags and toolkit; part of the cache key.
  std::string flags;
  std::string toolkit;
};

/// The cache key of a kernel: a SHA-256 over everything that determines its
/// binary (problem signature, config, target, AMK and schema versions, LLVM
/// version, ptxas version, flags).
std::string computeBundleCacheKey(const BundleKernel &kernel,
                                  const TargetSpec &target);

/// Writes `<dir>/<name>.{cubin,ptx,json}` (creating `dir`). Reports an error
/// at `loc` on failure.
LogicalResult writeBundle(StringRef dir, const BundleKernel &kernel,
                          const TargetSpec &target, StringRef cubin,
                          StringRef ptx, Location loc);

} // namespace mlir::amk

#endif // AMK_TRANSFORMS_BUNDLE_H
