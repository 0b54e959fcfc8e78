//===- Archs.cpp - What each GPU architecture supports --------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The one table of archs AMK knows and the instructions each has. The target
// validator accepts only these archs, the families' lowerability checks ask
// it whether an instruction exists, and the lowering takes the PTX ISA
// version from it.
//
// Checked on 2026-12-01 against LLVM 22's NVPTX backend (`llc -mcpu=help`,
// the PTX version it requires per arch, and which intrinsics it selects) and
// the ptxas of CUDA 13.0 (V13.0.88: which archs it takes, and which
// instructions it assembles for each). Both agree on every feature below.
//
//===----------------------------------------------------------------------===//

#include "AMK/Target/TargetSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::amk;

namespace {
constexpr uint32_t bit(ArchFeature f) { return static_cast<uint32_t>(f); }

/// Feature sets by generation.
constexpr uint32_t kTuring =
    bit(ArchFeature::LdMatrix) | bit(ArchFeature::MmaF16K8);
constexpr uint32_t kAmpere =
    kTuring | bit(ArchFeature::CpAsync) | bit(ArchFeature::MmaF16) |
    bit(ArchFeature::MmaBF16) | bit(ArchFeature::MmaTF32) |
    bit(ArchFeature::MBarrier);
constexpr uint32_t kAda = kAmpere | bit(ArchFeature::MmaFP8);
constexpr uint32_t kHopper =
    kAda | bit(ArchFeature::MBarrierTryWait) | bit(ArchFeature::Tma) |
    bit(ArchFeature::Clusters) | bit(ArchFeature::GridDependency);
constexpr uint32_t kHopperA =
    kHopper | bit(ArchFeature::Wgmma) | bit(ArchFeature::SetMaxNReg);
/// The `a` and `f` variants of sm_100 and later (not sm_101: LLVM 22 does
/// not select setmaxnreg there).
constexpr uint32_t kBlackwellAF = kHopper | bit(ArchFeature::SetMaxNReg);

// The PTX ISA `--amk-lower` emits for each arch is its row's (the lowering
// reads ArchInfo::getPtxFeatures): 8.0 below sm_100, 8.6 up to sm_119 and
// 8.7 from sm_120. An arch that LLVM 22 needs a newer ISA for (sm_88, the
// `f` variants, sm_103, sm_110, sm_121) is listed with what it needs and
// rejected until its row emits that.
constexpr ArchInfo kArchs[] = {
    // name, sm, LLVM's minimum PTX, PTX emitted, ptxas 13, features
    {"sm_70", 70, 60, 80, false, 0},
    {"sm_72", 72, 61, 80, false, 0},
    {"sm_75", 75, 63, 80, true, kTuring},
    {"sm_80", 80, 70, 80, true, kAmpere},
    {"sm_86", 86, 71, 80, true, kAmpere},
    {"sm_87", 87, 74, 80, true, kAmpere},
    {"sm_88", 88, 90, 80, true, kAmpere},
    {"sm_89", 89, 78, 80, true, kAda},
    {"sm_90", 90, 78, 80, true, kHopper},
    {"sm_90a", 90, 80, 80, true, kHopperA},
    {"sm_100", 100, 86, 86, true, kHopper},
    {"sm_100a", 100, 86, 86, true, kBlackwellAF},
    {"sm_100f", 100, 88, 86, true, kBlackwellAF},
    {"sm_101", 101, 86, 86, false, kHopper},
    {"sm_101a", 101, 86, 86, false, kHopper},
    {"sm_101f", 101, 88, 86, false, kHopper},
    {"sm_103", 103, 88, 86, true, kHopper},
    {"sm_103a", 103, 88, 86, true, kBlackwellAF},
    {"sm_103f", 103, 88, 86, true, kBlackwellAF},
    {"sm_110", 110, 90, 86, true, kHopper},
    {"sm_110a", 110, 90, 86, true, kBlackwellAF},
    {"sm_110f", 110, 90, 86, true, kBlackwellAF},
    {"sm_120", 120, 87, 87, true, kHopper},
    {"sm_120a", 120, 87, 87, true, kBlackwellAF},
    {"sm_120f", 120, 88, 87, true, kBlackwellAF},
    {"sm_121", 121, 88, 87, true, kHopper},
    {"sm_121a", 121, 88, 87, true, kBlackwellAF},
    {"sm_121f", 121, 88, 87, true, kBlackwellAF},
};

struct FeatureName {
  ArchFeature feature;
  llvm::StringLiteral name;
};
constexpr FeatureName kFeatureNames[] = {
    {ArchFeature::LdMatrix, "ldmatrix"},
    {ArchFeature::MmaF16K8, "mma.sync m16n8k8 f16"},
    {ArchFeature::CpAsync, "cp.async"},
    {ArchFeature::MmaF16, "mma.sync m16n8k16 f16"},
    {ArchFeature::MmaBF16, "mma.sync m16n8k16 bf16"},
    {ArchFeature::MmaTF32, "mma.sync m16n8k8 tf32"},
    {ArchFeature::MBarrier, "mbarrier"},
    {ArchFeature::MmaFP8, "mma.sync fp8"},
    {ArchFeature::MBarrierTryWait, "mbarrier.try_wait"},
    {ArchFeature::Tma, "TMA (cp.async.bulk.tensor)"},
    {ArchFeature::Wgmma, "wgmma"},
    {ArchFeature::SetMaxNReg, "setmaxnreg"},
    {ArchFeature::GridDependency, "griddepcontrol"},
};
} // namespace

llvm::ArrayRef<ArchInfo> mlir::amk::getKnownArchs() { return kArchs; }

const ArchInfo *mlir::amk::lookupArch(llvm::StringRef arch) {
  for (const ArchInfo &info : kArchs)
    if (info.name == arch)
      return &info;
  return nullptr;
}

llvm::StringRef mlir::amk::getArchFeatureName(ArchFeature feature) {
  for (const FeatureName &f : kFeatureNames)
    if (f.feature == feature)
      return f.name;
  return "an unknown feature";
}

llvm::StringRef mlir::amk::getMinimumArch(ArchFeature feature) {
  for (const ArchInfo &info : kArchs)
    if (info.has(feature))
      return info.name;
  return "no arch";
}

std::string ArchInfo::getPtxFeatures() const {
  return llvm::formatv("+ptx{0}", ptxVersion).str();
}
