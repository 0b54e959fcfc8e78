//===- Lower.cpp - The synthesizer: amk.kernel to GPU binaries ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// amk.kernel (verified)
//   -> gpu.module { gpu.func } + gpu.launch_func       (stop-at=gpu)
//   -> NVVM/LLVM dialect inside the gpu.module         (stop-at=nvvm)
//   -> gpu.binary [cubin, PTX] (+ bundles on disk)     (stop-at=binary)
//
// With the compile cache (stop-at=binary), a kernel's key is computed from
// what the kernel op says; a hit emits the launch and the cached gpu.binary
// and skips everything else, a miss compiles and stores what the harness
// accepted (docs/CACHE.md).
//
// This file is the pass; the host-side launch is LowerLaunch.cpp's, the NVVM
// pipeline and the compilation into the gpu.binary LowerNVVM.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Lower.h"

#include "AMK/Cache/CompileCache.h"
#include "AMK/Family/Family.h"
#include "AMK/Harness/KernelSafety.h"
#include "AMK/Target/JSONDepth.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

namespace mlir::amk {
#define GEN_PASS_DEF_AMKLOWERPASS
#include "AMK/Transforms/Passes.h.inc"
} // namespace mlir::amk

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::lower;

/// Whether a cached verdict is the harness's acceptance (nothing else is
/// stored, but nothing else may be emitted either).
static bool isVerified(StringRef verdict) {
  // A corrupted or hostile entry nested too deep is simply not a verdict.
  llvm::Expected<llvm::json::Value> json = parseJSON(verdict);
  if (!json) {
    llvm::consumeError(json.takeError());
    return false;
  }
  const llvm::json::Object *o = json->getAsObject();
  return o && o->getString("status") == "verified";
}

/// What makes two kernels the same binary: the cache key of `k` under a
/// neutral name (each entry keeps its suffix).
static std::string getContentKey(const BundleKernel &k,
                                 const TargetSpec &target) {
  BundleKernel neutral = k;
  neutral.name.clear();
  for (BundleEntry &entry : neutral.entries)
    entry.entry = entry.entry.substr(k.name.size());
  return computeBundleCacheKey(neutral, target);
}

namespace {

/// What the lowering learned about one kernel, for its bundle.
struct LoweredKernel : BundleKernel {
  /// The family that describes and synthesizes it.
  const KernelFamily *impl = nullptr;
  gpu::GPUModuleOp module;
};

struct AMKLowerPass : public amk::impl::AMKLowerPassBase<AMKLowerPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerLoweringExtensions(registry);
    // The nested pipeline runs dynamically: its dialects load up front.
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    buildKernelToNVVMPipeline(pm);
    pm.getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    return initializeFamilies(context);
  }

  void runOnOperation() override;

private:
  FailureOr<LoweredKernel> describeKernel(KernelOp kernel,
                                          const TargetSpec &target);
  LogicalResult synthesize(KernelOp kernel, LoweredKernel &k,
                           const TargetSpec &target);
  LogicalResult checkGenerated(LoweredKernel &k, const TargetSpec &t);
  LogicalResult lowerToNVVM(gpu::GPUModuleOp module, const TargetSpec &target);
  LogicalResult serialize(LoweredKernel &k, const TargetSpec &target);
  FailureOr<std::optional<CompileCache>> openCache();
  LogicalResult emitCached(KernelOp kernel, const LoweredKernel &k,
                           const TargetSpec &target, CacheEntry &entry);
  void warnCache(Location loc, llvm::Error error);

  /// The compile cache of this run (stop-at=binary, cache on and usable).
  std::optional<CompileCache> compileCache;
  /// One warning per run about a cache that cannot be used.
  bool warnedCache = false;
};
} // namespace

