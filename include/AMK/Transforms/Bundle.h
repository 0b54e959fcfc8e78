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

/// What a manifest records about one lowered kernel. Everything but the
/// binaries is known before synthesis, so the cache key is too.
struct BundleKernel {
  std::string name;
  KernelConfigAttrInterface config;
  GemmProblem problem;
  std::string signature;
  /// The problem op exactly (name, attributes, operand types): the
  /// signature rounds alpha and beta, the key must not.
  std::string problemIdentity;
  int64_t threads = 0;
  int64_t smemBytes = 0;
  /// Whether a launch zeroes C first (split-K kernels add into it).
  bool zeroOutput = false;
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
  /// computeBundleCacheKey's digest.
  std::string cacheKey;
};

/// The cache key of a kernel: a SHA-256 over everything that determines its
/// binary and manifest: kernel name (the cubin's entry symbol), problem,
/// config, target, AMK and schema versions, the build of AMK itself (the
/// running executable's size and time, as ccache identifies a compiler),
/// LLVM version, the toolkit's CUDA version and ptxas, flags, and the
/// planner's predicted time.
std::string computeBundleCacheKey(const BundleKernel &kernel,
                                  const TargetSpec &target);

/// The harness verdict that a manifest and a cache entry record, as JSON.
std::string getBundleVerdict();

/// The manifest of `kernel` (docs/BUNDLE.md) as JSON text.
std::string getBundleManifest(const BundleKernel &kernel,
                              const TargetSpec &target);

/// Writes `<dir>/<name>.{cubin,ptx,json}` (creating `dir`). Reports an error
/// at `loc` on failure.
LogicalResult writeBundle(StringRef dir, StringRef name, StringRef cubin,
                          StringRef ptx, StringRef manifest, Location loc);

} // namespace mlir::amk

#endif // AMK_TRANSFORMS_BUNDLE_H
