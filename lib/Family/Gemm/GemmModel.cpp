//===- GemmModel.cpp - What a GEMM kernel needs and does ------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmModel.h"
#include "AMK/Family/Family.h"
#include "AMK/Family/Gemm/GemmResources.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amk;

GemmProblem GemmProblem::get(MatmulOp op) {
  GemmProblem p;
  p.batched = op.isBatched();
  p.batch = op.getBatchSize();
  p.m = op.getM();
  p.n = op.getN();
  p.k = op.getK();
  p.inType = op.getInputElementType();
  p.accType = op.getAccumulatorType();
  p.outType = op.getC().getType().getElementType();
  p.transposeA = op.getTransposeA();
  p.transposeB = op.getTransposeB();
  p.precision = op.isTF32() ? Precision::tf32 : Precision::ieee;
  p.bias = static_cast<bool>(op.getBias());
  p.activation = op.getActivationValue();
  p.alpha = op.getAlphaValue();
  p.beta = op.getBetaValue();
  return p;
}

//===----------------------------------------------------------------------===//
// The JSON codec (GemmProblemFields.def)
//===----------------------------------------------------------------------===//

namespace {
/// Reads each kind of field; remembers the first field that is missing or
/// malformed.
struct FieldReader {
  MLIRContext *context;
  const llvm::json::Object &json;
  bool ok = true;

  const llvm::json::Value *get(StringRef key) {
    const llvm::json::Value *v = json.get(key);
    ok &= v != nullptr;
    return v;
  }
  void readSize(StringRef key, int64_t &out) {
    if (const llvm::json::Value *v = get(key)) {
      std::optional<int64_t> i = v->getAsInteger();
      ok &= i && (*i >= 1 || *i == -1);
      if (i)
        out = *i == -1 ? ShapedType::kDynamic : *i;
    }
  }
  void readBool(StringRef key, bool &out) {
    if (const llvm::json::Value *v = get(key)) {
      std::optional<bool> b = v->getAsBoolean();
      ok &= b.has_value();
      out = b.value_or(false);
    }
  }
  void readFloat(StringRef key, double &out) {
    if (const llvm::json::Value *v = get(key)) {
      std::optional<double> d = v->getAsNumber();
      ok &= d.has_value();
      out = d.value_or(0);
    }
  }
  std::optional<StringRef> readString(StringRef key) {
    const llvm::json::Value *v = get(key);
    std::optional<StringRef> s = v ? v->getAsString() : std::nullopt;
    ok &= s.has_value();
    return s;
  }
  void readType(StringRef key, Type &out) {
    if (std::optional<StringRef> s = readString(key)) {
      out = parseFloatTypeName(context, *s);
      ok &= static_cast<bool>(out);
    }
  }
  void readPrecision(StringRef key, Precision &out) {
    if (std::optional<StringRef> s = readString(key)) {
      std::optional<Precision> p = symbolizePrecision(*s);
      ok &= p.has_value();
      out = p.value_or(Precision::ieee);
    }
  }
  void readActivation(StringRef key, Activation &out) {
    if (std::optional<StringRef> s = readString(key)) {
      std::optional<Activation> a = symbolizeActivation(*s);
      ok &= a.has_value();
      out = a.value_or(Activation::none);
    }
  }
};
} // namespace

FailureOr<GemmProblem> GemmProblem::fromJSON(MLIRContext *context,
                                             const llvm::json::Object &json) {
  GemmProblem p;
  FieldReader reader{context, json};
#define AMK_GEMM_FIELD(Kind, key, member, doc)                                 \
  reader.read##Kind(#key, p.member);
#include "AMK/Family/Gemm/GemmProblemFields.def"
  if (!reader.ok)
    return failure();
  return p;
}