/// The prediction of the ladder rung holding `config`, us (0: none).
static double getPredictedUs(KernelOp kernel,
                             KernelConfigAttrInterface config) {
  if (std::optional<ArrayAttr> ladder = kernel.getLadder())
    for (auto rung : ladder->getAsRange<CandidateAttr>())
      if (rung.getConfig() == config)
        return rung.getPredictedNs() / 1000.0;
  return 0;
}

/// Everything but the code: what the manifest and the cache key need, all
/// known from the kernel op and the options. The kernel's dispatch variants
/// come first, each for a range of a dynamic size; its own config serves
/// every other size.
FailureOr<LoweredKernel>
AMKLowerPass::describeKernel(KernelOp kernel, const TargetSpec &target) {
  ProblemOpInterface problem = kernel.getProblem();
  const KernelFamily *family =
      lookupFamily(kernel, kernel.getConfig().getProblemFamily());
  if (!family)
    return failure();
  std::string whyNot;
  FailureOr<SmallVector<DispatchEntry>> dispatch =
      getDispatchEntries(kernel, whyNot);
  if (failed(dispatch))
    return kernel.emitOpError() << whyNot;

  // Which arguments the kernel writes, from the problem op's effects.
  auto describe = [&](KernelConfigAttrInterface config) {
    KernelLaunch launch = family->describeLaunch(problem, config, target);
    for (auto [arg, operand] :
         llvm::zip(launch.args, problem.getKernelOperands()))
      arg.written = mightHaveEffect<MemoryEffects::Write>(
          problem.getOperation(), operand);
    // Kernels of one launch follow each other on the stream: where the arch
    // has griddepcontrol, each one after the first is launched while the
    // one before it runs, and waits for it in the kernel. One whose blocks
    // are all resident at once lets the next launch from its start (the
    // next one's blocks take what is left); one of several waves, only as
    // its blocks finish (measured at 4097^3: triggered from the start, the
    // copy kernels before the product took 5% longer).
    if (target.hasFeature(ArchFeature::GridDependency))
      for (auto [i, k] : llvm::enumerate(launch.kernels)) {
        k.dependent = i > 0;
        k.launchesDependents =
            i + 1 < launch.kernels.size() && fitsOneWave(launch, k, target);
      }
    return launch;
  };
  LoweredKernel k;
  k.impl = family;
  k.family = family->getName().str();
  k.name = kernel.getSymName().str();
  k.problem = family->problemToJSON(problem);
  k.signature = problem.getProblemSignature();
  k.problemIdentity = getProblemIdentity(problem);
  for (const DispatchEntry &d : *dispatch) {
    BundleEntry &entry = k.entries.emplace_back();
    entry.entry = (k.name + "_" + d.bucket.getName());
    entry.config = d.config;
    entry.launch = describe(d.config);
    entry.predictedUs = d.predictedNs / 1000.0;
    entry.bucket = d.bucket;
    for (StringRef name :
         {StringRef(d.bucket.symbol), StringRef(d.bucket.aboveSymbol)}) {
      if (name.empty())
        continue;
      const SizeSymbol *symbol = entry.launch.findSymbol(name);
      if (!symbol || !ShapedType::isDynamic(symbol->value) || !symbol->arg)
        return kernel.emitOpError("dispatches on '")
               << name << "', which is not a dynamic size of its "
               << family->getDisplayName() << " problem";
    }
  }
  BundleEntry &own = k.entries.emplace_back();
  own.entry = k.name;
  own.config = kernel.getConfig();
  own.launch = describe(own.config);
  own.predictedUs = getPredictedUs(kernel, own.config);
  k.flags = (llvm::Twine("O") + llvm::Twine(optLevel.getValue()) + " " +
             ptxFeaturesFor(target))
                .str();
  k.toolkit = getToolkitPath(toolkitPath);
  k.cacheKey = computeBundleCacheKey(k, target);
  return k;
}

