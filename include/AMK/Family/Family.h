//===- Family.h - What every problem family provides ------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A family is one kind of problem (GEMM, row reductions, ...). It owns its
// problem op and config attribute (in the dialect), its model of a kernel
// (resources, what its synthesizer can generate, the launch), its candidate
// space and cost model, and its synthesizer(s). The generic stages reach a
// family only through this interface, looked up by the name the problem op
// and the config report (`getProblemFamily()`):
//
//   --amk-plan     ProblemModel: enumerate, prune, predict -> the generic
//   ladder
//                  (Planner.h), with the tuning database
//   --amk-verify   ProblemModel: resources and lowerability, checked against
//   the
//                  target by the harness (the same check the planner filters
//                  with)
//   --amk-lower    describeLaunch (size symbols, grid expressions, arguments,
//                  what is zeroed), synthesize (the gpu.func)
//   bundle, cache, tuning database
//                  problemToJSON (one field list shared with the runtime)
//
// Families register once per process (registerAllFamilies); registering a
// name twice is an error.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_FAMILY_FAMILY_H
#define AMK_FAMILY_FAMILY_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/SizeExpr.h"
#include "AMK/Target/TargetSpec.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace mlir::amk {

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

/// What one block of a kernel needs and how many blocks fit on an SM; what
/// `--amk-verify` checks against the target and the planner filters with.
struct KernelResources {
  /// Threads per block and the block's shape.
  int64_t threadsPerBlock = 0;
  std::array<int64_t, 3> block = {0, 1, 1};
  int64_t warpsPerBlock = 0;
  int64_t dynamicSmemBytes = 0;
  int64_t staticSmemBytes = 0;
  /// Dynamic shared memory above the default per-block limit: the launcher
  /// opts in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  bool needsSmemOptIn = false;
  /// Estimated registers per thread (uncapped: above the target's limit is
  /// a rejection, not a spill), and the same capped at 255 for reports.
  int64_t regsPerThread = 0;
  int64_t regsPerThreadReported = 0;
  /// Registers allocated to one warp, and what the hardware assumes for a
  /// block (per-warp allocation times warps rounded up to the 4
  /// sub-partitions, as cuda_occupancy.h computes).
  int64_t regsPerWarp = 0;
  int64_t regsAssumedPerBlock = 0;
  /// Resident blocks per SM: the minimum of the limits below (0: none fits).
  int64_t blocksPerSM = 0;
  int64_t blocksPerSMByThreads = 0, blocksPerSMBySmem = 0,
          blocksPerSMByRegs = 0, blocksPerSMByLimit = 0;
  /// The launch grid, per dimension, where the problem's static sizes fix it.
  std::array<std::optional<int64_t>, 3> grid;

  /// Which limit sets blocksPerSM: "threads", "shared memory", "registers"
  /// or "blocks per SM".
  llvm::StringRef getOccupancyLimiter() const;
};

/// Fills the warp, register-allocation and occupancy fields of `r` from its
/// threads, shared memory and registers per thread.
void computeOccupancy(KernelResources &r, const TargetSpec &target);

//===----------------------------------------------------------------------===//
// The launch
//===----------------------------------------------------------------------===//

/// A size symbol of the family (GEMM: B, M, N, K) and where a launch reads
/// it: a dimension of a kernel argument, or a constant.
struct SizeSymbol {
  std::string name;
  /// The static value, or ShapedType::kDynamic.
  int64_t value = ShapedType::kDynamic;
  /// The argument and dimension holding it; no argument: the symbol is the
  /// constant `value`.
  std::optional<unsigned> arg;
  unsigned dim = 0;
};

/// One kernel argument: a problem operand as the kernel takes it.
struct LaunchArg {
  std::string name;
  /// The type the kernel takes it as: the operand's type with every size the
  /// problem fixes made static (the launch asserts and casts to it).
  MemRefType kernelType;
  /// Each dimension as a size symbol, for the manifest.
  SmallVector<std::string> shape;
  /// Whether the kernel writes it (set from the problem op's memory
  /// effects): the runtime refuses a written buffer that overlaps another.
  bool written = true;
};

