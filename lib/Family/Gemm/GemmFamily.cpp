//===- GemmFamily.cpp - The GEMM family's hooks ---------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Gemm/GemmFamily.h"

#include "AMK/Family/Gemm/GemmResources.h"
#include "GemmSynthesis.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::amk;

/// The symbols of each operand's dimensions (docs/BUNDLE.md argument ABI):
/// A [B] M K (K M transposed), B [B] K N (N K transposed), bias [B] N, C [B]
/// M N.
static SmallVector<std::string>
getOperandSymbols(const GemmProblem &p, StringRef name, int64_t rank) {
  SmallVector<std::string> shape;
  if (p.batched && (name != "bias" || rank == 2))
    shape.push_back("B");
  if (name == "A")
    shape.append(p.transposeA ? std::initializer_list<std::string>{"K", "M"}
                              : std::initializer_list<std::string>{"M", "K"});
  else if (name == "B")
    shape.append(p.transposeB ? std::initializer_list<std::string>{"N", "K"}
                              : std::initializer_list<std::string>{"K", "N"});
  else if (name == "bias")
    shape.push_back("N");
  else
    shape.append({"M", "N"});
  return shape;
}

namespace {
class GemmFamily : public KernelFamily {
public:
  StringRef getName() const override { return "gemm"; }
  StringRef getDisplayName() const override { return "GEMM"; }

  bool canImport(Operation *op) const override {
    return isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
  }
  LogicalResult importOp(RewriterBase &rewriter, Operation *op,
                         ImportDecline &why) const override {
    return importLinalgMatmul(rewriter, op, why.reason);
  }

  std::unique_ptr<ProblemModel>
  getModel(ProblemOpInterface problem, const TargetSpec &target,
           const CostOverrides &overrides,
           const PlanningSizes &planningSizes) const override {
    return createGemmProblemModel(
        problem->getContext(),
        GemmProblem::get(cast<MatmulOp>(problem.getOperation())), target,
        getParams(overrides), planningSizes);
  }

  FailureOr<std::unique_ptr<ProblemModel>>
  getModel(MLIRContext *context, const llvm::json::Object &json,
           const TargetSpec &target,
           const CostOverrides &overrides) const override {
    FailureOr<GemmProblem> problem = GemmProblem::fromJSON(context, json);
    if (failed(problem))
      return failure();
    return createGemmProblemModel(context, *problem, target,
                                  getParams(overrides));
  }

  KernelLaunch describeLaunch(ProblemOpInterface op,
                              KernelConfigAttrInterface configAttr,
                              const TargetSpec &target) const override;

  FailureOr<SmallVector<gpu::GPUFuncOp>>
  synthesize(gpu::GPUModuleOp module, KernelOp kernel,
             KernelConfigAttrInterface configAttr, StringRef name,
             const TargetSpec &) const override {
    auto config = dyn_cast<GemmConfigAttr>(configAttr);
    if (!config)
      return kernel.emitOpError("has no GEMM synthesizer for config ")
             << configAttr;
    // In the launch's order (describeLaunch).
    SmallVector<gpu::GPUFuncOp> funcs;
    auto matmul = cast<MatmulOp>(kernel.getProblem().getOperation());
    for (bool isA : {true, false})
      if (repacksOperand(config, GemmProblem::get(matmul), isA))
        funcs.push_back(synthesizeGemmRepackKernel(
            module, kernel, isA, (name + getRepackSuffix(isA)).str()));
    FailureOr<gpu::GPUFuncOp> main =
        synthesizeGemmKernel(module, kernel, config, name);
    if (failed(main))
      return failure();
    funcs.push_back(*main);
    if (usesSplitWorkspace(config))
      funcs.push_back(synthesizeGemmSplitReduceKernel(
          module, kernel, config, (name + "_reduce").str()));
    return funcs;
  }

  llvm::json::Object problemToJSON(ProblemOpInterface problem) const override {
    return GemmProblem::get(cast<MatmulOp>(problem.getOperation())).toJSON();
  }

  llvm::StringMap<int64_t>
  getSizes(const llvm::json::Object &json) const override {
    return readSizeFields(
        json, {{"batch", "B"}, {"m", "M"}, {"n", "N"}, {"k", "K"}}, 1);
  }

  double getWork(const llvm::json::Object &json) const override {
    double work = 2;
    for (const auto &entry : getSizes(json))
      work *= ShapedType::isDynamic(entry.getValue()) ? 0 : entry.getValue();
    return work;
  }