/// A dependent kernel waits for the kernel before it first, before any
/// memory access (the harness checks that it does); one followed by another
/// lets that one launch once all of its own blocks run. (Both at the top of
/// the entry block, where every thread runs them.)
static void addGridDependency(gpu::GPUFuncOp func, const LaunchKernel &launch) {
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&func.getBody().front());
  if (launch.dependent) {
    NVVM::GriddepcontrolOp::create(b, func.getLoc(),
                                   NVVM::GridDepActionKind::wait);
    func->setAttr(kDependentLaunchAttrName, b.getUnitAttr());
  }
  if (launch.launchesDependents)
    NVVM::GriddepcontrolOp::create(b, func.getLoc(),
                                   NVVM::GridDepActionKind::launch_dependents);
}

/// The generated gpu.module (at the end of the module) with a gpu.func per
/// entry of the kernel.
LogicalResult AMKLowerPass::synthesize(KernelOp kernel, LoweredKernel &k,
                                       const TargetSpec &target) {
  ModuleOp module = getOperation();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  k.module = gpu::GPUModuleOp::create(b, kernel.getLoc(), k.name);
  for (const BundleEntry &entry : k.entries) {
    FailureOr<SmallVector<gpu::GPUFuncOp>> funcs =
        k.impl->synthesize(k.module, kernel, entry.config, entry.entry, target);
    if (succeeded(funcs) && funcs->size() != entry.launch.kernels.size())
      funcs = kernel.emitOpError("the ")
              << k.impl->getDisplayName() << " synthesizer built "
              << funcs->size() << " kernels for a launch of "
              << entry.launch.kernels.size();
    if (failed(funcs)) {
      k.module.erase();
      return failure();
    }
    for (auto [func, launch] : llvm::zip_equal(*funcs, entry.launch.kernels)) {
      // The harness's register estimate becomes the kernel's register
      // budget (.maxnreg), so what was verified is what ptxas must honor.
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    b.getI32IntegerAttr(launch.estimatedRegs));
      // What every launch provides, for the harness's shared-memory bounds.
      func->setAttr(kDynamicSmemAttrName,
                    b.getI64IntegerAttr(launch.dynamicSmemBytes));
      addGridDependency(func, launch);
    }
  }
  // Fold the synthesizer's index arithmetic before anything reads it.
  OpPassManager cleanup(gpu::GPUModuleOp::getOperationName());
  cleanup.addPass(createCanonicalizerPass());
  cleanup.addPass(createCSEPass());
  return runPipeline(cleanup, k.module);
}

/// The harness on generated code: the kernel checks (launch resources,
/// structure, barriers, bounds, alignment, races; coalescing as warnings)
/// against the target. The config was verified; this guards the synthesizer
/// itself.
LogicalResult AMKLowerPass::checkGenerated(LoweredKernel &k,
                                           const TargetSpec &t) {
  SmallVector<HarnessFinding> findings;
  for (auto func : k.module.getOps<gpu::GPUFuncOp>()) {
    // The resource check needs the block size the synthesizer always sets.
    if (!func.getKnownBlockSizeAttr())
      return func.emitError("[AMK-UNPROVABLE] generated kernel has no "
                            "known_block_size");
    (void)checkKernelSafety(func, &t, findings);
  }
  bool accepted = true;
  for (const HarnessFinding &f : findings) {
    if (f.isError()) {
      mlir::emitError(f.loc) << "generated kernel rejected: " << f.str();
      accepted = false;
    } else {
      mlir::emitWarning(f.loc) << "generated kernel: " << f.str();
    }
  }
  return success(accepted);
}

