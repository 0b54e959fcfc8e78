//===- Manifest.cpp - The family-neutral manifest model -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Manifest.h"

namespace amk::runtime {

std::vector<int64_t> BufferSpec::extents(const Sizes &sizes) const {
  std::vector<int64_t> result;
  for (const ShapeDim &dim : shape)
    result.push_back(dim.symbol.empty() ? dim.extent : sizes.get(dim.symbol));
  return result;
}

std::vector<int64_t>
BufferSpec::contiguousStrides(const std::vector<int64_t> &extents) {
  std::vector<int64_t> strides(extents.size(), 1);
  for (size_t i = extents.size(); i-- > 1;)
    strides[i - 1] = strides[i] * extents[i];
  return strides;
}

Status BufferSpec::bytes(const Sizes &sizes, int64_t &out) const {
  out = byteSize(elem);
  for (int64_t extent : extents(sizes)) {
    if (extent < 1)
      return Status::error("buffer '" + name + "' has an extent of " +
                           std::to_string(extent) + " at " + sizes.toString());
    if (__builtin_mul_overflow(out, extent, &out))
      return Status::error("buffer '" + name + "' at " + sizes.toString() +
                           " has more than 2^63 bytes");
  }
  return Status::success();
}

std::string StepSpec::describe() const {
  if (!id.empty())
    return "'" + id + "'";
  return kind == Kind::Kernel ? "kernel '" + kernel + "'"
                              : "zero '" + buffer + "'";
}

bool Manifest::isDynamic() const {
  for (const Sizes::Entry &entry : sizes.entries())
    if (entry.second == kDynamicSize)
      return true;
  return false;
}

int Manifest::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < bufferCount(); ++i)
    if (buffer(i).name == name)
      return static_cast<int>(i);
  return -1;
}

const BufferSpec &Manifest::buffer(size_t index) const {
  return index < args.size() ? args[index] : workspace[index - args.size()];
}

int Manifest::findKernel(std::string_view name) const {
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int KernelSpec::findTensorMap(std::string_view name) const {
  for (size_t i = 0; i < tensorMaps.size(); ++i)
    if (tensorMaps[i].name == name)
      return static_cast<int>(i);
  return -1;
}

} // namespace amk::runtime
