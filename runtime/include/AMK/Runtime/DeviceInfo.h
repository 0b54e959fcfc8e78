//===- DeviceInfo.h - Query a CUDA device for its target description ------===//
//
// The runtime side of a target description: ask the CUDA driver about one
// device and write the answer as the JSON that the `#amk.target` loader reads.
// This header and its implementation need only the CUDA toolkit (no MLIR, no
// LLVM), so they build on a GPU machine that has nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_DEVICEINFO_H
#define AMK_RUNTIME_DEVICEINFO_H

#include <cstdint>
#include <string>
#include <vector>

namespace amk::runtime {

/// Everything `amk-device-info` reports about one CUDA device. The target
/// fields are generated from TargetFields.def, so their names are exactly the
/// JSON keys.
struct DeviceInfo {
  /// Device name as the driver reports it, e.g. "NVIDIA H200".
  std::string name;

#define AMK_TARGET_INT(key, limit, doc) int64_t key = 0;
#define AMK_TARGET_STR(key, doc) std::string key;
#include "AMK/Target/TargetFields.def"

  /// Provenance, written under "info" (not part of the target description).
  int64_t cc_major = 0;
  int64_t cc_minor = 0;
  int64_t driver_version = 0; ///< cuDriverGetVersion, e.g. 13000.
  int64_t memory_clock_mhz = 0;
  int64_t memory_bus_width_bits = 0;
  int64_t total_global_mem_bytes = 0;

  /// Non-fatal problems found while filling the fields (e.g. an unknown
  /// architecture, whose tensor-core peaks are then reported as 0).
  std::vector<std::string> warnings;
};

/// Initializes the CUDA driver and fills `info` for device `ordinal`.
/// Returns true on success. On failure returns false and sets `error` to a
/// message naming the failing call and its CUresult (e.g. "cuInit failed:
/// CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"). Never aborts.
bool queryDevice(int ordinal, DeviceInfo &info, std::string &error);

/// Returns `info` as a JSON object: "name", then every field of
/// TargetFields.def in order, then an "info" object with provenance.
std::string toJSON(const DeviceInfo &info);

} // namespace amk::runtime

#endif // AMK_RUNTIME_DEVICEINFO_H
