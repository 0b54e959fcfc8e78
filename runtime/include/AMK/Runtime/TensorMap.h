//===- TensorMap.h - TMA tensor maps of a launch ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A kernel that loads with TMA takes each tensor map as a pointer to its 128
// bytes in device memory (a pre-outlined MLIR kernel cannot take the map by
// value). The launcher encodes the maps from the bound buffers at the
// launch's sizes and keeps each distinct map in device memory that is never
// rewritten, so launches still in flight (or captured in a CUDA graph) keep
// reading what they were given.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_TENSORMAP_H
#define AMK_RUNTIME_TENSORMAP_H

#include "AMK/Runtime/Manifest.h"
#include "AMK/Runtime/Status.h"

#include <cuda.h>

#include <map>
#include <string>

namespace amk::runtime {

/// What cuTensorMapEncodeTiled takes for `map` of `buffer`, innermost
/// first: extents, the byte pitches of dimensions 1.., the box.
struct TensorMapGeometry {
  uint32_t rank = 0;
  uint64_t dims[5] = {}, strides[4] = {};
  uint32_t box[5] = {};
};

/// The geometry of `map` of `buffer` (bound at `address`) at `sizes`; fails
/// with the reason when TMA cannot describe it: an address or row pitch
/// that is not a multiple of 16 bytes, an extent outside [1, 2^32], a pitch
/// from 2^40, a box per dimension missing. Calls no CUDA function.
Status getTensorMapGeometry(const TensorMapSpec &map, const BufferSpec &buffer,
                            const Sizes &sizes, CUdeviceptr address,
                            TensorMapGeometry &out);

/// Encodes `map` of `buffer` (bound at `address`) at `sizes`: its geometry,
/// the map's swizzle, zero fill outside. Fails with the reason when TMA
/// cannot describe it (getTensorMapGeometry) or the driver refuses it.
Status encodeTensorMap(const TensorMapSpec &map, const BufferSpec &buffer,
                       const Sizes &sizes, CUdeviceptr address,
                       CUtensorMap &out);

/// Device copies of encoded tensor maps, one per distinct map, written once
/// and freed with the store (its context must still be current then, or be
/// gone).
class TensorMapStore {
public:
  TensorMapStore() = default;
  ~TensorMapStore();
  TensorMapStore(const TensorMapStore &) = delete;
  TensorMapStore &operator=(const TensorMapStore &) = delete;
  TensorMapStore(TensorMapStore &&other) noexcept;
  TensorMapStore &operator=(TensorMapStore &&other) noexcept;

  /// Before a launch that takes `count` maps: past the store's bound, waits
  /// for the context and frees every copy.
  Status makeRoom(size_t count);
  /// The device copy of `map` (made now if new).
  Status get(const CUtensorMap &map, CUdeviceptr &out);

private:
  static constexpr size_t kMaxCopies = 4096;
  void release();
  /// Device copies by the map's bytes.
  std::map<std::string, CUdeviceptr> copies;
};

} // namespace amk::runtime

#endif // AMK_RUNTIME_TENSORMAP_H