llvm::json::Object GemmProblem::toJSON() const {
  auto writeSize = [](int64_t v) -> llvm::json::Value {
    return ShapedType::isDynamic(v) ? -1 : v;
  };
  auto writeBool = [](bool v) -> llvm::json::Value { return v; };
  auto writeFloat = [](double v) -> llvm::json::Value { return v; };
  auto writeType = [](Type t) -> llvm::json::Value { return getTypeName(t); };
  auto writePrecision = [](Precision p) -> llvm::json::Value {
    return stringifyPrecision(p);
  };
  auto writeActivation = [](Activation a) -> llvm::json::Value {
    return stringifyActivation(a);
  };
  llvm::json::Object json;
#define AMK_GEMM_FIELD(Kind, key, member, doc) json[#key] = write##Kind(member);
#include "AMK/Family/Gemm/GemmProblemFields.def"
  return json;
}

bool GemmProblem::hasDynamicSizes() const {
  return ShapedType::isDynamic(batch) || ShapedType::isDynamic(m) ||
         ShapedType::isDynamic(n) || ShapedType::isDynamic(k);
}

SmallVector<int64_t> mlir::amk::getOperandProblemShape(const GemmProblem &p,
                                                       unsigned i) {
  SmallVector<int64_t> shape;
  if (p.batched)
    shape.push_back(p.batch);
  unsigned cIndex = p.bias ? 3 : 2;
  if (i == 0)
    shape.append(p.transposeA ? std::initializer_list<int64_t>{p.k, p.m}
                              : std::initializer_list<int64_t>{p.m, p.k});
  else if (i == 1)
    shape.append(p.transposeB ? std::initializer_list<int64_t>{p.n, p.k}
                              : std::initializer_list<int64_t>{p.k, p.n});
  else if (i == cIndex)
    shape.append({p.m, p.n});
  else
    shape.push_back(p.n); // bias
  return shape;
}

MemRefType mlir::amk::getKernelOperandType(const GemmProblem &p, unsigned i,
                                           MemRefType type) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, size] : llvm::enumerate(getOperandProblemShape(p, i)))
    if (dim < shape.size() && ShapedType::isDynamic(shape[dim]))
      shape[dim] = size;
  return MemRefType::Builder(type).setShape(shape);
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

int64_t GemmSmemLayout::bOffsetBytes() const {
  return llvm::alignTo(a.elements() * elemBytes, alignBytes);
}

int64_t GemmSmemLayout::stageBytes() const {
  return llvm::alignTo(bOffsetBytes() + b.elements() * elemBytes, alignBytes);
}

GemmSmemLayout mlir::amk::getGemmSmemLayout(GemmConfigAttr config,
                                            const GemmProblem &problem) {
  int64_t bm = config.getBlockM(), bn = config.getBlockN(),
          bk = config.getBlockK();
  GemmSmemLayout layout;
  layout.stages = config.getStages();
  layout.elemBytes = problem.inBytes();
  if (config.getMath() == MathInst::simt) {
    // K-major tiles. A transposing store (row-major A, or B given as [N, K])
    // writes 4 rows of the tile per vector; 4 extra elements per row spread
    // those rows over different banks.
    layout.a = {bk, bm, bm + (problem.transposeA ? 0 : 4)};
    layout.b = {bk, bn, bn + (problem.transposeB ? 4 : 0)};
    return layout;
  }
  auto tile = [](int64_t rows, int64_t cols) {
    return GemmSmemLayout::Tile{rows, cols, cols};
  };
  if (config.getMath() == MathInst::wgmma) {
    layout.alignBytes = kWgmmaSmemAlignBytes;
    layout.a = tile(bm, bk);
    layout.b = tile(bn, bk);
    return layout;
  }
  layout.a = problem.transposeA ? tile(bk, bm) : tile(bm, bk);
  layout.b = problem.transposeB ? tile(bn, bk) : tile(bk, bn);
  return layout;
}

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

bool mlir::amk::isWarpSpecialized(GemmConfigAttr config) {
  return config.getMath() == MathInst::wgmma &&
         config.getThreads() == config.getNumComputeWarps() * 32 + 128;
}

int64_t mlir::amk::getKTilesPerSplit(GemmConfigAttr config, int64_t k) {
  return llvm::divideCeil(llvm::divideCeil(k, config.getBlockK()),
                          config.getSplitK());
}