/// A buffer the launch allocates for its kernels, e.g. a split-K's partial
/// sums. Its contents start undefined: the kernels write before they read.
struct WorkspaceBuffer {
  std::string name;
  /// The type the kernels take it as (static where the problem fixes it).
  MemRefType kernelType;
  /// Each dimension: a size symbol or a constant extent.
  SmallVector<SizeExpr> shape;
  /// Zeroed when allocated, and every launch leaves it zeroed again (a
  /// counter the last block to arrive resets): kept across launches, it
  /// needs no zeroing per launch.
  bool keptZero = false;
};

/// A TMA tensor map a kernel takes: a pointer to the 128-byte map in device
/// memory, which the launch encodes from `buffer` (an argument or workspace
/// buffer) at the launch's sizes. The map's dimensions are the buffer's,
/// innermost first; out-of-bounds elements read as zeros.
struct TensorMapParam {
  /// The parameter's name (kernel params name it like a buffer).
  std::string name;
  std::string buffer;
  /// Box extents in elements, innermost first.
  SmallVector<int64_t> box;
  /// Swizzle span in bytes: 0 (none), 32, 64 or 128.
  int64_t swizzleBytes = 0;
};

/// One kernel of a launch; the kernels run in order, on one stream.
struct LaunchKernel {
  /// Appended to the entry's name for its gpu.func ("" for the first).
  std::string suffix;
  std::array<SizeExpr, 3> grid;
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t dynamicSmemBytes = 0;
  /// The harness's register estimate: the kernel's .maxnreg.
  int64_t estimatedRegs = 0;
  /// Its blocks wait for each other (`amk.cooperative`): the runtime
  /// launches it cooperatively.
  bool cooperative = false;
  /// It begins with `griddepcontrol.wait` (`amk.dependent_launch`): the
  /// runtime may launch it while the kernel before it on the stream still
  /// runs (programmatic dependent launch), hiding the launch's latency.
  bool dependent = false;
  /// It lets the kernel after it launch early (`griddepcontrol.launch_
  /// dependents` at its start, once every block of it is running).
  bool launchesDependents = false;
  /// Its parameters, by argument, workspace or tensor map name, in order.
  SmallVector<std::string> params;
  /// The tensor maps among its parameters.
  SmallVector<TensorMapParam> tensorMaps;

  /// The tensor map parameter called `name`, or null.
  const TensorMapParam *findTensorMap(llvm::StringRef name) const {
    for (const TensorMapParam &map : tensorMaps)
      if (map.name == name)
        return &map;
    return nullptr;
  }
};

/// Everything about a launch except its code, known from the problem, the
/// config and the target: the bundle manifest, the cache key and the
/// emitted launch are all made from it. A launch zeroes what it must, then
/// runs its kernels in order.
struct KernelLaunch {
  SmallVector<SizeSymbol> symbols;
  /// The problem op's kernel operands, in order.
  SmallVector<LaunchArg> args;
  /// Buffers the launch allocates (no two names alike, none an argument's).
  SmallVector<WorkspaceBuffer> workspace;
  /// Arguments and workspace buffers the launch zeroes before the kernels
  /// run (all bytes), e.g. the counters a cooperative kernel polls.
  SmallVector<std::string> zeroed;
  /// At least one.
  SmallVector<LaunchKernel, 1> kernels;
  /// Family-specific manifest fields of the first kernel (GEMM: "tile").
  llvm::json::Object manifestFields;

  /// The symbol called `name`, or null.
  const SizeSymbol *findSymbol(llvm::StringRef name) const;
  /// The kernel's parameter `name` as an index: an argument's position,
  /// then workspace buffers after the arguments; none if unknown.
  std::optional<unsigned> findBuffer(llvm::StringRef name) const;
};

