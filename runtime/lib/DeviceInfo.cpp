//===- DeviceInfo.cpp - Query a CUDA device for its target description ----===//
//
// Uses only the CUDA driver API (libcuda), so it builds without MLIR/LLVM.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/DeviceInfo.h"
#include "AMK/Runtime/Json.h"

#include <cuda.h>

#include <cmath>
#include <cstdio>

using namespace amk::runtime;

namespace {

/// Dense flops per clock per SM for one compute capability. fp32 counts an
/// FMA as 2 flops (2 * FP32 lanes); tensor-core rates use fp32 accumulate.
struct ArchRates {
  int64_t major, minor;
  int64_t fp32, tf32, fp16, bf16, fp8;
};

constexpr ArchRates kArchRates[] = {
    // sm_80 (A100): 64 FP32 lanes -> 128. 3rd-gen tensor cores: fp16/bf16
    // 1024, tf32 512, no fp8.
    {8, 0, 128, 512, 1024, 1024, 0},
    // sm_86 (GA10x): 128 FP32 lanes -> 256. fp16/bf16 with fp32 accumulate at
    // the GeForce rate 512 (half the fp16-accumulate rate), tf32 256, no fp8.
    {8, 6, 256, 256, 512, 512, 0},
    // sm_89 (Ada): 128 FP32 lanes -> 256. GeForce fp32-accumulate rates:
    // fp16/bf16 512, tf32 256, fp8 1024. Data-center Ada (L4, L40, L40S) runs
    // fp32 accumulate at the full rate, 2x these numbers; we report the
    // GeForce rate since the driver cannot tell the two apart.
    {8, 9, 256, 256, 512, 512, 1024},
    // sm_90 (H100/H200): 128 FP32 lanes -> 256. 4th-gen tensor cores:
    // fp16/bf16 4096, tf32 2048, fp8 8192.
    {9, 0, 256, 2048, 4096, 4096, 8192},
    // sm_100 (B200): 128 FP32 lanes -> 256. 5th-gen tensor cores: fp16/bf16
    // 8192, tf32 4096, fp8 16384.
    {10, 0, 256, 4096, 8192, 8192, 16384},
    // sm_120 (consumer Blackwell): 128 FP32 lanes -> 256. fp32-accumulate
    // rates: fp16/bf16 512, tf32 256, fp8 1024.
    {12, 0, 256, 256, 512, 512, 1024},
};

/// Turns a failed CUresult into "<what> failed: <NAME> (<description>)".
bool check(CUresult result, const std::string &what, std::string &error) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  const char *desc = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (cuGetErrorString(result, &desc) != CUDA_SUCCESS)
    desc = nullptr;
  error = what + " failed: ";
  if (name)
    error += name;
  else if (result == CUDA_ERROR_STUB_LIBRARY) // The stub cannot name itself.
    error += "CUDA_ERROR_STUB_LIBRARY (linked against the CUDA stub library, "
             "not a real driver)";
  else
    error += "CUresult " + std::to_string(static_cast<int>(result));
  if (desc)
    error += std::string(" (") + desc + ")";
  return false;
}

} // namespace