int64_t mlir::amk::getPersistentBlocks(GemmConfigAttr config,
                                       const GemmProblem &problem,
                                       const TargetSpec &target) {
  // (The launch's grid is stated in the kernel: a dynamic batch cannot be.)
  // (Split-K kernels take a tile each: their grid enumerates the splits.)
  if (!isWarpSpecialized(config) || config.getSplitK() > 1 ||
      ShapedType::isDynamic(problem.m) || ShapedType::isDynamic(problem.n) ||
      (problem.batched && ShapedType::isDynamic(problem.batch)) ||
      target.sm_count <= 0)
    return 0;
  int64_t tiles = getGemmGrid(config, 1, problem.m, problem.n)[0];
  return std::min(tiles, target.sm_count);
}

std::array<int64_t, 3> mlir::amk::getGemmGrid(GemmConfigAttr config,
                                              int64_t batch, int64_t m,
                                              int64_t n) {
  int64_t tiles = llvm::divideCeil(m, config.getBlockM()) *
                  llvm::divideCeil(n, config.getBlockN());
  return {tiles, 1, batch * config.getSplitK()};
}

//===----------------------------------------------------------------------===//
// What the synthesizer supports
//===----------------------------------------------------------------------===//

/// Whether `extent` (a size, or kDynamic) is a known multiple of `vector`.
static bool divides(int64_t vector, int64_t extent) {
  if (vector == 1)
    return true;
  return !ShapedType::isDynamic(extent) && extent % vector == 0;
}

int64_t mlir::amk::getOperandVector(GemmConfigAttr config,
                                    const GemmProblem &problem, bool isA) {
  int64_t extent =
      isA ? problem.getContiguousExtentA() : problem.getContiguousExtentB();
  int64_t vector = config.getVector();
  while (!divides(vector, extent))
    vector /= 2;
  return vector;
}

int64_t mlir::amk::getOperandVersionedVector(GemmConfigAttr config,
                                             const GemmProblem &problem,
                                             bool isA) {
  int64_t extent =
      isA ? problem.getContiguousExtentA() : problem.getContiguousExtentB();
  if (ShapedType::isDynamic(extent) && config.getMath() == MathInst::mma_sync)
    return config.getVector();
  return getOperandVector(config, problem, isA);
}

int64_t mlir::amk::getRegisterLookahead(GemmConfigAttr config) {
  // One k-tile. Deeper lookahead carries a queue of in-flight loads through
  // the loop, and rotating it moves registers whose loads have not landed:
  // each move waits for its load, so the loop stalls as if there were no
  // lookahead (measured on the H200: bf16 1000x1000x999, 64x128x64 tiles,
  // 25.9 us with one k-tile ahead, 33.8-34.7 us with two or three).
  return std::clamp<int64_t>(config.getStages() - 2, 0, 1);
}

bool mlir::amk::supportsSplitK(const GemmProblem &problem) {
  return problem.outType.isF32() && problem.accType.isF32() &&
         problem.beta == 0.0 && !problem.bias &&
         problem.activation == Activation::none;
}

bool mlir::amk::isAtomicSplit(GemmConfigAttr config) {
  return config.getSplitK() > 1 &&
         config.getSplitReduce() == SplitReduce::atomic;
}

bool mlir::amk::usesSplitWorkspace(GemmConfigAttr config) {
  return config.getSplitK() > 1 &&
         config.getSplitReduce() == SplitReduce::workspace;
}

bool mlir::amk::usesSerialSplit(GemmConfigAttr config) {
  return config.getSplitK() > 1 &&
         config.getSplitReduce() == SplitReduce::serial;
}

bool mlir::amk::usesLastSplit(GemmConfigAttr config) {
  return config.getSplitK() > 1 && config.getSplitReduce() == SplitReduce::last;
}

bool mlir::amk::usesSplitCounters(GemmConfigAttr config) {
  return usesSerialSplit(config) || usesLastSplit(config);
}

bool mlir::amk::storesSplitPartials(GemmConfigAttr config) {
  return usesSplitWorkspace(config) || usesSplitCounters(config);
}

