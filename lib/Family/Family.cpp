//===- Family.cpp - The registry of families and the occupancy model ------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Family/Family.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <mutex>

using namespace mlir;
using namespace mlir::amk;

ProblemModel::~ProblemModel() = default;
KernelFamily::~KernelFamily() = default;

LogicalResult KernelFamily::importOp(RewriterBase &, Operation *,
                                     ImportDecline &why) const {
  why.reason = ("family '" + getName() + "' imports no upstream ops").str();
  return failure();
}

std::string KernelFamily::getComparableKey(StringRef signature,
                                           const llvm::json::Object &) const {
  SmallVector<StringRef> tokens;
  signature.split(tokens, '_');
  std::string key;
  for (StringRef token : tokens) {
    bool isSizes = !token.empty() && llvm::all_of(token, [](char c) {
      return llvm::isDigit(c) || c == 'x' || c == '?';
    });
    if (isSizes && llvm::any_of(token, [](char c) { return c != 'x'; }))
      continue;
    if (!key.empty())
      key += '_';
    key += token.str();
  }
  return key;
}

const SizeSymbol *KernelLaunch::findSymbol(StringRef name) const {
  for (const SizeSymbol &s : symbols)
    if (s.name == name)
      return &s;
  return nullptr;
}

llvm::StringMap<int64_t>
mlir::amk::readSizeFields(const llvm::json::Object &problem,
                          ArrayRef<std::pair<StringRef, StringRef>> fields,
                          int64_t missing) {
  llvm::StringMap<int64_t> sizes;
  for (auto [key, symbol] : fields) {
    int64_t v = problem.getInteger(key).value_or(missing);
    sizes[symbol] = v == -1 ? ShapedType::kDynamic : v;
  }
  return sizes;
}

std::optional<unsigned> KernelLaunch::findBuffer(StringRef name) const {
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.name == name)
      return i;
  for (auto [i, buffer] : llvm::enumerate(workspace))
    if (buffer.name == name)
      return args.size() + i;
  return std::nullopt;
}

FailureOr<SmallVector<DispatchEntry>>
mlir::amk::getDispatchEntries(KernelOp kernel, std::string &whyNot) {
  SmallVector<DispatchEntry> entries;
  Attribute attr = kernel->getAttr(kDispatchAttrName);
  if (!attr)
    return entries;
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array) {
    whyNot = "'" + kDispatchAttrName.str() + "' must be an array";
    return failure();
  }
  for (auto [i, element] : llvm::enumerate(array)) {
    auto dict = dyn_cast<DictionaryAttr>(element);
    auto symbol = dict ? dict.getAs<StringAttr>("symbol") : StringAttr();
    auto upTo = dict ? dict.getAs<IntegerAttr>("up_to") : IntegerAttr();
    auto config =
        dict ? dict.getAs<KernelConfigAttrInterface>("config") : nullptr;
    auto predicted =
        dict ? dict.getAs<IntegerAttr>("predicted_ns") : IntegerAttr();
    // Optional: a lower bound on another size.
    auto aboveSymbol =
        dict ? dict.getAs<StringAttr>("above_symbol") : StringAttr();
    auto above = dict ? dict.getAs<IntegerAttr>("above") : IntegerAttr();
    if (!symbol || !upTo || upTo.getValue().getSExtValue() < 1 || !config) {
      whyNot = "dispatch variant " + std::to_string(i) +
               " must be a dictionary of 'symbol' (a string), 'up_to' (an "
               "integer >= 1) and 'config' (a kernel config)";
      return failure();
    }
    if ((dict.get("above_symbol") || dict.get("above")) &&
        (!aboveSymbol || aboveSymbol.getValue().empty() || !above)) {
      whyNot = "dispatch variant " + std::to_string(i) +
               " bounds a second size with 'above_symbol' (a size's name) "
               "and 'above' (an integer), both or neither";
      return failure();
    }
    if (config.getProblemFamily() != kernel.getConfig().getProblemFamily()) {
      whyNot = "dispatch variant " + std::to_string(i) +
               " has a config of "
               "family '" +
               config.getProblemFamily().str() + "', the kernel's is '" +
               kernel.getConfig().getProblemFamily().str() + "'";
      return failure();
    }
    entries.push_back(DispatchEntry{
        PlanBucket{symbol.str(), upTo.getValue().getSExtValue(),
                   aboveSymbol ? aboveSymbol.str() : std::string(),
                   above ? above.getValue().getSExtValue() : 0},
        config, predicted ? predicted.getValue().getSExtValue() : 0});
  }
  return entries;
}

//===----------------------------------------------------------------------===//
// Occupancy (cudaOccMaxActiveBlocksPerMultiprocessor)
//===----------------------------------------------------------------------===//

/// Registers of a warp are allocated in units of 256 (sm_70 and later:
/// cudaOccRegAllocationGranularity), and the register file is split over 4
/// SM sub-partitions, each holding whole warps
/// (cudaOccSubPartitionsPerMultiprocessor).
static constexpr int64_t kWarpRegGranularity = 256;
static constexpr int64_t kSubPartitions = 4;
/// Shared memory is allocated to blocks in units of 128 bytes (sm_80+).
static constexpr int64_t kSmemGranularity = 128;
/// The most registers ptxas ever assigns to one thread.
static constexpr int64_t kMaxRegsPerThread = 255;

StringRef KernelResources::getOccupancyLimiter() const {
  if (blocksPerSM == blocksPerSMByRegs)
    return "registers";
  if (blocksPerSM == blocksPerSMBySmem)
    return "shared memory";
  if (blocksPerSM == blocksPerSMByThreads)
    return "threads";
  return "blocks per SM";
}

