//===- GemmCostModel.h - Predicted time of a GEMM kernel --------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// An analytic model of how long a planned GEMM kernel runs on a target: a
// roofline of math, HBM traffic (with L2 reuse), L2 traffic, operand feed
// (Little's law over the bytes a pipeline keeps in flight) and, for simt,
// shared-memory bandwidth, quantized over the SMs, plus per-block pipeline fill
// and launch overhead. Every constant is in GemmCostParams so a calibration
// against measurements can refit them; the planner ranks candidates by it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_GEMM_GEMMCOSTMODEL_H
#define AMK_FAMILY_GEMM_GEMMCOSTMODEL_H

#include "AMK/Family/Gemm/GemmResources.h"

namespace mlir::amk {

/// The constants of the cost model. Defaults are first guesses from the
/// datasheets and the measurements of docs/BENCH.md (H200).
struct GemmCostParams {
  /// Fixed cost of one launch, ns (eager launch ~3 us; 1.1 us in a graph).
  double launchOverheadNs = 3000;
  /// Fraction of the fp32 SIMT peak a good FMA kernel reaches (cuBLAS SGEMM:
  /// 51 of 67 TFLOP/s on H200).
  double simtEfficiency = 0.8;
  /// Fraction of the tensor-core peak `mma.sync` reaches. The presets give
  /// Hopper/Blackwell data-center peaks for wgmma/tcgen05; mma.sync gets about
  /// 60% of that there, and about 90% on sm_80/sm_89/sm_120 where it is the
  /// native path.
  double mmaSyncEfficiencyHopper = 0.6;
  double mmaSyncEfficiencyNative = 0.9;
  /// What tf32 keeps of that on mma.sync: each element rounded to tf32 and
  /// fragments loaded through 16-bit views or one by one (H100,
  /// 2026-12-07: 4096^3 ran 1.65x and 1024^3 2.4x the model's time).
  double mmaSyncTf32Efficiency = 0.6;
  /// What mma.sync keeps where an operand's rows (static) are not a
  /// multiple of 16 bytes and its chunks are realigned through registers
  /// (H100, 2026-12-07: 4097^3 bf16 ran 1231 us, 2.8x the model's time;
  /// 1000 x 1000 x 999 2.5-3x).
  double mmaSyncRealignEfficiency = 0.4;
  /// Fraction of the tensor-core peak the TMA + wgmma kernel reaches
  /// (H200, 2026-12-02: 600-710 of 989 TFLOP/s bf16 on 4096^3 and LLM
  /// prefill shapes).
  double wgmmaEfficiency = 0.72;
  /// The same for the warp-specialized persistent kernel, whose producer
  /// loads the next tile while the consumers store this one (H100,
  /// 2026-12-06: 2-4% faster than the ring on 4096^3 and 8192x14336x4096,
  /// the same on 8192^3).
  double wgmmaPersistentEfficiency = 0.74;
  /// Fraction of the datasheet HBM bandwidth a streaming kernel sustains
  /// (H200: 4.35 TB/s read of 4.8).
  double hbmEfficiency = 0.88;
  /// What one SM draws from HBM, as a multiple of its even share (the
  /// streaming rate over the SMs): past what the pipelines hold in flight,
  /// a kernel whose tiles occupy fewer SMs streams proportionally slower
  /// (H100, 2026-12-07: 64 blocks of a 64 x 4096 x 4096 decode GEMM on 132
  /// SMs drew about half the rate).
  double hbmPerSmShare = 1.1;
  /// Fraction of the HBM rate a repack kernel copies 16-bit elements at
  /// (H100, 2026-12-07: both operands of 4096 x 4096 x 4097 bf16, 134 MB
  /// read and written, took ~200 us; the f32 copy runs near the full rate).
  double repack16BitShare = 0.25;
  /// Latency of a global load that the pipeline must hide, ns (HBM under
  /// load; L2 hits are faster, which the in-flight bound ignores): loads
  /// to registers (simt, register-staged operands) and each pipeline's
  /// prologue.
  double memLatencyNs = 600;
  /// The same for cp.async (H100 decode study, 2026-12-06: mma.sync
  /// kernels of one or two warps per block streamed at half the rate the
  /// 600 ns above gives).
  double asyncCopyLatencyNs = 1200;
  /// The same for a TMA load, to its mbarrier's completion (H100 decode
  /// study, 2026-12-06: wgmma kernels of 32-64 blocks streamed as Little's
  /// law says at about 1000 ns).
  double tmaLatencyNs = 1000;
  /// The same where the operands do not stay in L2 and stream from HBM
  /// (H100 stream study, 2026-12-07: unsplit wgmma kernels at M = 96-256
  /// against 4096 x 4096 weights ran as a ~2 us load says; at 1750 ns the
  /// planner's split-2 kernels ran 0.83-0.93 of cuBLAS where 1000 ns picked
  /// unsplit ones at 0.69-0.82, and the LLM prefill plans measured alike).
  double tmaStreamLatencyNs = 1750;
  /// Fraction of a TMA-fed kernel's HBM rate that a kernel fed by cp.async
  /// or plain loads reaches on a target with TMA (the same study: mma.sync
  /// kernels at 0.93-0.94 of the wgmma ones on HBM-bound decode shapes).
  double asyncCopyHbmShare = 0.93;
  /// L2 bandwidth as a multiple of HBM bandwidth (not a target field yet;
  /// H100/H200 measure about 3x). Every operand tile load crosses L2.
  double l2BandwidthPerHbm = 3.0;
  /// Fraction of L2 the operands may fill and still be read once.
  double l2UsableFraction = 0.6;
  /// Shared-memory bandwidth per SM per clock, 32-bit words (32 banks).
  double smemWordsPerClock = 32;
  /// Issue efficiency left when only one block is resident per SM (its
  /// barriers idle the SM; measured on H200: 256x128 tiles with one block
  /// per SM ran 15% slower than 128x128 tiles with two).
  double loneBlockEfficiency = 0.85;
  /// Issue efficiency by resident warps per SM: min(1, base + perWarp*warps).
  double issueBase = 0.5, issuePerWarp = 1.0 / 16;
  /// Fraction of the smaller terms of the roofline added to the largest
  /// (imperfect overlap).
  double overlap = 0.1;
  /// Size planned for when M, N or K is dynamic; batch is then 1.
  int64_t representativeSize = 4096;
};

/// The model's prediction and the terms it is made of (ns).
struct GemmCost {
  double totalNs = 0;
  double computeNs = 0, hbmNs = 0, l2Ns = 0, feedNs = 0, smemNs = 0,
         fixedNs = 0;
  /// Achieved fraction of the math path's peak (after padding waste).
  double usefulFlopFraction = 0;
  int64_t tiles = 0, waves = 0, blocksPerSM = 0;
  /// HBM bytes the model charges.
  double hbmBytes = 0;
};

/// `problem` with dynamic sizes replaced by the representative size.
GemmProblem getRepresentativeProblem(const GemmProblem &problem,
                                     const GemmCostParams &params = {});

/// The peak GFLOP/s of the math path `config` uses for `problem` on
/// `target`, after the path's instruction efficiency.
double getGemmPeakGflops(GemmConfigAttr config, const GemmProblem &problem,
                         const TargetSpec &target,
                         const GemmCostParams &params = {});

/// Predicts the time of `config` on `problem` (static sizes: use
/// getRepresentativeProblem first) on `target`, given its resources.
GemmCost predictGemmTime(GemmConfigAttr config, const GemmProblem &problem,
                         const TargetSpec &target,
                         const KernelResources &resources,
                         const GemmCostParams &params = {});

} // namespace mlir::amk

#endif // AMK_FAMILY_GEMM_GEMMCOSTMODEL_H
