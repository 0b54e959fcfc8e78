//===- RowReduceModel.cpp - What a row-wise kernel needs and does ---------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/RowReduce/RowReduceModel.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amk;

RowProblem RowProblem::get(RowReduceOp op) {
  RowProblem p;
  p.kind = op.getKind();
  p.batched = op.isBatched();
  p.batch = op.getBatchSize();
  p.m = op.getM();
  p.n = op.getN();
  p.inType = op.getX().getType().getElementType();
  p.outType = op.getY().getType().getElementType();
  p.weight = static_cast<bool>(op.getWeight());
  p.bias = static_cast<bool>(op.getBias());
  p.eps = op.getEpsValue();
  return p;
}


FailureOr<RowProblem> RowProblem::fromJSON(MLIRContext *context,
                                           const llvm::json::Object &json) {
  RowProblem p;
  bool ok = true;
  auto readSize = [&](StringRef key, int64_t &out) {
    std::optional<int64_t> v = json.getInteger(key);
    ok &= v && (*v >= 1 || *v == -1);
    if (v)
      out = *v == -1 ? ShapedType::kDynamic : *v;
  };
  auto readBool = [&](StringRef key, bool &out) {
    std::optional<bool> v = json.getBoolean(key);
    ok &= v.has_value();
    out = v.value_or(false);
  };
  auto readFloat = [&](StringRef key, double &out) {
    std::optional<double> v = json.getNumber(key);
    ok &= v.has_value();
    out = v.value_or(0);
  };
  auto readType = [&](StringRef key, Type &out) {
    std::optional<StringRef> v = json.getString(key);
    Builder b(context);
    if (v && *v == "f32")
      out = b.getF32Type();
    else if (v && *v == "f16")
      out = b.getF16Type();
    else if (v && *v == "bf16")
      out = b.getBF16Type();
    else
      ok = false;
  };
  auto readRowOp = [&](StringRef key, RowOp &out) {
    std::optional<StringRef> v = json.getString(key);
    std::optional<RowOp> kind = v ? symbolizeRowOp(*v) : std::nullopt;
    ok &= kind.has_value();
    out = kind.value_or(RowOp::sum);
  };
#define AMK_ROW_FIELD(Kind, key, member, doc) read##Kind(#key, p.member);
#include "AMK/Family/RowReduce/RowReduceProblemFields.def"
  if (!ok)
    return failure();
  return p;
}

llvm::json::Object RowProblem::toJSON() const {
  auto writeSize = [](int64_t v) -> llvm::json::Value {
    return ShapedType::isDynamic(v) ? -1 : v;
  };
  auto writeBool = [](bool v) -> llvm::json::Value { return v; };
  auto writeFloat = [](double v) -> llvm::json::Value { return v; };
  auto writeType = [](Type t) -> llvm::json::Value { return getTypeName(t); };
  auto writeRowOp = [](RowOp k) -> llvm::json::Value {
    return stringifyRowOp(k);
  };
  llvm::json::Object json;
#define AMK_ROW_FIELD(Kind, key, member, doc) json[#key] = write##Kind(member);
#include "AMK/Family/RowReduce/RowReduceProblemFields.def"
  return json;
}

int64_t mlir::amk::getRowCombineBytes(RowConfigAttr config) {
  int64_t warps = config.getWarpsPerRow();
  if (warps <= 1)
    return 0;
  return 2 * warps * config.getRowsPerBlock() * 2 * 4;
}

int64_t mlir::amk::getRowStagedBytes(RowConfigAttr config,
                                     const RowProblem &problem) {
  if (config.getCache() != RowCache::shared)
    return 0;
  // Each factor is bounded by the config's verifier (at most 1024 threads,
  // 32 runs of 8 elements of 4 bytes): no overflow.
  int64_t bytes = config.getRowsPerBlock() * getRowStagedColumns(config) *
                  problem.inBytes();
  return llvm::alignTo(bytes, 16);
}

