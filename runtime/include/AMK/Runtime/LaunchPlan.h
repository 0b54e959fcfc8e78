//===- LaunchPlan.h - What one launch of a bundle does ----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Everything a launch decides before it calls the driver: which variant
// (the first whose condition holds at these sizes and buffer alignments),
// the order of its steps, each kernel step's grid, each zero step's bytes and
// the workspace's sizes. Calls no CUDA function, so it is tested without a
// GPU; BundleLauncher (Launcher.h) carries a plan out.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_LAUNCHPLAN_H
#define AMK_RUNTIME_LAUNCHPLAN_H

#include "AMK/Runtime/Bundle.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <vector>

namespace amk::runtime {

/// The indices of `steps` in an order consistent with their `after` lists
/// (a step runs after every step it names), listed order breaking ties.
/// Fails on an `after` naming no step and on a cycle, which the message
/// spells out ("a -> b -> a").
Status orderSteps(const std::vector<StepSpec> &steps,
                  std::vector<size_t> &order);

/// What align() says of a buffer at `address`: the largest power of two,
/// up to 256, that divides it.
int64_t addressAlignment(CUdeviceptr address);

/// The first variant of `bundle` whose condition holds at `sizes` (resolved:
/// every symbol given) for the argument pointers `args`; workspace buffers
/// count as 256-byte aligned (cuMemAlloc's guarantee). Fails, listing each
/// false condition, when none holds.
Status selectVariant(const Bundle &bundle, const Sizes &sizes,
                     const std::vector<CUdeviceptr> &args, size_t &variant);

/// One step of a plan.
struct PlannedStep {
  StepSpec::Kind kind = StepSpec::Kind::Kernel;
  size_t kernel = 0; ///< Kernel steps: index into Manifest::kernels.
  size_t buffer = 0; ///< Zero steps: Manifest::findBuffer's numbering.
  std::array<int64_t, 3> grid = {1, 1, 1}; ///< Kernel steps.
  int64_t bytes = 0;                       ///< Zero steps.
};

/// A launch, decided.
struct LaunchPlan {
  size_t variant = 0;
  std::vector<PlannedStep> steps; ///< In the order they run.
  /// Bytes of each workspace buffer at the plan's sizes.
  std::vector<int64_t> workspaceBytes;
};

/// Plans a launch of `bundle` at `sizes` (as Bundle::resolveSizes returns
/// them) with the argument pointers `args`.
Status planLaunch(const Bundle &bundle, const Sizes &sizes,
                  const std::vector<CUdeviceptr> &args, LaunchPlan &plan);

} // namespace amk::runtime

#endif // AMK_RUNTIME_LAUNCHPLAN_H