/// Whether every block of `kernel` (of `launch`) is resident at once on
/// `target`: its grid is static and at most one wave of its occupancy.
bool fitsOneWave(const KernelLaunch &launch, const LaunchKernel &kernel,
                 const TargetSpec &target);

//===----------------------------------------------------------------------===//
// The family's model of one problem
//===----------------------------------------------------------------------===//

/// The cost model's prediction for one config, with its terms for explain.
struct CandidateCost {
  double totalNs = 0;
  /// "compute 1.2, hbm 0.4, ... us": the terms of the model.
  std::string terms;
  /// Family facts shown after the resources ("1024 tiles").
  std::string notes;
};

/// Cost-model constants a calibration replaced, by name.
using CostOverrides = llvm::StringMap<double>;

/// A family's cost constants as (name, default) pairs, for
/// KernelFamily::getCostParams: `forEach(params, fn)` calls fn(name, value&)
/// on each constant of a `Params`.
template <typename Params, typename ForEach>
SmallVector<std::pair<std::string, double>> listCostParams(ForEach forEach) {
  SmallVector<std::pair<std::string, double>> out;
  Params defaults;
  forEach(defaults, [&](llvm::StringRef name, double &value) {
    out.push_back({name.str(), value});
  });
  return out;
}

/// The family's cost constants with a calibration's overrides applied.
template <typename Params, typename ForEach>
Params applyCostOverrides(const CostOverrides &overrides, ForEach forEach) {
  Params params;
  forEach(params, [&](llvm::StringRef name, double &value) {
    auto it = overrides.find(name);
    if (it != overrides.end())
      value = it->second;
  });
  return params;
}

/// Values to plan dynamic size symbols at, by symbol (others at the
/// family's representative sizes).
using PlanningSizes = llvm::StringMap<int64_t>;

/// A range of one dynamic size symbol worth a kernel of its own: sizes up
/// to `upTo`, planned at `upTo`, and where `aboveSymbol` is set, only
/// while that size exceeds `above` (few rows, but long ones). Launches
/// pick the kernel when the sizes are known (a bundle variant `symbol <=
/// upTo`, `&& aboveSymbol > above`); every kernel of a bundle is correct
/// for all sizes, so the choice only decides speed.
struct PlanBucket {
  std::string symbol;
  int64_t upTo = 0;
  std::string aboveSymbol;
  int64_t above = 0;

  /// The manifest condition, e.g. `M <= 64` or `M <= 16 && N > 4096`.
  std::string getCondition() const {
    std::string condition = symbol + " <= " + std::to_string(upTo);
    if (!aboveSymbol.empty())
      condition += " && " + aboveSymbol + " > " + std::to_string(above);
    return condition;
  }
  /// A name for the bucket's kernel, e.g. `Mle16` or `Mle16Ngt4096`.
  std::string getName() const {
    std::string name = symbol + "le" + std::to_string(upTo);
    if (!aboveSymbol.empty())
      name += aboveSymbol + "gt" + std::to_string(above);
    return name;
  }
};

/// Why a family did not import an upstream op.
struct ImportDecline {
  std::string reason;
  /// The op is the family's kind but cannot be served as written (a
  /// reduction whose combiner is unknown, a reduced dimension that is not
  /// the last): an error. Otherwise (e.g. tensors, not yet bufferized) the
  /// op stays for another pipeline, with a warning.
  bool isError = false;
};

/// A family's view of one problem on one target: what every stage asks
/// about a config of this family.
class ProblemModel {
public:
  virtual ~ProblemModel();

  /// What a block of `config` needs (failure: `config` is not of this
  /// family).
  virtual FailureOr<KernelResources>
  getResources(KernelConfigAttrInterface config) const = 0;
  /// Whether the synthesizer can generate `config` for this problem; on
  /// failure `whyNot` names the limit.
  virtual LogicalResult checkLowerable(KernelConfigAttrInterface config,
                                       std::string &whyNot) const = 0;

