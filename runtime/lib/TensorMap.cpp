//===- TensorMap.cpp - TMA tensor maps of a launch ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/TensorMap.h"

#include "DriverUtil.h"

#include <cstring>

namespace amk::runtime {

static CUtensorMapDataType dataType(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case ScalarType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case ScalarType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case ScalarType::F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

static CUtensorMapSwizzle swizzleOf(int64_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

Status encodeTensorMap(const TensorMapSpec &map, const BufferSpec &buffer,
                       const Sizes &sizes, CUdeviceptr address,
                       CUtensorMap &out) {
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
  int64_t elem = byteSize(buffer.elem);
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  int64_t pitch = elem;
  for (size_t i = 0; i < rank; ++i) {
    int64_t extent = extents[rank - 1 - i];
    if (extent < 1 || extent > (int64_t(1) << 32))
      return Status::error(what + ": extent " + std::to_string(extent) +
                           " is outside TMA's [1, 2^32]");
    dims[i] = cuuint64_t(extent);
    box[i] = cuuint32_t(map.box[i]);
    elementStrides[i] = 1;
    if (i > 0) {
      // The pitch of dimension i: a multiple of 16 bytes below 2^40.
      if (pitch % 16 != 0 || pitch >= (int64_t(1) << 40))
        return Status::error(what + ": its rows are " + std::to_string(pitch) +
                             " bytes apart; TMA needs a multiple of 16 "
                             "below 2^40");
      strides[i - 1] = cuuint64_t(pitch);
    }
    if (__builtin_mul_overflow(pitch, extent, &pitch))
      return Status::error(what + ": the buffer's size overflows");
  }
  std::memset(&out, 0, sizeof(out));
  AMK_CU(cuTensorMapEncodeTiled(
             &out, dataType(buffer.elem), cuuint32_t(rank),
             reinterpret_cast<void *>(address), dims, strides, box,
             elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
             swizzleOf(map.swizzleBytes), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
         "cuTensorMapEncodeTiled(" + what + ")");
  return Status::success();
}

TensorMapStore::~TensorMapStore() { release(); }

TensorMapStore::TensorMapStore(TensorMapStore &&other) noexcept {
  *this = std::move(other);
}

TensorMapStore &TensorMapStore::operator=(TensorMapStore &&other) noexcept {
  if (this != &other) {
    release();
    copies = std::move(other.copies);
    other.copies.clear();
  }
  return *this;
}

void TensorMapStore::release() {
  // Freeing fails harmlessly when the context is already gone.
  for (auto &entry : copies)
    (void)cuMemFree(entry.second);
  copies.clear();
}

Status TensorMapStore::makeRoom(size_t count) {
  // A long-lived launcher bound to ever new buffers would grow the store
  // without end: past a bound, wait for every launch and start over (before
  // a launch takes any copy, so that none it takes is freed).
  if (copies.size() + count <= kMaxCopies)
    return Status::success();
  AMK_CU(cuCtxSynchronize(), "cuCtxSynchronize (before reusing tensor maps)");
  release();
  return Status::success();
}

Status TensorMapStore::get(const CUtensorMap &map, CUdeviceptr &out) {
  std::string key(reinterpret_cast<const char *>(&map), sizeof(map));
  if (auto it = copies.find(key); it != copies.end()) {
    out = it->second;
    return Status::success();
  }
  // cuMemAlloc aligns to at least 256 bytes (a map needs 64). The copy is
  // synchronous, and this memory is new: no launch can be reading it.
  CUdeviceptr copy = 0;
  AMK_CU(cuMemAlloc(&copy, sizeof(map)), "cuMemAlloc(tensor map)");
  if (CUresult r = cuMemcpyHtoD(copy, &map, sizeof(map)); r != CUDA_SUCCESS) {
    (void)cuMemFree(copy);
    return cudaDriverError(r, "cuMemcpyHtoD(tensor map)");
  }
  copies.emplace(std::move(key), copy);
  out = copy;
  return Status::success();
}

} // namespace amk::runtime