LogicalResult AMKLowerPass::lowerToNVVM(gpu::GPUModuleOp module,
                                        const TargetSpec &target) {
  MLIRContext *ctx = module.getContext();
  module.setTargetsAttr(
      ArrayAttr::get(ctx, {getNVVMTarget(ctx, optLevel, target)}));
  // The NVVM lowering aligns dynamic shared memory to 16 bytes; kernels that
  // need more (the 128-byte swizzle's 1024) say so on their gpu.func.
  int64_t smemAlign = 0;
  module.walk([&](gpu::GPUFuncOp func) {
    if (auto align =
            func->getAttrOfType<IntegerAttr>(kDynamicSmemAlignAttrName))
      smemAlign = std::max(smemAlign, align.getInt());
  });
  OpPassManager pm(gpu::GPUModuleOp::getOperationName());
  buildKernelToNVVMPipeline(pm);
  if (failed(runPipeline(pm, module)))
    return failure();
  // An external declaration (PTX `.extern .shared`) is where the driver
  // places the dynamic bytes, aligned as declared; a zero-size internal
  // array is laid out among the static ones.
  if (smemAlign)
    module.walk([&](LLVM::GlobalOp global) {
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !global.getSymName().starts_with("__dynamic_shmem__"))
        return;
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(0), smemAlign));
      global.setLinkage(LLVM::Linkage::External);
    });
  return success();
}

LogicalResult AMKLowerPass::serialize(LoweredKernel &k,
                                      const TargetSpec &target) {
  gpu::GPUModuleOp module = k.module;
  FailureOr<KernelBinary> binary = emitKernelBinary(module, k.toolkit, target);
  if (failed(binary))
    return failure();
  StringRef cubinBytes = binary->getCubin();
  StringRef ptxBytes = binary->getPtx();
  std::string manifest;
  if (compileCache || !bundleDir.empty())
    manifest = getBundleManifest(k, target);
  // Stored only now: the harness accepted the generated kernel, and ptxas
  // assembled it.
  if (compileCache) {
    std::string verdict = getBundleVerdict();
    CacheEntry entry;
    entry.cubin = cubinBytes;
    entry.ptx = ptxBytes;
    entry.manifest = manifest;
    entry.verdict = verdict;
    if (llvm::Error error = compileCache->store(k.cacheKey, entry))
      warnCache(module.getLoc(), std::move(error));
  }
  if (!bundleDir.empty() &&
      failed(writeBundle(bundleDir, k.name, cubinBytes, ptxBytes, manifest,
                         module.getLoc())))
    return failure();
  module.erase();
  return success();
}

/// Never fails the compile: a cache that cannot be used is warned about
/// once, and the kernels compile without it.
void AMKLowerPass::warnCache(Location loc, llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  if (warnedCache)
    return;
  warnedCache = true;
  mlir::emitWarning(loc) << message << "; compiling without the cache";
}

/// The cache this run uses: none when stopping before binaries, when off,
/// or when unusable (warned). Fails only on a bad option.
FailureOr<std::optional<CompileCache>> AMKLowerPass::openCache() {
  if (!cache || stopAt != "binary")
    return std::optional<CompileCache>();
  ModuleOp module = getOperation();
  CacheOptions options;
  if (!cacheMaxSize.empty()) {
    std::optional<uint64_t> size = CompileCache::parseSize(cacheMaxSize);
    if (!size)
      return module.emitError("--amk-lower: cache-max-size must be a size "
                              "such as 1048576, 512M or 2G, not '")
             << cacheMaxSize << "'";
    options.maxBytes = *size;
  }
  std::string dir =
      cacheDir.empty() ? CompileCache::getDefaultDirectory() : cacheDir;
  llvm::Expected<CompileCache> opened = CompileCache::open(dir, options);
  if (!opened) {
    warnCache(module.getLoc(), opened.takeError());
    return std::optional<CompileCache>();
  }
  return std::optional<CompileCache>(std::move(*opened));
}

