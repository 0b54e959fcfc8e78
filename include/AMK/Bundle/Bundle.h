//===- Bundle.h - Kernel bundles for the runtime ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A bundle is the cubin, PTX and JSON manifest of a planned kernel
// (docs/BUNDLE.md, schema 2): all a machine with the CUDA driver and no MLIR
// needs to launch it. The manifest's launch sequence zeroes what the family
// says the kernel accumulates into, then runs it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_BUNDLE_BUNDLE_H
#define AMK_BUNDLE_BUNDLE_H

#include "AMK/Family/Family.h"

#include <array>
#include <string>

namespace mlir::amk {

/// The manifest schema version written into every bundle.
constexpr int64_t kBundleSchemaVersion = 2;

/// One kernel of a bundle: an entry of its cubin.
struct BundleEntry {
  /// The gpu.func's (and the cubin entry's) name.
  std::string entry;
  KernelConfigAttrInterface config;
  /// Grid, block, shared memory, arguments, what is zeroed, the register
  /// estimate (checked against ptxas in the tests).
  KernelLaunch launch;
  /// The planner's predicted time (0: unknown), us.
  double predictedUs = 0;
  /// The range of sizes a launch picks it for; none: every size the
  /// entries before it leave (the last entry).
  std::optional<PlanBucket> bucket;
};

/// What a manifest records about one lowered `amk.kernel`: its problem and
/// its kernels (the dispatch variants, then the kernel's own config).
/// Everything but the binaries is known before synthesis, so the cache key
/// is too.
struct BundleKernel {
  std::string name;
  /// The problem's family and fields (KernelFamily::problemToJSON).
  std::string family;
  llvm::json::Object problem;
  std::string signature;
  /// The problem op exactly (name, attributes, operand types): the
  /// signature rounds alpha and beta, the key must not.
  std::string problemIdentity;
  /// At least one; the last serves every size.
  SmallVector<BundleEntry, 1> entries;
  /// Code generation flags and toolkit; part of the cache key.
  std::string flags;
  std::string toolkit;
  /// computeBundleCacheKey's digest.
  std::string cacheKey;
};

/// The cache key of a kernel: a SHA-256 over everything that determines its
/// binary and manifest: kernel name, problem, each entry (name, config,
/// range, predicted time), target, AMK and schema versions, the build of AMK
/// itself (the running executable's size and time, as ccache identifies a
/// compiler), LLVM version, the toolkit's CUDA version and ptxas, and flags.
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

#endif // AMK_BUNDLE_BUNDLE_H
