//===- GemmCostModel.cpp - Predicted time of a GEMM kernel ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The model, for a block tile BM x BN x BK on a grid of `tiles` blocks:
//
//   compute = (blocks on the busiest SM) x (padded flops per block)
//             / (per-SM peak of the math path x issue efficiency)
//   hbm     = (A and B traffic after L2 reuse + C traffic) / bandwidth
//   l2      = (every block's A and B tile loads) / L2 bandwidth
//   feed    = (operand bytes the busiest SM loads)
//             / (bytes in flight per SM / load latency)        [Little's law]
//   smem    = (shared-memory bytes per FMA x FMAs of the busiest SM)
//             / shared-memory bandwidth per SM
//   total   = launch + max(terms) + overlap x (other terms)
//             + rounds of blocks on the busiest SM x load latency (prologue)
//
// Padding is charged: flops count whole tiles, so M = 16 in a BM = 128 tile
// costs 8x its useful work. Quantization is per SM: ceil(tiles / SMs) blocks
// run on the busiest SM, so 133 tiles on 132 SMs take two rounds.
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmCostModel.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amk;

GemmProblem mlir::amk::getRepresentativeProblem(const GemmProblem &problem,
                                                const GemmCostParams &params) {
  GemmProblem p = problem;
  auto fix = [&](int64_t &v, int64_t rep) {
    if (ShapedType::isDynamic(v))
      v = rep;
  };
  fix(p.batch, 1);
  fix(p.m, params.representativeSize);
  fix(p.n, params.representativeSize);
  fix(p.k, params.representativeSize);
  return p;
}

double mlir::amk::getGemmPeakGflops(GemmConfigAttr config,
                                    const GemmProblem &problem,
                                    const TargetSpec &target,
                                    const GemmCostParams &params) {
  if (config.getMath() == MathInst::simt)
    return target.fp32_gflops * params.simtEfficiency;
  double peak = 0;
  if (problem.inType.isF16())
    peak = target.fp16_gflops;
  else if (problem.inType.isBF16())
    peak = target.bf16_gflops;
  else if (problem.inType.isF32() && problem.isTF32())
    peak = target.tf32_gflops;
  int64_t sm = target.getSmVersion();
  bool hopperClass = sm >= 90 && sm < 120;
  if (config.getMath() == MathInst::mma_sync) {
    // Rows of a static length that is not a multiple of 16 bytes are
    // realigned chunk by chunk through registers.
    bool realigned = hasMisalignedRows(problem);
    return peak *
           (hopperClass ? params.mmaSyncEfficiencyHopper
                        : params.mmaSyncEfficiencyNative) *
           (problem.inType.isF32() ? params.mmaSyncTf32Efficiency : 1.0) *
           (realigned ? params.mmaSyncRealignEfficiency : 1.0);
  }
  // wgmma: sm_90a only (the arch table).
  if (!target.hasFeature(ArchFeature::Wgmma))
    return 0;
  return peak * (getPersistentBlocks(config, problem, target)
                     ? params.wgmmaPersistentEfficiency
                     : params.wgmmaEfficiency);
}

