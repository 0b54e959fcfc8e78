//===- GemmResources.h - What a GEMM kernel occupies on a GPU ---*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The resource model of a planned GEMM kernel: threads, shared memory,
// registers, resident blocks per SM and the launch grid. The harness
// (`--amk-verify`) checks these numbers against the target and the planner
// (`--amk-plan`) filters its candidates with the very same check
// (Harness.h: checkKernelResources), so plan never proposes what verify
// rejects.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GEMM_GEMMRESOURCES_H
#define AMK_FAMILY_GEMM_GEMMRESOURCES_H

#include "AMK/Family/Family.h"
#include "AMK/Family/Gemm/GemmModel.h"
#include "AMK/Target/TargetSpec.h"

#include <array>
#include <optional>

namespace mlir::amk {

/// The constants of the register estimate, documented where they are used
/// (GemmResources.cpp). One struct so that a calibration against `ptxas -v`
/// can refit them.
struct GemmRegisterModel {
  /// Registers for addresses, loop counters, predicates and the epilogue.
  int64_t overhead = 40;
  /// Safety margin on the whole estimate (1.15 = +15%). The estimate is also
  /// the kernel's register budget (`.maxnreg`): ptxas never uses more, and
  /// test/Family/Gemm/register-estimate.test checks it needs no spills within
  /// it.
  double margin = 1.15;
  /// Registers are allocated per thread in units of this many.
  int64_t granularity = 8;
};

/// Registers per thread the kernel is estimated to need (with margin,
/// rounded up to the granularity, uncapped).
int64_t estimateGemmRegisters(GemmConfigAttr config, const GemmProblem &problem,
                              const GemmRegisterModel &model = {});

/// A warp-specialized wgmma kernel whose consumers need more registers than
/// an even share moves them with setmaxnreg: the block launches with
/// `launch` per thread, the producer warpgroup drops to `producer` and the
/// consumer warpgroups rise to `consumer`.
struct WgmmaRegisterSplit {
  int64_t launch, producer, consumer;
};
/// The split `config` needs (nullopt: none needed, or none fits).
std::optional<WgmmaRegisterSplit>
getWgmmaRegisterSplit(GemmConfigAttr config, const GemmProblem &problem,
                      const GemmRegisterModel &model = {});

/// The full resource picture of `config` for `problem` on `target`: 1-D
/// blocks, exactly getGemmSmemLayout()'s dynamic shared memory and no static
/// shared memory, the grid where batch, M and N are static.
KernelResources getGemmResources(GemmConfigAttr config,
                                 const GemmProblem &problem,
                                 const TargetSpec &target,
                                 const GemmRegisterModel &model = {});

} // namespace mlir::amk

#endif // AMK_FAMILY_GEMM_GEMMRESOURCES_H
