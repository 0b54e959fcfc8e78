//===- GemmResources.cpp - What a GEMM kernel occupies on a GPU -----------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmResources.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::amk;

/// The most registers ptxas ever assigns to one thread.
static constexpr int64_t kMaxRegsPerThread = 255;

/// The register file of one block on every target AMK knows.
static constexpr int64_t kRegsPerBlock = 65536;
/// What a producer warpgroup that only issues TMA keeps after setmaxnreg.
static constexpr int64_t kProducerRegs = 40;

static int64_t estimateThreadRegisters(GemmConfigAttr config,
                                       const GemmProblem &problem,
                                       const GemmRegisterModel &model);

std::optional<WgmmaRegisterSplit>
mlir::amk::getWgmmaRegisterSplit(GemmConfigAttr config,
                                 const GemmProblem &problem,
                                 const GemmRegisterModel &model) {
  if (!isWarpSpecialized(config))
    return std::nullopt;
  int64_t threads = config.getThreads();
  int64_t consumer = estimateThreadRegisters(config, problem, model);
  if (consumer * threads <= kRegsPerBlock)
    return std::nullopt;
  int64_t g = model.granularity;
  int64_t launch = std::min<int64_t>(kRegsPerBlock / threads / g * g, 248);
  int64_t most =
      (launch * threads - kProducerRegs * 128) / (threads - 128) / g * g;
  most = std::min<int64_t>(most, 256);
  if (consumer > most)
    return std::nullopt;
  return WgmmaRegisterSplit{launch, kProducerRegs, most};
}

int64_t mlir::amk::estimateGemmRegisters(GemmConfigAttr config,
                                         const GemmProblem &problem,
                                         const GemmRegisterModel &model) {
  // Warp specialized with setmaxnreg: what the block launches with.
  if (std::optional<WgmmaRegisterSplit> split =
          getWgmmaRegisterSplit(config, problem, model))
    return split->launch;
  return estimateThreadRegisters(config, problem, model);
}

static int64_t estimateThreadRegisters(GemmConfigAttr config,
                                       const GemmProblem &problem,
                                       const GemmRegisterModel &model) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN(),
          bk = config.getBlockK(), threads = config.getThreads();
  int64_t inBits = problem.inType.getIntOrFloatBitWidth();
  int64_t accBits =
      problem.accType ? problem.accType.getIntOrFloatBitWidth() : 32;
  // Elements of the A and B tiles one thread moves per stage.
  int64_t tileElemsPerThread = llvm::divideCeil((bm + bn) * bk, threads);

  int64_t accumulators = 0, fragments = 0, staging = 0;
  switch (config.getMath()) {
  case MathInst::simt: {
    int64_t tm = config.getThread()[0], tn = config.getThread()[1];
    // One fp32 accumulator per output element of the thread tile.
    accumulators = tm * tn;
    // A column of TM values of A and a row of TN values of B per k step,
    // double-buffered so the next step's shared-memory loads overlap the
    // FMAs of this one.
    fragments = 2 * (tm + tn);
    // simt prefetches the next global tile through registers (no cp.async):
    // its share of both tiles, in 32-bit registers.
    // ... and the addresses of those loads.
    staging = 2 * llvm::divideCeil(tileElemsPerThread * inBits, 32);
    break;
  }
  case MathInst::mma_sync: {
    int64_t wm = config.getWarpM(), wn = config.getWarpN();
    int64_t instK = config.getInst()[2];
    // The warp tile's accumulators spread over 32 lanes; two f16
    // accumulators share a register.
    accumulators = llvm::divideCeil(wm * wn * accBits, 32 * 32);
    // Per k step of the instruction: A fragments of 16 x instK and B
    // fragments of instK x 8 elements, spread over 32 lanes, packed into
    // 32-bit registers; double-buffered (ldmatrix of step k+1 overlaps the
    // mma of step k).
    int64_t aRegs = (wm / 16) * llvm::divideCeil(16 * instK * inBits, 32 * 32);
    int64_t bRegs = (wn / 8) * llvm::divideCeil(8 * instK * inBits, 32 * 32);
    // One k step's fragments are live at a time (the synthesizer loads all
    // of a step's fragments, then issues its MMAs).
    fragments = aRegs + bRegs;
    // cp.async moves data without registers, but every copy a thread issues
    // per stage keeps a 64-bit source address live. Rows that are not 4-byte
    // aligned (vector width 1 of a 16-bit type) are copied through registers
    // instead, and stay in flight for the register lookahead: each of those
    // k-tiles holds its loads plus what their store needs.
    int64_t inFlight = getRegisterLookahead(config) + 1;
    for (bool isA : {true, false}) {
      int64_t elems = llvm::divideCeil((isA ? bm : bn) * bk, threads);
      int64_t vector = getOperandVector(config, problem, isA);
      if (vector * inBits >= 32) {
        staging += 2 * llvm::divideCeil(elems, vector);
      } else if (elems % (128 / inBits) == 0) {
        // Realigned 16-byte chunks: per k-tile in flight the two aligned
        // chunks, the shift and the valid count; the 64-bit source address
        // while issuing.
        int64_t chunks = elems * inBits / 128;
        staging += inFlight * chunks * (2 * 128 / 32 + 2) + 2 * chunks;
      } else {
        // Element by element: per k-tile in flight the value and its
        // in-bounds flag; the 64-bit address while issuing.
        staging += inFlight * elems * 2 + 2 * elems;
      }
    }
    break;
  }
  case MathInst::wgmma: {
    // A warpgroup (128 threads) holds the warp tile's accumulators; operands
    // come from shared memory descriptors.
    accumulators = llvm::divideCeil(
        config.getWarpM() * config.getWarpN() * accBits, 128 * 32);
    // The ring is unrolled: each stage keeps its tile addresses and
    // descriptors live (ptxas on sm_90a: acc + 8 x stages + 30 at most).
    fragments = 8 * config.getStages();
    break;
  }
  }
  double raw =
      static_cast<double>(accumulators + fragments + staging + model.overhead);
  // (wgmma: the terms above are ptxas's own counts, measured; no margin.)
  double margin = config.getMath() == MathInst::wgmma ? 1.0 : model.margin;
  int64_t withMargin = static_cast<int64_t>(std::ceil(raw * margin));
  // Round up to the allocation unit, but not past the architectural limit
  // of 255 when the estimate itself fits (256 would be a rounding artifact).
  int64_t rounded = llvm::alignTo(withMargin, model.granularity);
  if (withMargin <= kMaxRegsPerThread)
    rounded = std::min(rounded, kMaxRegsPerThread);
  return rounded;
}

KernelResources mlir::amk::getGemmResources(GemmConfigAttr config,
                                            const GemmProblem &problem,
                                            const TargetSpec &target,
                                            const GemmRegisterModel &model) {
  KernelResources r;
  r.threadsPerBlock = config.getThreads();
  r.block = {r.threadsPerBlock, 1, 1};
  r.dynamicSmemBytes = getGemmSmemLayout(config, problem).totalBytes();
  r.regsPerThread = estimateGemmRegisters(config, problem, model);
  computeOccupancy(r, target);
  // Output tiles on x (needs M and N), batch x split_k on z.
  if (!ShapedType::isDynamic(problem.m) && !ShapedType::isDynamic(problem.n)) {
    int64_t persistent = getPersistentBlocks(config, problem, target);
    r.grid[0] = persistent ? persistent
                           : getGemmGrid(config, 1, problem.m, problem.n)[0];
  }
  r.grid[1] = 1;
  if (!ShapedType::isDynamic(problem.batch))
    r.grid[2] = problem.batch * config.getSplitK();
  return r;
}