MemRefType mlir::amk::getSplitWorkspaceType(GemmConfigAttr config,
                                            const GemmProblem &problem) {
  int64_t batch = problem.batched ? problem.batch : 1;
  int64_t slots = usesSerialSplit(config) ? 1 : config.getSplitK();
  return MemRefType::get({batch, slots, problem.m, problem.n},
                         Float32Type::get(config.getContext()));
}

MemRefType mlir::amk::getSplitCounterType(GemmConfigAttr config,
                                          const GemmProblem &problem) {
  int64_t batch = problem.batched ? problem.batch : 1;
  return MemRefType::get(
      {batch * getGemmGrid(config, 1, problem.m, problem.n)[0]},
      IntegerType::get(config.getContext(), 32));
}

bool mlir::amk::hasMisalignedRows(const GemmProblem &problem) {
  return llvm::any_of(std::array<int64_t, 2>{problem.getContiguousExtentA(),
                                             problem.getContiguousExtentB()},
                      [&](int64_t extent) {
                        return !ShapedType::isDynamic(extent) &&
                               (extent * problem.inBytes()) % 16 != 0;
                      });
}

bool mlir::amk::padsRowsForTma(const GemmProblem &problem) {
  bool typed = problem.inType.isF16() || problem.inType.isBF16() ||
               (problem.inType.isF32() && problem.isTF32());
  return typed && !ShapedType::isDynamic(problem.k) &&
         hasMisalignedRows(problem);
}

int64_t mlir::amk::getPaddedK(const GemmProblem &problem) {
  return llvm::alignTo(problem.k, 16 / problem.inBytes());
}

bool mlir::amk::repacksOperand(GemmConfigAttr config,
                               const GemmProblem &problem, bool isA) {
  if (config.getMath() != MathInst::wgmma)
    return false;
  if (padsRowsForTma(problem))
    return true;
  if (problem.inType.isF32())
    return isA ? problem.transposeA : !problem.transposeB;
  return isA && problem.transposeA && problem.transposeB;
}

int64_t mlir::amk::getRepackSmemBytes(const GemmProblem &problem) {
  return kRepackTile * (kRepackTile + 1) * problem.inBytes();
}

GemmProblem mlir::amk::getProductProblem(GemmConfigAttr config,
                                         const GemmProblem &problem) {
  GemmProblem product = problem;
  if (config.getMath() == MathInst::wgmma && padsRowsForTma(problem)) {
    product.transposeA = false;
    product.transposeB = true;
    product.k = getPaddedK(problem);
    return product;
  }
  if (repacksOperand(config, problem, /*isA=*/true))
    product.transposeA = false;
  if (repacksOperand(config, problem, /*isA=*/false))
    product.transposeB = true;
  return product;
}

MemRefType mlir::amk::getRepackedType(const GemmProblem &problem, bool isA) {
  SmallVector<int64_t> shape = {isA ? problem.m : problem.n,
                                padsRowsForTma(problem) ? getPaddedK(problem)
                                                        : problem.k};
  if (problem.batched)
    shape.insert(shape.begin(), problem.batch);
  return MemRefType::get(shape, problem.inType);
}

int64_t mlir::amk::getSplitReduceVector(const GemmProblem &problem) {
  return !ShapedType::isDynamic(problem.n) && problem.n % 4 == 0 ? 4 : 1;
}

SmallVector<int64_t> mlir::amk::getWgmmaBox(GemmConfigAttr config,
                                            const GemmProblem &problem,
                                            bool isA) {
  bool kMajor = isA ? !problem.transposeA : problem.transposeB;
  int64_t rows = isA ? config.getBlockM() : config.getBlockN();
  SmallVector<int64_t> box = {kMajor ? config.getBlockK() : kWgmmaMNChunk,
                              kMajor ? rows : config.getBlockK()};
  // A batched operand's map has the batch outermost, one per box.
  if (problem.batched)
    box.push_back(1);
  return box;
}

