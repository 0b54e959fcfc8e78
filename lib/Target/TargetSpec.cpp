//===- TargetSpec.cpp - A GPU's limits and rates --------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Target/TargetSpec.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::amk;

int64_t TargetSpec::getSmVersion() const {
  llvm::StringRef rest = arch;
  if (!rest.consume_front("sm_"))
    return -1;
  if (!rest.empty() && llvm::isAlpha(rest.back()))
    rest = rest.drop_back();
  int64_t version;
  if (rest.empty() || rest.getAsInteger(10, version))
    return -1;
  return version;
}

bool TargetSpec::hasArchSpecificFeatures() const {
  return getArchInfo() && getSmVersion() >= 90 &&
         llvm::StringRef(arch).ends_with("a");
}

/// "sm_70, sm_72, ...": the archs the validator accepts.
static std::string listAcceptedArchs() {
  std::string list;
  for (const ArchInfo &info : getKnownArchs())
    if (info.minPtxVersion <= info.ptxVersion)
      list += (list.empty() ? "" : ", ") + info.name.str();
  return list;
}

std::string TargetSpec::validate() const {
  if (name.empty())
    return "target name is empty";
  if (getSmVersion() < 0)
    return llvm::formatv("arch '{0}' is not of the form sm_<version>[a|f]",
                         arch);
  if (getSmVersion() < 70)
    return llvm::formatv("arch '{0}' is older than sm_70, which AMK does not "
                         "target",
                         arch);
  // Only archs of the table: what the synthesizer may use on each is known
  // there, and LLVM silently ignores a processor it does not know.
  const ArchInfo *info = getArchInfo();
  if (!info)
    return llvm::formatv("unknown arch '{0}' (known: {1})", arch,
                         listAcceptedArchs());
  if (info->minPtxVersion > info->ptxVersion)
    return llvm::formatv("arch '{0}' is not supported yet: LLVM needs PTX ISA "
                         "{1}.{2} for it, and AMK emits {3}.{4} (known: {5})",
                         arch, info->minPtxVersion / 10,
                         info->minPtxVersion % 10, info->ptxVersion / 10,
                         info->ptxVersion % 10, listAcceptedArchs());
  std::string error;
  // Every count and limit is positive; only reserved shared memory and the
  // peak rates of math paths a GPU lacks may be zero.
  forEachTargetField(
      *this,
      [&](llvm::StringRef key, int64_t value) {
        bool mayBeZero =
            key.ends_with("_gflops") || key == "smem_reserved_per_block_bytes";
        if (error.empty() && (value < 0 || (value == 0 && !mayBeZero)))
          error = llvm::formatv("{0} = {1} must be {2}", key, value,
                                mayBeZero ? "non-negative" : "positive");
      },
      [](llvm::StringRef, const std::string &) {});
  if (!error.empty())
    return error;
#define AMK_TARGET_INT(key, limit, doc)                                        \
  if (key > (limit))                                                           \
    return llvm::formatv("{0} = {1} exceeds {2}, more than any GPU has", #key, \
                         key, int64_t(limit));
#include "AMK/Target/TargetFields.def"
  auto order = [](llvm::StringRef lo, int64_t a, llvm::StringRef hi,
                  int64_t b) -> std::string {
    if (a <= b)
      return "";
    return llvm::formatv("{0} = {1} exceeds {2} = {3}", lo, a, hi, b);
  };
  for (std::string e :
       {order("smem_per_block_bytes", smem_per_block_bytes,
              "smem_per_block_optin_bytes", smem_per_block_optin_bytes),
        order("smem_per_block_optin_bytes", smem_per_block_optin_bytes,
              "smem_per_sm_bytes", smem_per_sm_bytes),
        order("max_threads_per_block", max_threads_per_block,
              "max_threads_per_sm", max_threads_per_sm),
        order("max_block_dim_x", max_block_dim_x, "max_threads_per_block",
              max_threads_per_block),
        order("regs_per_block", regs_per_block, "regs_per_sm", regs_per_sm),
        order("regs_per_thread", regs_per_thread, "regs_per_block",
              regs_per_block),
        order("warp_size", warp_size, "max_threads_per_block",
              max_threads_per_block)})
    if (!e.empty())
      return e;
  if (max_threads_per_block % warp_size != 0)
    return llvm::formatv("max_threads_per_block = {0} is not a multiple of "
                         "warp_size = {1}",
                         max_threads_per_block, warp_size);
  return "";
}

bool TargetSpec::operator==(const TargetSpec &other) const {
  bool equal = name == other.name;
#define AMK_TARGET_STR(key, doc) equal = equal && key == other.key;
#define AMK_TARGET_INT(key, limit, doc) equal = equal && key == other.key;
#include "AMK/Target/TargetFields.def"
  return equal;
}

llvm::hash_code mlir::amk::hash_value(const TargetSpec &spec) {
  llvm::hash_code hash = llvm::hash_value(spec.name);
  forEachTargetField(
      spec,
      [&](llvm::StringRef, int64_t value) {
        hash = llvm::hash_combine(hash, value);
      },
      [&](llvm::StringRef, const std::string &value) {
        hash = llvm::hash_combine(hash, value);
      });
  return hash;
}
