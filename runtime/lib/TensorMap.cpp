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
  case ScalarType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
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
  TensorMapGeometry g;
  if (Status s = getTensorMapGeometry(map, buffer, sizes, address, g); !s.ok())
    return s;
  cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  std::memset(&out, 0, sizeof(out));
  AMK_CU(cuTensorMapEncodeTiled(
             &out, dataType(buffer.elem), g.rank,
             reinterpret_cast<void *>(address), g.dims, g.strides, g.box,
             elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
             swizzleOf(map.swizzleBytes), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
         "cuTensorMapEncodeTiled(tensor map '" + map.name + "' of '" +
             buffer.name + "')");
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
