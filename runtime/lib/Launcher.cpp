//===- Launcher.cpp - Load a bundle's kernels and run its steps -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// BundleLauncher carries out a LaunchPlan through the driver: it loads every
// kernel once, keeps the workspace between launches (growing it when a
// launch needs more) and the last plan with its kernel parameters, so that a
// timing loop of identical launches spends no host time on planning.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Launcher.h"

#include "DriverUtil.h"

#include <algorithm>

namespace amk::runtime {

BundleLauncher::~BundleLauncher() { releaseWorkspace(); }

BundleLauncher::BundleLauncher(BundleLauncher &&other) noexcept {
  *this = std::move(other);
}

BundleLauncher &BundleLauncher::operator=(BundleLauncher &&other) noexcept {
  if (this == &other)
    return *this;
  releaseWorkspace();
  source = std::move(other.source);
  kernels = std::move(other.kernels);
  notes = std::move(other.notes);
  planned = other.planned;
  plannedSizes = std::move(other.plannedSizes);
  plan = std::move(other.plan);
  bindings = std::move(other.bindings);
  params = std::move(other.params);
  workspaceCapacity = std::move(other.workspaceCapacity);
  tensorMaps = std::move(other.tensorMaps);
  other.planned = false;
  other.bindings = BufferBindings();
  other.workspaceCapacity.clear();
  return *this;
}

void BundleLauncher::releaseWorkspace() {
  // Freeing fails harmlessly when the context is already gone.
  for (CUdeviceptr pointer : bindings.workspace)
    if (pointer)
      (void)cuMemFree(pointer);
  bindings.workspace.clear();
  workspaceCapacity.clear();
  planned = false;
}

Status BundleLauncher::load(const Bundle &bundle, BundleLauncher &out) {
  out = BundleLauncher();
  out.source = bundle;
  const Manifest &m = bundle.manifest();
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    Kernel kernel;
    if (Status s = Kernel::load(bundle, i, kernel); !s.ok())
      return s;
    out.notes.insert(out.notes.end(), kernel.warnings().begin(),
                     kernel.warnings().end());
    out.kernels.push_back(std::move(kernel));
  }
  DeviceFacts device;
  if (Status s = queryCurrentDevice(device); !s.ok())
    return s;
  if (m.target.sm_count != 0 && m.target.sm_count != device.smCount)
    out.notes.push_back("bundle planned for a target with " +
                        std::to_string(m.target.sm_count) +
                        " SMs, the device has " +
                        std::to_string(device.smCount));
  return Status::success();
}

/// Allocates each workspace buffer the plan needs more of than it has. The
/// old buffer may still be in use by launches in flight, on any stream, so
/// the context is synchronized before anything is freed. A buffer the
/// launches keep zeroed is zeroed here, once, and the zeros are complete
/// before any launch on any stream.
Status BundleLauncher::ensureWorkspace() {
  const Manifest &m = source.manifest();
  bindings.workspace.resize(m.workspace.size(), 0);
  workspaceCapacity.resize(m.workspace.size(), 0);
  bool synchronized = false;
  for (size_t i = 0; i < m.workspace.size(); ++i) {
    int64_t need = plan.workspaceBytes[i];
    if (bindings.workspace[i] && need <= workspaceCapacity[i])
      continue;
    if (bindings.workspace[i]) {
      if (!synchronized)
        AMK_CU(cuCtxSynchronize(), "cuCtxSynchronize (before growing the "
                                   "workspace)");
      synchronized = true;
      (void)cuMemFree(bindings.workspace[i]);
      bindings.workspace[i] = 0;
      workspaceCapacity[i] = 0;
    }
    size_t bytes = static_cast<size_t>(std::max<int64_t>(need, 1));
    AMK_CU(cuMemAlloc(&bindings.workspace[i], bytes),
           "cuMemAlloc(workspace '" + m.workspace[i].name + "', " +
               std::to_string(bytes) + " bytes)");
    if (m.workspace[i].keptZero) {
      AMK_CU(cuMemsetD8(bindings.workspace[i], 0, bytes),
             "cuMemsetD8(workspace '" + m.workspace[i].name + "')");
      AMK_CU(cuCtxSynchronize(), "cuCtxSynchronize (after zeroing the "
                                 "workspace)");
    }
    workspaceCapacity[i] = need;
  }
  return Status::success();
}

/// Plans the launch, sizes the workspace and builds every kernel step's
/// parameters; unless the last launch had the same sizes and arguments.
Status BundleLauncher::prepare(const Sizes &sizes,
                               const std::vector<CUdeviceptr> &args) {
  if (planned && sizes == plannedSizes && args == bindings.args)
    return Status::success();
  planned = false;
  if (Status s = planLaunch(source, sizes, args, plan); !s.ok())
    return s;
  bindings.args = args;
  if (Status s = ensureWorkspace(); !s.ok())
    return s;
  const Manifest &m = source.manifest();
  params.assign(plan.steps.size(), KernelParams());
  size_t maps = 0;
  for (const PlannedStep &step : plan.steps)
    if (step.kind == StepSpec::Kind::Kernel)
      maps += m.kernels[step.kernel].tensorMaps.size();
  if (Status s = tensorMaps.makeRoom(maps); !s.ok())
    return s;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (plan.steps[i].kind != StepSpec::Kind::Kernel)
      continue;
    const KernelSpec &kernel = m.kernels[plan.steps[i].kernel];
    std::vector<CUdeviceptr> maps;
    for (const TensorMapSpec &map : kernel.tensorMaps) {
      int buffer = m.findBuffer(map.buffer);
      CUtensorMap encoded;
      CUdeviceptr copy = 0;
      if (Status s = encodeTensorMap(map, m.buffer(size_t(buffer)), sizes,
                                     bindings.at(size_t(buffer)), encoded);
          !s.ok())
        return s;
      if (Status s = tensorMaps.get(encoded, copy); !s.ok())
        return s;
      maps.push_back(copy);
    }
    if (Status s =
            buildKernelParams(m, kernel, sizes, bindings, params[i], maps);
        !s.ok())
      return s;
  }
  plannedSizes = sizes;
  planned = true;
  return Status::success();
}

Status BundleLauncher::runStep(size_t index, CUstream stream) {
  const PlannedStep &step = plan.steps[index];
  if (step.kind == StepSpec::Kind::Kernel)
    return kernels[step.kernel].launch(step.grid, params[index], stream);
  const BufferSpec &buffer = source.manifest().buffer(step.buffer);
  AMK_CU(cuMemsetD8Async(bindings.at(step.buffer), 0,
                         static_cast<size_t>(step.bytes), stream),
         "cuMemsetD8Async(" + buffer.name + ", " + std::to_string(step.bytes) +
             " bytes)");
  return Status::success();
}

Status BundleLauncher::launch(const Sizes &sizes,
                              const std::vector<CUdeviceptr> &args,
                              CUstream stream) {
  if (kernels.size() != source.manifest().kernels.size())
    return Status::error("bundle '" + source.manifest().name +
                         "' is not loaded");
  if (Status s = prepare(sizes, args); !s.ok())
    return s;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (Status s = runStep(i, stream); !s.ok())
      return s;
  return Status::success();
}

} // namespace amk::runtime