  /// Calls `fn` on every config of the candidate space that the config
  /// attribute's verifier accepts.
  virtual void
  enumerate(llvm::function_ref<void(KernelConfigAttrInterface)> fn) const = 0;
  /// A heuristic dropping `config` before it is costed: (reason, message).
  virtual std::optional<std::pair<std::string, std::string>>
  prune(KernelConfigAttrInterface config) const {
    return std::nullopt;
  }
  /// The predicted time (non-finite: the target has no peak rate for the
  /// config's math path).
  virtual CandidateCost predict(KernelConfigAttrInterface config,
                                const KernelResources &resources) const = 0;
  /// Tie-breakers among equal predictions, smaller first.
  virtual SmallVector<int64_t>
  getTieBreakers(KernelConfigAttrInterface config,
                 const KernelResources &resources) const = 0;
  /// Configs with the same key are alike, for diverse ladders: the tile and
  /// work split (`coarse`: the tile alone).
  virtual std::string getShapeKey(KernelConfigAttrInterface config,
                                  bool coarse) const = 0;
  /// Whether `config` leaves partial tiles on this problem (the tuning
  /// database's unsafe-edge repairs apply to those).
  virtual bool hasPartialTiles(KernelConfigAttrInterface config) const = 0;
  /// Whether sizes are dynamic (planned at representative sizes; no nearby
  /// measurements apply).
  virtual bool hasDynamicSizes() const = 0;
  /// Remarks for explain ("dynamic sizes planned as 4096").
  virtual SmallVector<std::string> getPlanNotes() const { return {}; }
  /// Ranges of dynamic sizes to plan kernels of their own for, in the
  /// order the launch tries them (none: one kernel serves every size).
  virtual SmallVector<PlanBucket> getPlanBuckets() const { return {}; }
};

//===----------------------------------------------------------------------===//
// The family
//===----------------------------------------------------------------------===//

class KernelFamily {
public:
  virtual ~KernelFamily();

  /// The name problems and configs report (`getProblemFamily()`).
  virtual llvm::StringRef getName() const = 0;
  /// For messages: "GEMM".
  virtual llvm::StringRef getDisplayName() const = 0;

  /// Whether `op` (an upstream op such as linalg.matmul) is one this family
  /// imports.
  virtual bool canImport(Operation *op) const { return false; }
  /// Replaces `op` by the family's problem op; on failure `op` stays and
  /// `why` says why.
  virtual LogicalResult importOp(RewriterBase &rewriter, Operation *op,
                                 ImportDecline &why) const;

  /// The model of `problem` (a problem op of this family) on `target`.
  virtual std::unique_ptr<ProblemModel>
  getModel(ProblemOpInterface problem, const TargetSpec &target,
           const CostOverrides &overrides = {},
           const PlanningSizes &planningSizes = {}) const = 0;
  /// The model of a problem given by its JSON (problemToJSON), as tuning
  /// records keep it; failure when the JSON does not describe one.
  virtual FailureOr<std::unique_ptr<ProblemModel>>
  getModel(MLIRContext *context, const llvm::json::Object &problem,
           const TargetSpec &target,
           const CostOverrides &overrides = {}) const = 0;

  /// The launch of `config` for `problem` (a verified pair).
  virtual KernelLaunch describeLaunch(ProblemOpInterface problem,
                                      KernelConfigAttrInterface config,
                                      const TargetSpec &target) const = 0;
  /// Builds the gpu.funcs computing the kernel's problem with `config`
  /// (the kernel's own or a dispatch variant's) in `module`: one per kernel
  /// of describeLaunch, in order, each called `name` + its suffix and taking
  /// its parameters. Diagnostics at `kernel` on failure.
  virtual FailureOr<SmallVector<gpu::GPUFuncOp>>
  synthesize(gpu::GPUModuleOp module, KernelOp kernel,
             KernelConfigAttrInterface config, llvm::StringRef name,
             const TargetSpec &target) const = 0;