int64_t mlir::amk::getRowRegisters(RowConfigAttr config,
                                   const RowProblem &problem) {
  // (A staged row keeps a streamed row's runs in flight.)
  int64_t cached = config.getCache() == RowCache::shared
                       ? 0
                       : getCachedRegisters(config.getCachedRuns(),
                                            config.getVector(), problem);
  // Statistics, a run in flight and addresses beside the cache (a streamed
  // row: 64), as ptxas (CUDA 13, sm_90a) allocates them: 260 configs of
  // every kind, type, width and depth assemble without a spill at this
  // budget, save LayerNorm rows narrower than a 1024-thread block (which 64
  // registers, the most such a block has, cannot hold either). A row of
  // dynamic length keeps its extents and guards beside the cache: 16 more,
  // 40 more with a weight (900 configs swept the same way; LayerNorms with
  // weight and bias spilled at 16 and, 16-bit two-pass ones, at 32).
  int64_t beside = 32;
  if (ShapedType::isDynamic(problem.n) && cached)
    beside += problem.weight ? 40 : 16;
  return llvm::alignTo(std::max<int64_t>(64, beside + cached), 8);
}

KernelResources mlir::amk::getRowResources(RowConfigAttr config,
                                           const RowProblem &problem,
                                           const TargetSpec &target) {
  KernelResources r;
  r.threadsPerBlock = config.getThreads();
  r.block = {r.threadsPerBlock, 1, 1};
  r.dynamicSmemBytes = getRowSmemBytes(config, problem);
  r.regsPerThread = getRowRegisters(config, problem);
  computeOccupancy(r, target);
  // Row groups (each row's cluster of blocks) on x, the batch on z.
  if (!ShapedType::isDynamic(problem.m))
    r.grid[0] = llvm::divideCeil(problem.m, config.getRowsPerBlock()) *
                config.getCluster();
  r.grid[1] = 1;
  if (!ShapedType::isDynamic(problem.batch))
    r.grid[2] = problem.batch;
  return r;
}

MemRefType mlir::amk::getRowWorkspaceType(RowConfigAttr config,
                                          const RowProblem &problem) {
  if (config.getCluster() == 1)
    return nullptr;
  return MemRefType::get({problem.m, getRowWorkspaceColumns(config)},
                         Float32Type::get(problem.inType.getContext()));
}

LogicalResult mlir::amk::checkRowLowerable(RowConfigAttr config,
                                           const RowProblem &problem,
                                           std::string &whyNot,
                                           const TargetSpec *target) {
  int64_t cluster = config.getCluster();
  if (cluster > 1 && target && !target->hasFeature(ArchFeature::Clusters)) {
    whyNot = llvm::formatv("a cluster of {0} blocks needs thread-block "
                           "clusters, which {1} ({2}) lacks",
                           cluster, target->name, target->arch);
    return failure();
  }
  if (cluster > 1 && problem.batched) {
    whyNot = "a row spread over a cluster takes 2-D rows, not a batch";
    return failure();
  }
  // (A dynamic row length is versioned: the vector where it divides the
  // length, element by element where not.)
  int64_t vector = config.getVector();
  if (!ShapedType::isDynamic(problem.n) && problem.n % vector != 0) {
    whyNot = llvm::formatv("vector width {0} does not divide the row length "
                           "{1}",
                           vector, problem.n);
    return failure();
  }
  if (vector * problem.inType.getIntOrFloatBitWidth() > 128 ||
      vector * problem.outType.getIntOrFloatBitWidth() > 128) {
    whyNot = llvm::formatv("vector width {0} exceeds a 16-byte access", vector);
    return failure();
  }
  bool staged = config.getCache() == RowCache::shared;
  if (staged && ShapedType::isDynamic(problem.n)) {
    whyNot = "cache = shared needs a static row length";
    return failure();
  }
  if (int64_t runs = config.getCachedRuns()) {
    int64_t perPass = config.getThreadsPerRow() * cluster * vector;
    if (!staged &&
        getCachedRegisters(runs, vector, problem) > kMaxCachedRegisters) {
      whyNot = llvm::formatv("{0} cached runs of {1} exceed the {2} registers "
                             "a thread gives to its row",
                             runs, vector, kMaxCachedRegisters);
      return failure();
    }
    // A dynamic row is cached where it fits and streamed where not (the
    // kernel tests its length). A static one takes exactly the runs it
    // needs: fewer cannot hold it, more are dead.
    int64_t needed = ShapedType::isDynamic(problem.n)
                         ? runs
                         : llvm::divideCeilSigned(problem.n, perPass);
    if (runs != needed) {
      whyNot = llvm::formatv("a row of {0} in runs of {1} x {2} threads needs "
                             "cached_runs = {3}",
                             problem.n, vector,
                             config.getThreadsPerRow() * cluster, needed);
      return failure();
    }
  }
  if (config.getPasses() == 2 && !problem.hasTwoPassForm()) {
    whyNot = "passes = 2 applies to softmax and layer_norm only";
    return failure();
  }
  return success();
}