void mlir::amk::computeOccupancy(KernelResources &r, const TargetSpec &target) {
  int64_t warpSize = std::max<int64_t>(target.warp_size, 1);
  r.warpsPerBlock = std::max<int64_t>(
      llvm::divideCeil(std::max<int64_t>(r.threadsPerBlock, 0), warpSize), 1);
  r.needsSmemOptIn = r.dynamicSmemBytes > target.smem_per_block_bytes;
  r.regsPerThreadReported = std::min(r.regsPerThread, kMaxRegsPerThread);
  r.regsPerWarp =
      llvm::alignTo(r.regsPerThread * warpSize, kWarpRegGranularity);
  r.regsAssumedPerBlock =
      r.regsPerWarp * llvm::alignTo(r.warpsPerBlock, kSubPartitions);

  r.blocksPerSMByThreads =
      target.max_threads_per_sm / (r.warpsPerBlock * warpSize);
  int64_t smemPerBlock =
      llvm::alignTo(r.dynamicSmemBytes + r.staticSmemBytes, kSmemGranularity) +
      target.smem_reserved_per_block_bytes;
  r.blocksPerSMBySmem = smemPerBlock > 0
                            ? target.smem_per_sm_bytes / smemPerBlock
                            : target.max_blocks_per_sm;
  // The hardware refuses a block whose registers, assumed spread over all 4
  // sub-partitions, exceed the per-block limit; otherwise each sub-partition
  // holds whole warps.
  if (r.regsPerWarp == 0 || r.regsPerThread > target.regs_per_thread ||
      r.regsPerWarp * r.warpsPerBlock > target.regs_per_block ||
      r.regsAssumedPerBlock > target.regs_per_block) {
    r.blocksPerSMByRegs = r.regsPerWarp == 0 ? target.max_blocks_per_sm : 0;
  } else {
    int64_t warpsPerSubPartition =
        (target.regs_per_sm / kSubPartitions) / r.regsPerWarp;
    r.blocksPerSMByRegs =
        warpsPerSubPartition * kSubPartitions / r.warpsPerBlock;
  }
  r.blocksPerSMByLimit = target.max_blocks_per_sm;
  r.blocksPerSM = std::min({r.blocksPerSMByThreads, r.blocksPerSMBySmem,
                            r.blocksPerSMByRegs, r.blocksPerSMByLimit});
}

bool mlir::amk::fitsOneWave(const KernelLaunch &launch,
                            const LaunchKernel &kernel,
                            const TargetSpec &target) {
  int64_t blocks = 1;
  for (const SizeExpr &extent : kernel.grid) {
    std::optional<int64_t> value =
        extent.evaluate([&](StringRef name) -> std::optional<int64_t> {
          const SizeSymbol *symbol = launch.findSymbol(name);
          if (!symbol || ShapedType::isDynamic(symbol->value))
            return std::nullopt;
          return symbol->value;
        });
    if (!value || *value < 1 || llvm::MulOverflow(blocks, *value, blocks))
      return false;
  }
  KernelResources r;
  r.block = kernel.block;
  r.threadsPerBlock = kernel.block[0] * kernel.block[1] * kernel.block[2];
  r.dynamicSmemBytes = kernel.dynamicSmemBytes;
  r.regsPerThread = kernel.estimatedRegs;
  computeOccupancy(r, target);
  return r.blocksPerSM > 0 && blocks <= r.blocksPerSM * target.sm_count;
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

namespace {
struct Registry {
  std::mutex mutex;
  SmallVector<std::unique_ptr<KernelFamily>> families;
};
} // namespace

static Registry &getRegistry() {
  static Registry registry;
  return registry;
}

llvm::Error mlir::amk::registerFamily(std::unique_ptr<KernelFamily> family) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const auto &f : registry.families)
    if (f->getName() == family->getName())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "family '" + family->getName() +
                                         "' is registered twice");
  registry.families.push_back(std::move(family));
  return llvm::Error::success();
}

const KernelFamily *mlir::amk::lookupFamily(StringRef name) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const auto &f : registry.families)
    if (f->getName() == name)
      return f.get();
  return nullptr;
}

SmallVector<const KernelFamily *> mlir::amk::getFamilies() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return llvm::to_vector(llvm::map_range(
      registry.families,
      [](const auto &f) -> const KernelFamily * { return f.get(); }));
}

std::string mlir::amk::getProblemIdentity(Operation *problem) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << problem->getName() << " " << problem->getAttrDictionary() << " : ";
  llvm::interleaveComma(problem->getOperandTypes(), os);
  // A problem with a body (amk.graph) is also what its body computes.
  if (problem->getNumRegions() > 0) {
    os << " ";
    problem->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  }
  return s;
}

std::string mlir::amk::listFamilyNames() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return llvm::join(llvm::map_range(registry.families,
                                    [](const auto &f) { return f->getName(); }),
                    ", ");
}

const KernelFamily *mlir::amk::lookupFamily(Operation *op, StringRef name) {
  if (const KernelFamily *family = lookupFamily(name))
    return family;
  std::string known = listFamilyNames();
  op->emitError() << "no family '" << name << "' is registered (known: "
                  << (known.empty() ? std::string("none") : known) << ")";
  return nullptr;
}

std::string mlir::amk::getTypeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

Type mlir::amk::parseFloatTypeName(MLIRContext *context, StringRef name) {
  if (name == "f16")
    return Float16Type::get(context);
  if (name == "bf16")
    return BFloat16Type::get(context);
  if (name == "f32")
    return Float32Type::get(context);
  if (name == "f64")
    return Float64Type::get(context);
  return {};
}
