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
// (Harness.h: checkGemmResources), so plan never proposes what verify
// rejects.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ANALYSIS_GEMMRESOURCES_H
#define AMK_ANALYSIS_GEMMRESOURCES_H

#include "AMK/Analysis/GemmModel.h"
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
  /// test/Analysis/register-estimate.test checks it needs no spills within it.
  double margin = 1.15;
  /// Registers are allocated per thread in units of this many.
  int64_t granularity = 8;
};

/// What one block of a GEMM kernel needs and how many fit on an SM.
struct GemmResources {
  /// Threads per block (1-D blocks: all on x).
  int64_t threadsPerBlock = 0;
  int64_t warpsPerBlock = 0;
  /// Dynamic shared memory the kernel requests: exactly
  /// getGemmSmemLayout().totalBytes(). The kernels use no static shared
  /// memory.
  int64_t dynamicSmemBytes = 0;
  int64_t staticSmemBytes = 0;
  /// Whether dynamic shared memory exceeds the default per-block limit, so
  /// that the launcher must opt in
  /// (cudaFuncAttributeMaxDynamicSharedMemorySize).
  bool needsSmemOptIn = false;
  /// Estimated registers per thread: with the margin, rounded up to the
  /// allocation granularity, not capped (a value above the target's
  /// regs_per_thread is a rejection, not a spill).
  int64_t regsPerThread = 0;
  /// The same, capped at 255 for reports (what ptxas could at most assign).
  int64_t regsPerThreadReported = 0;
  /// Registers allocated to one warp (regsPerThread * 32, rounded to 256) and
  /// what the hardware assumes for a block: per-warp allocation times the
  /// warp count rounded up to the 4 SM sub-partitions (cuda_occupancy.h).
  int64_t regsPerWarp = 0;
  int64_t regsAssumedPerBlock = 0;
  /// Resident blocks per SM: the minimum of the limits below (0: none fits).
  int64_t blocksPerSM = 0;
  int64_t blocksPerSMByThreads = 0, blocksPerSMBySmem = 0,
          blocksPerSMByRegs = 0, blocksPerSMByLimit = 0;
  /// The launch grid when batch, M and N are static.
  std::optional<std::array<int64_t, 3>> grid;

  /// Which limit sets blocksPerSM: "threads", "shared memory", "registers"
  /// or "blocks per SM".
  llvm::StringRef getOccupancyLimiter() const;
};

/// Registers per thread the kernel is estimated to need (with margin,
/// rounded up to the granularity, uncapped).
int64_t estimateGemmRegisters(GemmConfigAttr config, const GemmProblem &problem,
                              const GemmRegisterModel &model = {});

/// The full resource picture of `config` for `problem` on `target`.
GemmResources getGemmResources(GemmConfigAttr config,
                               const GemmProblem &problem,
                               const TargetSpec &target,
                               const GemmRegisterModel &model = {});

} // namespace mlir::amk

#endif // AMK_ANALYSIS_GEMMRESOURCES_H