/// What the TMA + wgmma synthesizer (GemmSynthesisWgmma.cpp) builds.
static LogicalResult checkWgmmaLowerable(GemmConfigAttr config,
                                         const GemmProblem &problem,
                                         std::string &whyNot) {
  auto fail = [&](const llvm::Twine &reason) {
    whyNot = reason.str();
    return failure();
  };
  bool tf32 = problem.inType.isF32() && problem.isTF32();
  if (!(problem.inType.isF16() || problem.inType.isBF16() || tf32))
    return fail("wgmma synthesizes f16, bf16 and tf32 inputs only");
  if (!problem.accType.isF32())
    return fail("wgmma synthesizes f32 accumulators only");
  // (wgmma transposes 16-bit operands only, and nvgpu.warpgroup.mma an A
  // only beside a transposed B: the others come here repacked,
  // getProductProblem.)
  // (A dynamic batch puts the kernel under a guard on blocks past an
  // operand's batch, which the mbarrier check does not model yet.)
  if (problem.batched && ShapedType::isDynamic(problem.batch))
    return fail("wgmma needs a static batch");
  // TMA moves rows whose pitch is a multiple of 16 bytes; static extents
  // prove it here (a dynamic one could break it at run time).
  for (int64_t extent :
       {problem.getContiguousExtentA(), problem.getContiguousExtentB()})
    if (ShapedType::isDynamic(extent) || (extent * problem.inBytes()) % 16 != 0)
      return fail("wgmma needs operands whose rows (their contiguous extent) "
                  "are static and a multiple of 16 bytes (TMA's rule)");
  if (config.getBlockK() * problem.inBytes() != kWgmmaRowBytes)
    return fail(llvm::formatv("wgmma block K rows are {0} bytes (one 128-byte "
                              "swizzle row): BK = {1}",
                              kWgmmaRowBytes,
                              kWgmmaRowBytes / problem.inBytes()));
  int64_t wn = config.getWarpN();
  if (config.getWarpM() != 64 || config.getInst()[1] != wn || wn % 16 != 0)
    return fail("wgmma warp tiles are [64, N] with N a multiple of 16 that "
                "one m64nNk instruction covers (inst = [64, N, K])");
  if (!problem.transposeB && wn % kWgmmaMNChunk != 0)
    return fail("wgmma on B as [K, N] takes warp tiles of whole 64-column "
                "chunks (N = 64, 128, 192 or 256)");
  // TMA boxes have at most 256 rows.
  if (config.getBlockM() > 256 || config.getBlockN() > 256)
    return fail("wgmma block tiles are at most 256 x 256 (TMA boxes)");
  int64_t computeThreads = config.getNumComputeWarps() * 32;
  if (config.getThreads() != computeThreads &&
      config.getThreads() != computeThreads + 128)
    return fail(llvm::formatv("wgmma runs one warpgroup per warp tile ({0} "
                              "threads), plus one producer warpgroup when "
                              "warp specialized ({1})",
                              computeThreads, computeThreads + 128));
  if (config.getStages() < 2 || config.getStages() > 8)
    return fail("wgmma pipelines 2 to 8 stages");
  return success();
}