GemmCost mlir::amk::predictGemmTime(GemmConfigAttr config,
                                    const GemmProblem &problem,
                                    const TargetSpec &target,
                                    const KernelResources &resources,
                                    const GemmCostParams &params) {
  GemmCost cost;
  const double inf = std::numeric_limits<double>::infinity();
  double peakGflops = getGemmPeakGflops(config, problem, target, params);
  if (peakGflops <= 0 || resources.blocksPerSM <= 0 || target.sm_count <= 0) {
    cost.totalNs = inf;
    return cost;
  }
  int64_t bm = config.getBlockM(), bn = config.getBlockN(),
          bk = config.getBlockK();
  double inBytes = problem.inBytes(), outBytes = problem.outBytes();
  int64_t sms = target.sm_count;
  int64_t tilesM = llvm::divideCeil(problem.m, bm);
  int64_t tilesN = llvm::divideCeil(problem.n, bn);
  // Split-K: each block takes 1/split_k of the k-tiles.
  int64_t splits = config.getSplitK();
  int64_t kIters = std::max<int64_t>(getKTilesPerSplit(config, problem.k), 1);
  int64_t paddedK = kIters * bk;
  int64_t tiles = problem.batch * tilesM * tilesN * splits;
  cost.tiles = tiles;
  cost.blocksPerSM = resources.blocksPerSM;
  int64_t slots = sms * resources.blocksPerSM;
  cost.waves = llvm::divideCeil(tiles, slots);

  // Blocks on the busiest SM, and how many of them run at once.
  int64_t busiest = llvm::divideCeil(tiles, sms);
  int64_t concurrent = std::min(resources.blocksPerSM, busiest);
  int64_t rounds = llvm::divideCeil(busiest, concurrent);

  // Math: padded flops of the busiest SM at its issue efficiency.
  double flopsPerTile = 2.0 * bm * bn * paddedK;
  // Warps that issue math: a warp-specialized block's producer warpgroup
  // issues none (counting it picked one-consumer kernels for decode M = 64
  // and 128 that ran at 0.59-0.68 of cuBLAS on the H200, where the two
  // warpgroups of math it then ranks first ran at 0.76-0.85).
  double residentWarps = double(concurrent * config.getNumComputeWarps());
  double issueEff =
      std::min(1.0, params.issueBase + params.issuePerWarp * residentWarps);
  // A lone block per SM stalls the whole SM at every barrier of its
  // multi-stage tensor-core pipeline; with two or more, one block's barrier
  // overlaps another's math. (The simt double buffer measured no such loss.)
  // (Not measured for wgmma either: on the H200 its fastest 4096^3 kernel
  // was a lone 128x256 block per SM.)
  if (concurrent == 1 && config.getMath() == MathInst::mma_sync)
    issueEff *= params.loneBlockEfficiency;
  double peakPerSM = peakGflops / sms; // flop/ns
  cost.computeNs = busiest * flopsPerTile / (peakPerSM * issueEff);

  // Shared-memory bandwidth: bytes read from shared memory per FMA.
  double smemBytesPerFma;
  if (config.getMath() == MathInst::simt) {
    // Per k step a warp reads WM values of A and WN of B (lanes sharing a
    // row or column broadcast); each 128-byte wavefront costs one cycle.
    double wm = config.getWarpM(), wn = config.getWarpN();
    double wavefronts = std::ceil(4.0 * wm / 128) + std::ceil(4.0 * wn / 128);
    smemBytesPerFma = 128.0 * wavefronts / (wm * wn);
  } else {
    double wm = config.getWarpM(), wn = config.getWarpN();
    smemBytesPerFma = inBytes * (wm + wn) / (wm * wn);
  }
  // (wgmma reads both operands from shared memory too, a 64-row A per
  // warpgroup against its WN columns of B.)
  double smemBytesPerNs =
      params.smemWordsPerClock * 4.0 * target.clock_mhz / 1000.0;
  cost.smemNs = busiest * (flopsPerTile / 2) * smemBytesPerFma / smemBytesPerNs;

  // HBM: A and B are read once if they stay in L2; otherwise each wave reads
  // the A panels of the tile rows and the B panels of the tile columns it
  // covers (swizzle groups rows so a wave covers a squarer patch).
  double l2 = params.l2UsableFraction * target.l2_bytes;
  double aUnique = double(problem.batch) * problem.m * problem.k * inBytes;
  double bUnique = double(problem.batch) * problem.k * problem.n * inBytes;
  int64_t waveTiles = std::min<int64_t>(slots, tilesM * tilesN);
  int64_t cols, rows;
  if (config.getSwizzle() > 1) {
    int64_t group = std::min<int64_t>(config.getSwizzle(), tilesM);
    cols = std::min<int64_t>(tilesN, llvm::divideCeil(waveTiles, group));
  } else {
    cols = std::min<int64_t>(tilesN, waveTiles);
  }
  rows = std::min<int64_t>(tilesM, llvm::divideCeil(waveTiles, cols));
  double aTraffic = aUnique, bTraffic = bUnique;
  if (aUnique + bUnique > l2) {
    double waves = double(cost.waves);
    double aWave = double(rows) * bm * paddedK * inBytes;
    double bWave = double(cols) * bn * paddedK * inBytes;
    if (aUnique > l2 / 2)
      aTraffic = std::max(aUnique, waves * aWave);
    if (bUnique > l2 / 2)
      bTraffic = std::max(bUnique, waves * bWave);
  }
  // C: written once (read too with beta). Atomic split-K zeroes it, then
  // every split adds into it; a workspace split writes f32 partial tiles
  // that the reduction reads back; a serial split's turns but the last
  // write the running sum, and all but the first read it.
  double elements = double(problem.batch) * problem.m * problem.n;
  bool workspace = usesSplitWorkspace(config);
  bool serial = usesSerialSplit(config);
  bool lastSplit = usesLastSplit(config);
  double cTraffic = elements * outBytes * (problem.beta != 0.0 ? 2 : 1) *
                    (isAtomicSplit(config) ? double(splits + 1) : 1.0);
  if (workspace || lastSplit)
    cTraffic += elements * 4.0 * 2 * splits;
  if (serial)
    cTraffic += elements * 4.0 * 2 * (splits - 1);
  if (problem.bias)
    cTraffic += double(problem.batch) * problem.n * outBytes;
  cost.hbmBytes = aTraffic + bTraffic + cTraffic;
  double hbmRate = target.hbm_gbps * params.hbmEfficiency;
  if (config.getMath() != MathInst::wgmma &&
      target.hasFeature(ArchFeature::Tma))
    hbmRate *= params.asyncCopyHbmShare;
  // A stream longer than what the SMs' pipelines hold in flight runs at
  // the rate of the SMs that hold tiles, each drawing about its even share.
  int64_t activeSMs = std::min(tiles, sms);
  double inFlight = double(activeSMs) * concurrent *
                    std::max<int64_t>(config.getStages() - 1, 1) *
                    double(bm + bn) * bk * inBytes;
  double activeRate =
      hbmRate * std::min(1.0, params.hbmPerSmShare * activeSMs / sms);
  cost.hbmNs = std::max(cost.hbmBytes / hbmRate,
                        std::max(0.0, cost.hbmBytes - inFlight) / activeRate);

  // Operand feed: the pipeline keeps (stages - 1) stages of each resident
  // block in flight; simt prefetches one stage through registers, and so
  // do register-staged operands (too narrow for cp.async), one k-tile
  // ahead of their store. Each path has its own latency (Little's law:
  // the rate is the bytes in flight over it).
  double stageBytes = double(bm + bn) * bk * inBytes;
  double feedPerNs = 0;
  // (A TMA load waits longer where the operands stream from HBM than where
  // they stay in L2.)
  bool streamed = aUnique + bUnique > l2;
  for (bool isA : {true, false}) {
    int64_t stages = std::max<int64_t>(config.getStages() - 1, 1);
    double latency = config.getMath() != MathInst::wgmma
                         ? params.asyncCopyLatencyNs
                     : streamed ? params.tmaStreamLatencyNs
                                : params.tmaLatencyNs;
    if (config.getMath() == MathInst::simt) {
      stages = 1;
      latency = params.memLatencyNs;
    } else if (getOperandVector(config, problem, isA) * inBytes < 4) {
      stages = getRegisterLookahead(config) + 1;
      latency = params.memLatencyNs;
    }
    feedPerNs +=
        concurrent * stages * double(isA ? bm : bn) * bk * inBytes / latency;
  }
  double bytesBusiest = busiest * stageBytes * kIters;
  cost.l2Ns = double(tiles) * stageBytes * kIters /
              (target.hbm_gbps * params.l2BandwidthPerHbm);
  cost.feedNs = bytesBusiest / feedPerNs;

  // Prologue of each round of blocks (filling the pipeline) is not hidden.
  cost.fixedNs = rounds * params.memLatencyNs;
  // Atomic split-K zeroes C first: one more operation on the stream (a
  // memset of C, about a microsecond on the H200); a workspace split runs
  // a second kernel after the first. A serial split zeroes its counters,
  // and the epilogues of a tile's splits follow each other: each turn sees
  // the previous one's signal, then reads and writes its f32 tile at the
  // SM's share of L2. A last split's counters stay zeroed from their
  // allocation (no operation before the kernel), and only the last to
  // arrive at a tile reads the tile's partials.
  if (splits > 1 && !lastSplit)
    cost.fixedNs += params.launchOverheadNs / (workspace ? 2 : 3);
  double smL2BytesPerNs =
      target.hbm_gbps * params.l2BandwidthPerHbm / double(sms);
  if (serial) {
    double turnNs =
        2 * params.memLatencyNs + 2.0 * bm * bn * 4.0 / smL2BytesPerNs;
    cost.fixedNs += double(splits - 1) * turnNs;
  }
  // The last split's arrival (two fences around an atomic), then its read
  // of every split's partial tile (H100, against the workspace: 0.2-0.8 us
  // faster at 64 x 64 tiles and 2 splits, 0.8 us slower at 128 x 128).
  if (lastSplit)
    cost.fixedNs +=
        params.memLatencyNs + double(splits) * bm * bn * 4.0 / smL2BytesPerNs;
  // A repacked operand is read and written once more, by a kernel of its
  // own (16-bit elements at a fraction of the rate).
  double repackRate = target.hbm_gbps * params.hbmEfficiency *
                      (problem.inBytes() == 2 ? params.repack16BitShare : 1.0);
  for (auto [isA, bytes] :
       {std::pair(true, aUnique), std::pair(false, bUnique)})
    if (repacksOperand(config, problem, isA))
      cost.fixedNs += params.launchOverheadNs / 2 + 2 * bytes / repackRate;

  double terms[] = {cost.computeNs, cost.hbmNs, cost.l2Ns, cost.feedNs,
                    cost.smemNs};
  double largest = *std::max_element(std::begin(terms), std::end(terms));
  double sum = 0;
  for (double t : terms)
    sum += t;
  cost.totalNs = params.launchOverheadNs + largest +
                 params.overlap * (sum - largest) + cost.fixedNs;

  double usefulFlops =
      2.0 * problem.batch * double(problem.m) * problem.n * problem.k;
  cost.usefulFlopFraction =
      usefulFlops / (cost.totalNs * peakGflops); // flop / (ns * flop/ns)
  return cost;
}
