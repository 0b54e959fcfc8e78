//===- TargetSpec.h - A GPU's limits and rates ------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// TargetSpec is the plain data behind `#amk.target`: presets, the JSON form
// written by `amk-device-info`, and the limits the planner and the harness
// read. It depends on LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TARGET_TARGETSPEC_H
#define AMK_TARGET_TARGETSPEC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <tuple>

namespace mlir::amk {

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

/// An instruction (or group) a kernel may use that not every arch has. The
/// minimum archs are what LLVM 22's NVPTX backend selects and the ptxas of
/// CUDA 13.0 assembles (both checked, 2026-12-01; docs/ARCHITECTURE.md).
enum class ArchFeature : uint32_t {
  /// ldmatrix.sync.aligned.m8n8 (sm_75).
  LdMatrix = 1u << 0,
  /// mma.sync m16n8k8 with f16 inputs (sm_75).
  MmaF16K8 = 1u << 1,
  /// cp.async 4/8/16-byte copies with commit and wait groups (sm_80).
  CpAsync = 1u << 2,
  /// mma.sync m16n8k16 with f16 inputs (sm_80).
  MmaF16 = 1u << 3,
  /// mma.sync m16n8k16 with bf16 inputs (sm_80).
  MmaBF16 = 1u << 4,
  /// mma.sync m16n8k8 with tf32 inputs, and cvt.rna.tf32.f32 (sm_80).
  MmaTF32 = 1u << 5,
  /// mbarrier init, arrive and test_wait (sm_80).
  MBarrier = 1u << 6,
  /// mma.sync m16n8k32 with e4m3/e5m2 inputs (sm_89, sm_90 and later; not
  /// sm_88).
  MmaFP8 = 1u << 7,
  /// mbarrier.try_wait and expect_tx (sm_90).
  MBarrierTryWait = 1u << 8,
  /// cp.async.bulk.tensor, the tensor memory accelerator (sm_90).
  Tma = 1u << 9,
  /// wgmma.mma_async (sm_90a only: Blackwell has tcgen05 instead).
  Wgmma = 1u << 10,
  /// setmaxnreg (sm_90a and the `a`/`f` variants of sm_100 and later).
  SetMaxNReg = 1u << 11,
  /// Thread-block clusters: `.reqnctapercluster`, barrier.cluster (sm_90).
  Clusters = 1u << 12,
  /// griddepcontrol: a kernel launched before the previous one on its
  /// stream finishes, which waits for it in the kernel (sm_90).
  GridDependency = 1u << 13,
};

/// "cp.async", "wgmma", ...: for diagnostics.
llvm::StringRef getArchFeatureName(ArchFeature feature);

/// What an arch supports: one row of the table in Archs.cpp, which the
/// target validator, the families' lowerability checks and the lowering
/// read.
struct ArchInfo {
  /// The PTX target name, e.g. "sm_90a".
  llvm::StringLiteral name;
  /// 90 for sm_90a.
  int64_t smVersion;
  /// The lowest PTX ISA version LLVM 22 emits for it, times 10 (78 = 7.8).
  int64_t minPtxVersion;
  /// The PTX ISA version `--amk-lower` emits for it, times 10. An arch whose
  /// minimum is higher is rejected by the validator.
  int64_t ptxVersion;
  /// Whether the ptxas of CUDA 13.0 assembles for it (it dropped sm_70,
  /// sm_72 and sm_101, which LLVM still knows; older toolkits take them).
  bool ptxasCuda13;
  /// ArchFeature bits.
  uint32_t features;

  bool has(ArchFeature feature) const {
    return (features & static_cast<uint32_t>(feature)) != 0;
  }
  /// The "+ptx80" feature string of ptxVersion, for the NVVM target.
  std::string getPtxFeatures() const;
};

/// Every arch AMK knows (sm_70 and later), in ascending order.
llvm::ArrayRef<ArchInfo> getKnownArchs();

/// The row of `arch`, or nullptr when AMK does not know it.
const ArchInfo *lookupArch(llvm::StringRef arch);

/// The oldest known arch that has `feature` ("sm_80"), for diagnostics.
llvm::StringRef getMinimumArch(ArchFeature feature);

/// A GPU description. Field names and units: TargetFields.def.
struct TargetSpec {
  /// A short name: the preset name or the device name.
  std::string name;
#define AMK_TARGET_STR(key, doc) std::string key;
#define AMK_TARGET_INT(key, limit, doc) int64_t key = 0;
#include "AMK/Target/TargetFields.def"

  /// The SM version as a number (90 for `sm_90a`), or -1 if `arch` is not of
  /// the form `sm_<digits>[a-z]`.
  int64_t getSmVersion() const;

  /// Whether the arch carries the architecture-specific suffix (`sm_90a`),
  /// which wgmma and setmaxnreg need.
  bool hasArchSpecificFeatures() const;

  /// The arch's row of the table, or nullptr for an arch AMK does not know
  /// (validate() rejects those).
  const ArchInfo *getArchInfo() const { return lookupArch(arch); }

  /// Whether the arch has `feature` (false for an unknown arch).
  bool hasFeature(ArchFeature feature) const {
    const ArchInfo *info = getArchInfo();
    return info && info->has(feature);
  }

  /// Returns an error message naming the first inconsistent field (an arch
  /// not in the table of getKnownArchs() or one AMK cannot emit PTX for yet,
  /// a zero count, opt-in shared memory below the default, ...), or "" if
  /// the description is self-consistent.
  std::string validate() const;

  bool operator==(const TargetSpec &other) const;
  bool operator!=(const TargetSpec &other) const { return !(*this == other); }
};

llvm::hash_code hash_value(const TargetSpec &spec);

/// Visit every field as (key, value) without knowing the list: `intFn(key,
/// int64_t &)` and `strFn(key, std::string &)`. `name` is not visited.
template <typename Spec, typename IntFn, typename StrFn>
void forEachTargetField(Spec &spec, IntFn intFn, StrFn strFn) {
#define AMK_TARGET_STR(key, doc) strFn(llvm::StringRef(#key), spec.key);
#define AMK_TARGET_INT(key, limit, doc) intFn(llvm::StringRef(#key), spec.key);
#include "AMK/Target/TargetFields.def"
}

//===----------------------------------------------------------------------===//
// Presets and JSON
//===----------------------------------------------------------------------===//

/// All built-in presets, in a fixed order.
llvm::ArrayRef<TargetSpec> getTargetPresets();

/// The preset of that name, or nullptr.
const TargetSpec *lookupTargetPreset(llvm::StringRef name);

/// "a100, rtx4060ti, ...": for error messages.
std::string listTargetPresetNames();

/// Parses a target from JSON text: an object with "name", every field of
/// TargetFields.def, and optionally "base" (a preset whose values fill the
/// fields not given) and "info" (free-form, ignored). Unknown keys, missing
/// fields and wrong types are errors that name the key.
llvm::Expected<TargetSpec> parseTargetJSON(llvm::StringRef text);

/// Resolves a `--amk-target` value: a preset name, or a path to a JSON file.
llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef presetOrPath);

/// The JSON form of a target (every field; loads back with parseTargetJSON).
std::string targetToJSON(const TargetSpec &spec);

} // namespace mlir::amk

#endif // AMK_TARGET_TARGETSPEC_H