LogicalResult mlir::amk::checkGemmLowerable(GemmConfigAttr config,
                                            const GemmProblem &problem,
                                            std::string &whyNot) {
  auto fail = [&](const llvm::Twine &reason) {
    whyNot = reason.str();
    return failure();
  };
  int64_t bm = config.getBlockM(), bn = config.getBlockN(),
          bk = config.getBlockK(), threads = config.getThreads(),
          vector = config.getVector();
  if (config.getSplitK() < 1)
    return fail("split_k must be at least 1");
  // Atomic split-K adds partial sums to C with f32 atomics after the launch
  // zeroes it: a linear epilogue into f32 only. A workspace holds f32
  // partial sums, so the accumulator is f32.
  if (isAtomicSplit(config) && !supportsSplitK(problem))
    return fail("split_k > 1 with split_reduce = atomic needs an f32 C and "
                "accumulator without beta, bias or activation (partial sums "
                "are added atomically); split_reduce = workspace serves the "
                "others");
  if (storesSplitPartials(config)) {
    StringRef reduce = stringifySplitReduce(config.getSplitReduce());
    if (!problem.accType.isF32())
      return fail(llvm::formatv("split_reduce = {0} keeps f32 partial sums: "
                                "the accumulator must be f32",
                                reduce));
    // B x split_k x M x N f32 partials must have a byte size.
    int64_t bytes = 4;
    for (int64_t size : getSplitWorkspaceType(config, problem).getShape())
      if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
        return fail("the split-K workspace exceeds 2^63 bytes");
  }
  if (usesSplitCounters(config)) {
    StringRef mode = stringifySplitReduce(config.getSplitReduce());
    // The splits of a tile meet at its counter, which the harness counts
    // over the known grid (serial: and the launch is cooperative).
    if (ShapedType::isDynamic(problem.m) || ShapedType::isDynamic(problem.n) ||
        (problem.batched && ShapedType::isDynamic(problem.batch)))
      return fail(llvm::formatv(
          "split_reduce = {0} needs static M, N and batch (the splits of a "
          "tile meet at its counter: the grid must be known)",
          mode));
    // Serial's turns: every thread of the block passes the barriers
    // around the counter. (The last split's arrival takes the consumers'
    // named barrier in a warp-specialized kernel.)
    if (usesSerialSplit(config) && isWarpSpecialized(config))
      return fail(llvm::formatv("split_reduce = {0} needs every thread in the "
                                "epilogue: not a warp-specialized wgmma kernel",
                                mode));
    int64_t tiles = 0;
    if (llvm::MulOverflow(getSplitCounterType(config, problem).getDimSize(0),
                          config.getSplitK(), tiles) ||
        tiles > std::numeric_limits<int32_t>::max())
      return fail(llvm::formatv("split_reduce = {0}: too many blocks for one "
                                "grid",
                                mode));
  }
  // TMA moves the tiles: no thread loads them, whatever `vector` says.
  if (config.getMath() == MathInst::wgmma) {
    // A repack's grid y enumerates K's tiles.
    if ((repacksOperand(config, problem, true) ||
         repacksOperand(config, problem, false)) &&
        (ShapedType::isDynamic(problem.k) ||
         llvm::divideCeil(getPaddedK(problem), kRepackTile) > kRepackMaxTilesK))
      return fail(llvm::formatv("wgmma repacks operands it cannot read as "
                                "stored (A as [K, M], a tf32 B as [K, N], "
                                "rows that break TMA's 16-byte rule) for K "
                                "up to {0}, static",
                                kRepackTile * kRepackMaxTilesK));
    return checkWgmmaLowerable(config, getProductProblem(config, problem),
                               whyNot);
  }
  // Each operand narrows `vector` to what its rows allow; a width neither
  // can use is a config error, not something to reinterpret silently.
  if (getOperandVersionedVector(config, problem, true) != vector &&
      getOperandVersionedVector(config, problem, false) != vector)
    return fail(llvm::formatv("vector width {0} divides the contiguous extent "
                              "of neither A nor B (loads would be misaligned)",
                              vector));
  // Every thread moves the same number of vectors of each tile.
  if ((bm * bk) % (threads * vector) != 0 || (bn * bk) % (threads * vector))
    return fail(llvm::formatv("{0} threads with vector width {1} do not evenly "
                              "cover the {2}x{3} and {3}x{4} tiles",
                              threads, vector, bm, bk, bn));

  switch (config.getMath()) {
  case MathInst::simt: {
    if (!problem.inType.isF32())
      return fail("simt synthesizes f32 inputs only");
    if (config.getStages() != 2)
      return fail("simt synthesizes double buffering (stages = 2) only");
    int64_t tm = config.getThread()[0], tn = config.getThread()[1];
    if (!llvm::is_contained({1, 2, 4, 8}, tm) ||
        !llvm::is_contained({1, 2, 4, 8}, tn))
      return fail("simt thread tiles are 1, 2, 4 or 8 on each side");
    if (vector > 4)
      return fail("simt loads at most 4 f32 per access");
    return success();
  }
  case MathInst::mma_sync: {
    bool tf32 = problem.inType.isF32() && problem.isTF32();
    if (!(problem.inType.isF16() || problem.inType.isBF16() || tf32))
      return fail("mma_sync synthesizes f16, bf16 and tf32 inputs only");
    if (config.getInst()[2] != (tf32 ? 8 : 16))
      return fail(tf32 ? "mma_sync synthesizes tf32 as m16n8k8 only"
                       : "mma_sync synthesizes f16/bf16 as m16n8k16 only");
    if (config.getWarpM() % 16 != 0 || config.getWarpN() % 16 != 0)
      return fail("mma_sync warp tiles are multiples of 16 on each side");
    if (bk * problem.inBytes() != 64 && bk * problem.inBytes() != 128)
      return fail("mma_sync block K rows are 64 or 128 bytes (BK = 32 or 64 "
                  "for 16-bit types, 16 or 32 for tf32)");
    if (config.getStages() < 2 || config.getStages() > 6)
      return fail("mma_sync pipelines 2 to 6 stages");
    return success();
  }
  case MathInst::wgmma:
    llvm_unreachable("wgmma is checked above");
  }
  llvm_unreachable("unknown math instruction");
}