bool amk::runtime::queryDevice(int ordinal, DeviceInfo &info,
                               std::string &error) {
  info = DeviceInfo();
  if (!check(cuInit(0), "cuInit", error))
    return false;

  int count = 0;
  if (!check(cuDeviceGetCount(&count), "cuDeviceGetCount", error))
    return false;
  if (ordinal < 0 || ordinal >= count) {
    error = "device " + std::to_string(ordinal) + " does not exist (found " +
            std::to_string(count) + " CUDA device(s))";
    return false;
  }
  CUdevice dev;
  if (!check(cuDeviceGet(&dev, ordinal), "cuDeviceGet", error))
    return false;

  char name[256] = {};
  if (!check(cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName",
             error))
    return false;
  info.name = name;

  int driver = 0;
  if (!check(cuDriverGetVersion(&driver), "cuDriverGetVersion", error))
    return false;
  info.driver_version = driver;

  size_t totalMem = 0;
  if (!check(cuDeviceTotalMem(&totalMem, dev), "cuDeviceTotalMem", error))
    return false;
  info.total_global_mem_bytes = static_cast<int64_t>(totalMem);

  int64_t clockKHz = 0, memClockKHz = 0;
  struct {
    CUdevice_attribute attr;
    const char *name;
    int64_t *out;
  } attrs[] = {
#define AMK_ATTR(attr, out) {CU_DEVICE_ATTRIBUTE_##attr, #attr, &(out)}
      AMK_ATTR(COMPUTE_CAPABILITY_MAJOR, info.cc_major),
      AMK_ATTR(COMPUTE_CAPABILITY_MINOR, info.cc_minor),
      AMK_ATTR(MULTIPROCESSOR_COUNT, info.sm_count),
      AMK_ATTR(CLOCK_RATE, clockKHz),
      AMK_ATTR(WARP_SIZE, info.warp_size),
      AMK_ATTR(MAX_THREADS_PER_BLOCK, info.max_threads_per_block),
      AMK_ATTR(MAX_THREADS_PER_MULTIPROCESSOR, info.max_threads_per_sm),
      AMK_ATTR(MAX_BLOCKS_PER_MULTIPROCESSOR, info.max_blocks_per_sm),
      AMK_ATTR(MAX_BLOCK_DIM_X, info.max_block_dim_x),
      AMK_ATTR(MAX_BLOCK_DIM_Y, info.max_block_dim_y),
      AMK_ATTR(MAX_BLOCK_DIM_Z, info.max_block_dim_z),
      AMK_ATTR(MAX_GRID_DIM_X, info.max_grid_dim_x),
      AMK_ATTR(MAX_GRID_DIM_Y, info.max_grid_dim_y),
      AMK_ATTR(MAX_GRID_DIM_Z, info.max_grid_dim_z),
      AMK_ATTR(MAX_REGISTERS_PER_MULTIPROCESSOR, info.regs_per_sm),
      AMK_ATTR(MAX_REGISTERS_PER_BLOCK, info.regs_per_block),
      AMK_ATTR(MAX_SHARED_MEMORY_PER_BLOCK, info.smem_per_block_bytes),
      AMK_ATTR(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
               info.smem_per_block_optin_bytes),
      AMK_ATTR(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, info.smem_per_sm_bytes),
      AMK_ATTR(RESERVED_SHARED_MEMORY_PER_BLOCK,
               info.smem_reserved_per_block_bytes),
      AMK_ATTR(L2_CACHE_SIZE, info.l2_bytes),
      AMK_ATTR(MEMORY_CLOCK_RATE, memClockKHz),
      AMK_ATTR(GLOBAL_MEMORY_BUS_WIDTH, info.memory_bus_width_bits),
#undef AMK_ATTR
  };
  for (const auto &a : attrs) {
    int value = 0;
    if (!check(cuDeviceGetAttribute(&value, a.attr, dev),
               std::string("cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_") +
                   a.name + ")",
               error))
      return false;
    *a.out = value;
  }

  // Architectural limit for every sm_50+ target; there is no attribute.
  info.regs_per_thread = 255;
  info.clock_mhz = clockKHz / 1000;
  info.memory_clock_mhz = memClockKHz / 1000;
  // kHz * 2 (DDR) * bytes per transfer -> bytes/ms; / 1e6 -> GB/s.
  info.hbm_gbps = std::llround(static_cast<double>(memClockKHz) * 2 *
                               info.memory_bus_width_bits / 8 / 1e6);

  // sm_90a / sm_100a carry arch-specific features (wgmma, tcgen05, ...).
  info.arch = "sm_" + std::to_string(info.cc_major) +
              std::to_string(info.cc_minor) +
              (info.cc_major == 9 || info.cc_major == 10 ? "a" : "");

  const ArchRates *rates = nullptr;
  for (const ArchRates &r : kArchRates)
    if (r.major == info.cc_major && r.minor == info.cc_minor)
      rates = &r;
  // Unknown target: tensor paths 0; fp32 assumes 128 lanes on sm_8x+, else 64.
  ArchRates unknown = {
      info.cc_major, info.cc_minor, info.cc_major >= 8 ? 256 : 128, 0, 0, 0, 0};
  if (!rates) {
    rates = &unknown;
    info.warnings.push_back("no peak-rate table for " + info.arch +
                            "; tensor-core peaks reported as 0 and the fp32 "
                            "peak is an estimate");
  }
  // GFLOP/s = SMs * GHz * flops/clk/SM, rounded to the nearest integer.
  auto peak = [&](int64_t flopsPerClock) {
    return (info.sm_count * info.clock_mhz * flopsPerClock + 500) / 1000;
  };
  info.fp32_gflops = peak(rates->fp32);
  info.tf32_gflops = peak(rates->tf32);
  info.fp16_gflops = peak(rates->fp16);
  info.bf16_gflops = peak(rates->bf16);
  info.fp8_gflops = peak(rates->fp8);
  return true;
}

std::string amk::runtime::toJSON(const DeviceInfo &info) {
  JsonValue top = JsonValue::object();
  top.set("name", JsonValue::string(info.name));
#define AMK_TARGET_INT(key, limit, doc)                                        \
  top.set(#key, JsonValue::integer(info.key));
#define AMK_TARGET_STR(key, doc) top.set(#key, JsonValue::string(info.key));
#include "AMK/Target/TargetFields.def"
  JsonValue sub = JsonValue::object();
  sub.set("device_name", JsonValue::string(info.name));
  sub.set("compute_capability",
          JsonValue::string(std::to_string(info.cc_major) + "." +
                            std::to_string(info.cc_minor)));
  sub.set("driver_version", JsonValue::integer(info.driver_version));
  sub.set("memory_clock_mhz", JsonValue::integer(info.memory_clock_mhz));
  sub.set("memory_bus_width_bits",
          JsonValue::integer(info.memory_bus_width_bits));
  sub.set("total_global_mem_bytes",
          JsonValue::integer(info.total_global_mem_bytes));
  sub.set("source", JsonValue::string("amk-device-info (CUDA driver API)"));
  top.set("info", std::move(sub));
  return toJsonString(top) + "\n";
}