  /// The problem's fields as JSON (the family's field list, shared with the
  /// runtime), without "family" and "signature".
  virtual llvm::json::Object
  problemToJSON(ProblemOpInterface problem) const = 0;
  /// The size symbols and their values in a problem's JSON (for the tuning
  /// database's distance between problems); kDynamic where dynamic.
  virtual llvm::StringMap<int64_t>
  getSizes(const llvm::json::Object &problem) const = 0;
  /// The key under which tuning records of problems that differ only in
  /// their sizes are comparable: by default the signature without its
  /// size tokens (`4096x4096x4096`, `?x64`).
  virtual std::string getComparableKey(llvm::StringRef signature,
                                       const llvm::json::Object &problem) const;
  /// The useful work of a problem (GEMM: 2 B M N K flops), for reports.
  virtual double getWork(const llvm::json::Object &problem) const = 0;

  /// The cost-model constants a calibration may refit, with their defaults.
  virtual SmallVector<std::pair<std::string, double>> getCostParams() const = 0;
  /// Registers one thread holds for results (GEMM: accumulators); spill
  /// repairs bound it. 0 when the family has no such measure.
  virtual int64_t getRegisterPressure(KernelConfigAttrInterface config) const {
    return 0;
  }
};

/// A problem JSON's size fields as size symbols ({"m", "M"}: field "m" is
/// symbol M): -1 reads as ShapedType::kDynamic, a missing field as
/// `missing`. For KernelFamily::getSizes.
llvm::StringMap<int64_t>
readSizeFields(const llvm::json::Object &problem,
               ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> fields,
               int64_t missing);

/// A type as manifests and tuning records spell it ("bf16", "i32").
std::string getTypeName(Type type);
/// The float type a manifest or tuning record names (f16, bf16, f32, f64),
/// or null.
Type parseFloatTypeName(MLIRContext *context, llvm::StringRef name);

/// Adds `family` to the process's families; an error if its name is taken.
llvm::Error registerFamily(std::unique_ptr<KernelFamily> family);
/// The family called `name`, or null.
const KernelFamily *lookupFamily(llvm::StringRef name);
/// The family of a problem op or config (an error diagnostic at `op` and
/// null when none is registered).
const KernelFamily *lookupFamily(Operation *op, llvm::StringRef name);
/// The discardable attribute of an `amk.kernel` listing its dispatch
/// variants: an array of {when, symbol, up_to, config, predicted_ns}
/// dictionaries, each a config planned for sizes up to `up_to` of a
/// dynamic `symbol` (Planner.h planDispatch), tried in order before the
/// kernel's own config.
inline constexpr llvm::StringLiteral kDispatchAttrName = "amk.dispatch";

/// One dispatch variant of a kernel (kDispatchAttrName).
struct DispatchEntry {
  PlanBucket bucket;
  KernelConfigAttrInterface config;
  int64_t predictedNs = 0;
};

/// The kernel's dispatch variants, in order; failure with `whyNot` when the
/// attribute is malformed (not an array of {symbol, up_to >= 1, config}
/// dictionaries whose configs are of the kernel's family).
FailureOr<SmallVector<DispatchEntry>> getDispatchEntries(KernelOp kernel,
                                                         std::string &whyNot);

/// The problem op exactly (name, attributes, operand types): what makes two
/// problems the same, for the planner's memo and the cache key.
std::string getProblemIdentity(Operation *problem);

/// Every registered family, in registration order.
SmallVector<const KernelFamily *> getFamilies();
/// Every registered family's name, comma-separated.
std::string listFamilyNames();

/// Registers every family AMK has (idempotent; thread-safe).
llvm::Error registerAllFamilies();

} // namespace mlir::amk

#endif // AMK_FAMILY_FAMILY_H