/// The instructions the synthesizer's kernel of `config` uses that not
/// every arch has.
static SmallVector<ArchFeature>
getGemmArchFeatures(GemmConfigAttr config, const GemmProblem &problem) {
  switch (config.getMath()) {
  case MathInst::simt:
    // FMAs, plain loads and stores, f32 atomics for split-K: every arch.
    return {};
  case MathInst::mma_sync: {
    // A cp.async ring feeds ldmatrix; rows realigned through registers still
    // share the ring's commit and wait groups.
    SmallVector<ArchFeature> features = {ArchFeature::CpAsync,
                                         ArchFeature::LdMatrix};
    if (problem.inType.isF16())
      features.push_back(ArchFeature::MmaF16);
    else if (problem.inType.isBF16())
      features.push_back(ArchFeature::MmaBF16);
    else
      features.push_back(ArchFeature::MmaTF32);
    return features;
  }
  case MathInst::wgmma:
    return {ArchFeature::Wgmma, ArchFeature::Tma};
  }
  llvm_unreachable("unknown math instruction");
}

LogicalResult mlir::amk::checkGemmLowerable(GemmConfigAttr config,
                                            const GemmProblem &problem,
                                            const TargetSpec &target,
                                            std::string &whyNot) {
  if (failed(checkGemmLowerable(config, problem, whyNot)))
    return failure();
  if (!target.getArchInfo()) {
    whyNot = llvm::formatv("arch '{0}' of target '{1}' is unknown", target.arch,
                           target.name);
    return failure();
  }
  for (ArchFeature feature : getGemmArchFeatures(config, problem))
    if (!target.hasFeature(feature)) {
      whyNot = llvm::formatv("{0} kernels use {1}, which {2} (target '{3}') "
                             "lacks: it needs {4} or later",
                             stringifyMathInst(config.getMath()),
                             getArchFeatureName(feature), target.arch,
                             target.name, getMinimumArch(feature));
      return failure();
    }
  if (usesSerialSplit(config)) {
    // A turn waits for blocks of its tile launched beside it: every block
    // must be resident at once (the launch is cooperative).
    GemmProblem product = getProductProblem(config, problem);
    KernelResources r = getGemmResources(config, product, target);
    std::array<int64_t, 3> grid = getGemmGrid(
        config, product.batched ? product.batch : 1, product.m, product.n);
    int64_t blocks = grid[0] * grid[2];
    int64_t resident = r.blocksPerSM * std::max<int64_t>(target.sm_count, 0);
    if (blocks > resident) {
      whyNot = llvm::formatv(
          "split_reduce = serial needs its {0} blocks resident at once (the "
          "splits of a tile wait for each other), but {1} holds {2} ({3} per "
          "SM, limited by {4})",
          blocks, target.name, resident, r.blocksPerSM,
          r.getOccupancyLimiter());
      return failure();
    }
  }
  return success();
}
