//===- Launcher.h - Load and launch bundles through the driver --*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver half of the runtime: Kernel is one kernel function of a
// bundle loaded into the current context; BundleLauncher loads all of a
// bundle's kernels, owns its workspace and runs a launch plan
// (LaunchPlan.h) on a stream. A schema-1 bundle is one kernel and one
// variant, so BundleLauncher is also the single-kernel path:
//
//   Bundle bundle;            Bundle::loadManifest("gemm.json", bundle)
//   BundleLauncher launcher;  BundleLauncher::load(bundle, launcher)
//   Sizes sizes;              bundle.resolveSizes(&asked, sizes)
//   launcher.launch(sizes, {a, b, c}, stream)
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_LAUNCHER_H
#define AMK_RUNTIME_LAUNCHER_H

#include "AMK/Runtime/Bundle.h"
#include "AMK/Runtime/LaunchPlan.h"
#include "AMK/Runtime/TensorMap.h"

#include <cuda.h>

#include <array>
#include <string>
#include <vector>

namespace amk::runtime {

/// "<what> failed: CUDA_ERROR_X (description)" for a failed CUresult.
Status cudaDriverError(CUresult result, const std::string &what);

/// What the driver reports about a loaded kernel function.
struct KernelAttributes {
  int numRegisters = 0;
  int staticSmemBytes = 0;
  int localBytesPerThread = 0; ///< Nonzero means register spills.
  int maxThreadsPerBlock = 0;  ///< Limited by the register count.
};

/// One kernel of a bundle loaded into the current CUDA context.
class Kernel {
public:
  Kernel() = default;
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  Kernel(Kernel &&other) noexcept;
  Kernel &operator=(Kernel &&other) noexcept;

  /// Loads kernel `index` of `bundle` into the calling thread's current
  /// context (make one current first, e.g. with cudaSetDevice +
  /// cudaFree(0) or cuCtxSetCurrent). Checks the bundle's arch against the
  /// device; when the cubin cannot be used and the PTX can, JIT-compiles the
  /// PTX and records a warning. Raises the function's dynamic shared memory
  /// limit when the kernel needs more than the default 48 KiB.
  static Status load(const Bundle &bundle, size_t index, Kernel &out);

  /// Launches on `stream` with `grid` and `params`. Checks the grid against
  /// the device limits and the block against the function's limit first;
  /// a cooperative kernel's grid also against the blocks the device holds
  /// at once (and launches it with cuLaunchCooperativeKernel).
  /// Reports only launch errors; errors while the kernel runs surface at the
  /// next synchronization.
  Status launch(const std::array<int64_t, 3> &grid, KernelParams &params,
                CUstream stream) const;

  bool loaded() const { return module != nullptr; }
  bool loadedFromPtx() const { return fromPtx; }
  const KernelAttributes &attributes() const { return attrs; }
  const KernelSpec &spec() const { return kernel; }
  /// Non-fatal findings while loading (PTX fallback, register spills).
  const std::vector<std::string> &warnings() const { return notes; }

private:
  void reset();

  KernelSpec kernel;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  bool fromPtx = false;
  KernelAttributes attrs;
  std::array<int64_t, 3> maxGrid = {0, 0, 0};
  /// The blocks the device holds at once (a cooperative kernel's limit).
  int64_t maxResidentBlocks = 0;
  std::vector<std::string> notes;
};

/// A bundle loaded for launching: every kernel, and the workspace buffers,
/// allocated at the first launch that needs them and kept (grown when a
/// launch at larger sizes needs more) until the launcher is destroyed.
/// Not thread-safe; one launcher per thread.
class BundleLauncher {
public:
  BundleLauncher() = default;
  ~BundleLauncher();
  BundleLauncher(const BundleLauncher &) = delete;
  BundleLauncher &operator=(const BundleLauncher &) = delete;
  BundleLauncher(BundleLauncher &&other) noexcept;
  BundleLauncher &operator=(BundleLauncher &&other) noexcept;

  /// Loads every kernel of `bundle` into the current context (see
  /// Kernel::load).
  static Status load(const Bundle &bundle, BundleLauncher &out);

  /// Launches the bundle on `stream` at `sizes` (as Bundle::resolveSizes
  /// returns them) with `args`, the device pointers of the manifest's args in
  /// order: picks the variant, allocates the workspace, runs the variant's
  /// steps in order. The plan is kept, so repeated launches with the same
  /// sizes and pointers do no planning (timing loops measure the kernels).
  Status launch(const Sizes &sizes, const std::vector<CUdeviceptr> &args,
                CUstream stream);

  const Bundle &bundle() const { return source; }
  size_t kernelCount() const { return kernels.size(); }
  const Kernel &kernel(size_t index) const { return kernels[index]; }
  /// The plan of the last launch (its variant, its steps).
  const LaunchPlan &lastPlan() const { return plan; }
  /// Non-fatal findings while loading, of the bundle and every kernel.
  const std::vector<std::string> &warnings() const { return notes; }

private:
  Status prepare(const Sizes &sizes, const std::vector<CUdeviceptr> &args);
  Status ensureWorkspace();
  Status runStep(size_t index, CUstream stream);
  void releaseWorkspace();

  Bundle source;
  std::vector<Kernel> kernels;
  std::vector<std::string> notes;
  // The cached plan and what it was made for.
  bool planned = false;
  Sizes plannedSizes;
  LaunchPlan plan;
  BufferBindings bindings;
  std::vector<KernelParams> params; ///< Per step (kernel steps only).
  std::vector<int64_t> workspaceCapacity;
  TensorMapStore tensorMaps;
};

} // namespace amk::runtime

#endif // AMK_RUNTIME_LAUNCHER_H