/// A hit: the launch and the cached gpu.binary (and bundle) in place of
/// synthesis, the harness re-check, NVVM lowering and ptxas.
LogicalResult AMKLowerPass::emitCached(KernelOp kernel, const LoweredKernel &k,
                                       const TargetSpec &target,
                                       CacheEntry &entry) {
  ModuleOp module = getOperation();
  if (!bundleDir.empty() &&
      failed(writeBundle(bundleDir, k.name, entry.cubin, entry.ptx,
                         entry.manifest, kernel.getLoc())))
    return failure();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  createBinary(b, kernel.getLoc(), k.name,
               getNVVMTarget(&getContext(), optLevel, target), entry.cubin,
               entry.ptx);
  emitKernelLaunch(kernel, k);
  return success();
}

void AMKLowerPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (stopAt != "gpu" && stopAt != "nvvm" && stopAt != "binary") {
    module.emitError("--amk-lower: stop-at must be gpu, nvvm or binary, not '")
        << stopAt << "'";
    return signalPassFailure();
  }
  SmallVector<KernelOp> kernels;
  module.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
  if (kernels.empty())
    return markAllAnalysesPreserved();

  TargetAttr targetAttr = lookupTarget(module);
  if (!targetAttr) {
    module.emitError("[AMK-NO-TARGET] the module has no #amk.target; use "
                     "--amk-target=<preset>|<file.json>");
    return signalPassFailure();
  }
  const TargetSpec &target = targetAttr.getSpec();
  // Nothing unverified is emitted.
  for (KernelOp kernel : kernels) {
    if (!kernel->hasAttr(AMKDialect::kVerifiedAttrName)) {
      kernel.emitOpError("has not been verified against the target; run "
                         "--amk-verify before --amk-lower");
      return signalPassFailure();
    }
  }
  FailureOr<std::optional<CompileCache>> opened = openCache();
  if (failed(opened))
    return signalPassFailure();
  compileCache = std::move(*opened);
  warnedCache = false;
  llvm::scope_exit closeCache([&] { compileCache.reset(); });
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));

  // Kernels become gpu.binary (hits) or gpu.module (misses) at the end of
  // the module, in order; each miss's module becomes its binary in place.
  std::vector<LoweredKernel> lowered;
  // Identical kernels are built once: each later one launches the first's
  // binary (and writes no bundle of its own).
  llvm::StringMap<BundleKernel> built;
  for (KernelOp kernel : kernels) {
    FailureOr<LoweredKernel> k = describeKernel(kernel, target);
    if (failed(k))
      return signalPassFailure();
    auto [first, isNew] =
        built.try_emplace(getContentKey(*k, target), BundleKernel(*k));
    if (!isNew) {
      emitKernelLaunch(kernel, first->second);
      continue;
    }
    if (compileCache) {
      std::string corruption;
      std::optional<CacheEntry> entry =
          compileCache->lookup(k->cacheKey, &corruption);
      if (entry && isVerified(entry->verdict)) {
        if (cacheRemarks)
          kernel.emitRemark("compile cache hit: ")
              << k->name << " (key " << k->cacheKey << ")";
        if (failed(emitCached(kernel, *k, target, *entry)))
          return signalPassFailure();
        continue;
      }
      if (cacheRemarks) {
        InFlightDiagnostic remark = kernel.emitRemark("compile cache miss: ")
                                    << k->name << " (key " << k->cacheKey
                                    << ")";
        if (!corruption.empty())
          remark << "; the entry was corrupt (" << corruption
                 << ") and is rebuilt";
      }
    }
    if (failed(synthesize(kernel, *k, target)))
      return signalPassFailure();
    // The launch first: the harness bounds block ids by the grid it uses.
    emitKernelLaunch(kernel, *k);
    if (failed(checkGenerated(*k, target)))
      return signalPassFailure();
    lowered.push_back(std::move(*k));
  }
  if (stopAt == "gpu")
    return;
  for (LoweredKernel &k : lowered)
    if (failed(lowerToNVVM(k.module, target)))
      return signalPassFailure();
  if (stopAt == "nvvm")
    return;
  for (LoweredKernel &k : lowered)
    if (failed(serialize(k, target)))
      return signalPassFailure();
}
