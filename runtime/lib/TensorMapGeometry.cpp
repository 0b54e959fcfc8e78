//===- TensorMapGeometry.cpp - What a TMA tensor map describes ------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The checks and arithmetic of a tensor map, apart from the driver call
// (TensorMap.cpp), so that programs without libcuda (the runtime tests) can
// use them.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/TensorMap.h"

namespace amk::runtime {

Status getTensorMapGeometry(const TensorMapSpec &map, const BufferSpec &buffer,
                            const Sizes &sizes, CUdeviceptr address,
                            TensorMapGeometry &out) {
  std::string what = "tensor map '" + map.name + "' of '" + buffer.name + "'";
  std::vector<int64_t> extents = buffer.extents(sizes);
  size_t rank = extents.size();
  if (rank == 0 || rank > 5 || map.box.size() != rank)
    return Status::error(what + ": needs a box per dimension of a buffer of "
                                "rank 1 to 5");
  if (address % 16 != 0)
    return Status::error(what +
                         ": TMA needs a 16-byte aligned buffer, got "
                         "address " +
                         std::to_string(address));
  out = TensorMapGeometry();
  out.rank = static_cast<uint32_t>(rank);
  int64_t pitch = byteSize(buffer.elem);
  for (size_t i = 0; i < rank; ++i) {
    int64_t extent = extents[rank - 1 - i];
    if (extent < 1 || extent > (int64_t(1) << 32))
      return Status::error(what + ": extent " + std::to_string(extent) +
                           " is outside TMA's [1, 2^32]");
    out.dims[i] = uint64_t(extent);
    out.box[i] = uint32_t(map.box[i]);
    if (i > 0) {
      // The pitch of dimension i: a multiple of 16 bytes below 2^40.
      if (pitch % 16 != 0 || pitch >= (int64_t(1) << 40))
        return Status::error(what + ": its rows are " + std::to_string(pitch) +
                             " bytes apart; TMA needs a multiple of 16 "
                             "below 2^40");
      out.strides[i - 1] = uint64_t(pitch);
    }
    if (__builtin_mul_overflow(pitch, extent, &pitch))
      return Status::error(what + ": the buffer's size overflows");
  }
  return Status::success();
}

} // namespace amk::runtime
