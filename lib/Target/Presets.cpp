//===- Presets.cpp - Built-in GPU descriptions ----------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Limits are what cudaGetDeviceProperties reports for each part (the H200's
// were read off the lent GPU by amk-device-info: test/Target/Inputs). Peak
// rates are the vendors' datasheet figures for dense math with fp32
// accumulation, in GFLOP/s; bandwidths are datasheet GB/s.
//
//===----------------------------------------------------------------------===//

#include "AMK/Target/TargetSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::amk;

namespace {
/// The limits every NVIDIA GPU since sm_70 shares.
TargetSpec commonLimits() {
  TargetSpec t;
  t.warp_size = 32;
  t.max_threads_per_block = 1024;
  t.max_block_dim_x = 1024;
  t.max_block_dim_y = 1024;
  t.max_block_dim_z = 64;
  t.max_grid_dim_x = 2147483647;
  t.max_grid_dim_y = 65535;
  t.max_grid_dim_z = 65535;
  t.regs_per_sm = 65536;
  t.regs_per_block = 65536;
  t.regs_per_thread = 255;
  t.smem_per_block_bytes = 48 * 1024;
  t.smem_reserved_per_block_bytes = 1024;
  return t;
}

struct Rates {
  int64_t fp32, tf32, fp16, bf16, fp8;
};

TargetSpec make(const char *name, const char *arch, int64_t sms,
                int64_t clockMHz, int64_t threadsPerSM, int64_t blocksPerSM,
                int64_t smemOptinKiB, int64_t smemPerSMKiB, int64_t l2Bytes,
                int64_t hbmGBps, Rates rates) {
  TargetSpec t = commonLimits();
  t.name = name;
  t.arch = arch;
  t.sm_count = sms;
  t.clock_mhz = clockMHz;
  t.max_threads_per_sm = threadsPerSM;
  t.max_blocks_per_sm = blocksPerSM;
  t.smem_per_block_optin_bytes = smemOptinKiB * 1024;
  t.smem_per_sm_bytes = smemPerSMKiB * 1024;
  t.l2_bytes = l2Bytes;
  t.hbm_gbps = hbmGBps;
  t.fp32_gflops = rates.fp32;
  t.tf32_gflops = rates.tf32;
  t.fp16_gflops = rates.fp16;
  t.bf16_gflops = rates.bf16;
  t.fp8_gflops = rates.fp8;
  return t;
}

constexpr int64_t MiB = 1024 * 1024;

std::vector<TargetSpec> buildPresets() {
  return {
      // A100 SXM4 80 GB: 164 KiB shared memory per SM, 163 KiB per block.
      make("a100", "sm_80", 108, 1410, 2048, 32, 163, 164, 40 * MiB, 2039,
           {19500, 156000, 312000, 312000, 0}),
      // GeForce Ada runs fp32-accumulate tensor math at half rate.
      make("rtx4060ti", "sm_89", 34, 2535, 1536, 24, 99, 100, 32 * MiB, 288,
           {22060, 22060, 44100, 44100, 88200}),
      // Data-center Ada: full-rate fp32 accumulation.
      make("l4", "sm_89", 58, 2040, 1536, 24, 99, 100, 48 * MiB, 300,
           {30300, 60000, 121000, 121000, 242000}),
      make("h100", "sm_90a", 132, 1980, 2048, 32, 227, 228, 50 * MiB, 3350,
           {66900, 494700, 989400, 989400, 1978900}),
      // H200 SXM: the H100's chip with 141 GB of HBM3e and a 60 MiB L2.
      make("h200", "sm_90a", 132, 1980, 2048, 32, 227, 228, 60 * MiB, 4800,
           {66900, 494700, 989400, 989400, 1978900}),
      make("b200", "sm_100a", 148, 1965, 2048, 32, 227, 228, 126 * MiB, 8000,
           {80000, 1125000, 2250000, 2250000, 4500000}),
      // GeForce Blackwell (sm_120): Ada-like SM limits, GDDR7.
      make("rtx5060ti", "sm_120", 36, 2572, 1536, 32, 99, 100, 32 * MiB, 448,
           {23700, 23700, 47400, 47400, 94800}),
  };
}
} // namespace

llvm::ArrayRef<TargetSpec> mlir::amk::getTargetPresets() {
  static const std::vector<TargetSpec> presets = buildPresets();
  return presets;
}

const TargetSpec *mlir::amk::lookupTargetPreset(llvm::StringRef name) {
  for (const TargetSpec &preset : getTargetPresets())
    if (preset.name == name)
      return &preset;
  return nullptr;
}

std::string mlir::amk::listTargetPresetNames() {
  return llvm::join(llvm::map_range(getTargetPresets(),
                                    [](const TargetSpec &t) {
                                      return llvm::StringRef(t.name);
                                    }),
                    ", ");
}