  /// Batched and unbatched products do not compare.
  std::string getComparableKey(StringRef signature,
                               const llvm::json::Object &json) const override {
    std::string key = KernelFamily::getComparableKey(signature, json);
    if (json.getBoolean("batched").value_or(false) &&
        StringRef(key).starts_with("gemm_"))
      key.insert(5, "b_");
    return key;
  }

  SmallVector<std::pair<std::string, double>> getCostParams() const override {
    return listCostParams<GemmCostParams>(
        [](auto &p, auto fn) { forEachCalibratedParam(p, fn); });
  }

  int64_t getRegisterPressure(KernelConfigAttrInterface config) const override {
    auto gemm = dyn_cast<GemmConfigAttr>(config);
    return gemm ? getAccumulatorsPerThread(gemm) : 0;
  }

private:
  static GemmCostParams getParams(const CostOverrides &overrides) {
    return applyCostOverrides<GemmCostParams>(
        overrides, [](auto &p, auto fn) { forEachCalibratedParam(p, fn); });
  }
};
} // namespace

KernelLaunch GemmFamily::describeLaunch(ProblemOpInterface op,
                                        KernelConfigAttrInterface configAttr,
                                        const TargetSpec &target) const {
  auto matmul = cast<MatmulOp>(op.getOperation());
  auto config = cast<GemmConfigAttr>(configAttr);
  GemmProblem p = GemmProblem::get(matmul);
  KernelLaunch launch;

  // Arguments: A, B, [bias], C at the types the kernel takes them.
  SmallVector<StringRef, 4> names = {"A", "B"};
  if (p.bias)
    names.push_back("bias");
  names.push_back("C");
  for (auto [i, operand] : llvm::enumerate(matmul.getKernelOperands())) {
    auto type = cast<MemRefType>(operand.getType());
    launch.args.push_back(
        LaunchArg{names[i].str(), getKernelOperandType(p, i, type),
                  getOperandSymbols(p, names[i], type.getRank())});
  }

  // Symbols, read from C (M, N, the batch) and A (K).
  unsigned c = launch.args.size() - 1;
  unsigned off = p.batched ? 1 : 0;
  launch.symbols = {
      p.batched ? SizeSymbol{"B", p.batch, c, 0} : SizeSymbol{"B", 1, {}, 0},
      SizeSymbol{"M", p.m, c, off}, SizeSymbol{"N", p.n, c, off + 1},
      SizeSymbol{"K", p.k, 0u, off + (p.transposeA ? 0u : 1u)}};

  // An operand wgmma cannot read as stored (A as [K, M], a tf32 B as [K,
  // N], rows that break TMA's 16-byte rule): a first kernel copies it
  // K-major (K padded with zeros to 16 bytes in the last case) into a
  // workspace, which the product's kernel reads (and its tensor map
  // describes) in its place.
  SizeExpr packedK = padsRowsForTma(p) ? SizeExpr::constant(getPaddedK(p))
                                       : SizeExpr::symbol("K");
  llvm::StringMap<std::string> packedName;
  for (bool isA : {true, false}) {
    if (!repacksOperand(config, p, isA))
      continue;
    StringRef operand = isA ? "A" : "B";
    std::string name = (operand + "_packed").str();
    packedName[operand] = name;
    WorkspaceBuffer &packed = launch.workspace.emplace_back();
    packed.name = name;
    packed.kernelType = getRepackedType(p, isA);
    for (const std::string &symbol :
         getOperandSymbols(getProductProblem(config, p), operand, 0))
      packed.shape.push_back(symbol == "K" ? packedK
                                           : SizeExpr::symbol(symbol));
    LaunchKernel &pack = launch.kernels.emplace_back();
    pack.suffix = getRepackSuffix(isA).str();
    pack.grid = {
        SizeExpr::ceilDiv(SizeExpr::symbol(isA ? "M" : "N"), kRepackTile),
        SizeExpr::ceilDiv(packedK, kRepackTile), SizeExpr::symbol("B")};
    pack.block = {kRepackThreads, 1, 1};
    pack.dynamicSmemBytes = getRepackSmemBytes(p);
    pack.estimatedRegs = kRepackRegs;
    pack.params = {operand.str(), name};
  }
  auto readAs = [&](StringRef operand) -> std::string {
    auto it = packedName.find(operand);
    return it == packedName.end() ? operand.str() : it->second;
  };

  // Output tiles on x (remapped in the kernel for `swizzle`), batch x
  // split_k on z: no 65535 limit on y and z for the tiles.
  LaunchKernel &main = launch.kernels.emplace_back();
  SizeExpr x = SizeExpr::ceilDiv(SizeExpr::symbol("M"), config.getBlockM()) *
               SizeExpr::ceilDiv(SizeExpr::symbol("N"), config.getBlockN());
  SizeExpr z = SizeExpr::symbol("B");
  if (config.getSplitK() > 1)
    z = z * SizeExpr::constant(config.getSplitK());
  // A persistent kernel: min(tiles, SMs) blocks loop over the tiles.
  if (int64_t blocks = getPersistentBlocks(config, p, target))
    x = SizeExpr::constant(blocks);
  main.grid = {x, SizeExpr::constant(1), z};
  main.block = {config.getThreads(), 1, 1};
  main.dynamicSmemBytes = getGemmSmemLayout(config, p).totalBytes();
  main.estimatedRegs = getGemmResources(config, p, target).regsPerThread;
  for (const LaunchArg &arg : launch.args)
    main.params.push_back(readAs(arg.name));
  if (config.getMath() == MathInst::wgmma) {
    // Boxes of one stage's tiles (getWgmmaBox), 128-byte swizzle.
    GemmProblem product = getProductProblem(config, p);
    for (auto [buffer, isA] :
         {std::pair<StringRef, bool>{"A", true}, {"B", false}}) {
      TensorMapParam map{(buffer + "_tma").str(), readAs(buffer),
                         getWgmmaBox(config, product, isA), kWgmmaRowBytes};
      main.params.push_back(map.name);
      main.tensorMaps.push_back(std::move(map));
    }
  }
  launch.manifestFields["tile"] = llvm::json::Array{
      config.getBlockM(), config.getBlockN(), config.getBlockK()};

  // Atomic split-K adds its partial sums into C: it starts at zero.
  if (isAtomicSplit(config))
    launch.zeroed.push_back("C");
  if (!storesSplitPartials(config))
    return launch;
  // The f32 partial tiles: one per split (workspace, last), or the running
  // sum the splits of a tile add to in turn (serial).
  int64_t slots = getSplitWorkspaceType(config, p).getDimSize(1);
  launch.workspace.push_back(
      WorkspaceBuffer{"partials",
                      getSplitWorkspaceType(config, p),
                      {SizeExpr::symbol("B"), SizeExpr::constant(slots),
                       SizeExpr::symbol("M"), SizeExpr::symbol("N")}});
  main.params.push_back("partials");
  if (usesSplitCounters(config)) {
    // Serial or last split-K: a counter per tile (static sizes). Serial's
    // turns wait for each other, so its launch is cooperative
    // (checkGemmLowerable checked that it fits), and zeroes the counters;
    // the last split to arrive resets its tile's, so they stay zeroed from
    // their allocation on (another name: no launch shares them with
    // serial's).
    MemRefType counters = getSplitCounterType(config, p);
    bool last = usesLastSplit(config);
    StringRef name = last ? "arrivals" : "counters";
    launch.workspace.push_back(
        WorkspaceBuffer{name.str(),
                        counters,
                        {SizeExpr::constant(counters.getDimSize(0))},
                        /*keptZero=*/last});
    if (!last)
      launch.zeroed.push_back(name.str());
    main.params.push_back(name.str());
    main.cooperative = usesSerialSplit(config);
    return launch;
  }
  // Workspace split-K: a second kernel sums the partial tiles into C (grid
  // x over B's M x N elements, z the batch).
  LaunchKernel &reduce = launch.kernels.emplace_back();
  reduce.suffix = "_reduce";
  int64_t perBlock = kSplitReduceThreads * getSplitReduceVector(p);
  reduce.grid = {SizeExpr::ceilDiv(
                     SizeExpr::symbol("M") * SizeExpr::symbol("N"), perBlock),
                 SizeExpr::constant(1), SizeExpr::symbol("B")};
  reduce.block = {kSplitReduceThreads, 1, 1};
  reduce.estimatedRegs = kSplitReduceRegs;
  reduce.params.push_back("partials");
  if (p.bias)
    reduce.params.push_back("bias");
  reduce.params.push_back("C");
  return launch;
}

std::unique_ptr<KernelFamily> mlir::amk::createGemmFamily() {
  return std::make_unique<GemmFamily>();
}
