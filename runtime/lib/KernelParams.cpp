//===- KernelParams.cpp - Kernel parameters of the memref ABI -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/KernelParams.h"

namespace amk::runtime {

void **KernelParams::pointers() {
  addresses.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    addresses[i] = &values[i];
  return addresses.data();
}

CUdeviceptr BufferBindings::at(size_t index) const {
  return index < args.size() ? args[index] : workspace[index - args.size()];
}

/// The bindings must match the manifest's buffers one to one, none null.
static Status checkBindings(const Manifest &m, const BufferBindings &buffers) {
  if (buffers.args.size() != m.args.size())
    return Status::error("bundle '" + m.name + "' takes " +
                         std::to_string(m.args.size()) + " arguments, got " +
                         std::to_string(buffers.args.size()) + " buffers");
  if (buffers.workspace.size() != m.workspace.size())
    return Status::error(
        "bundle '" + m.name + "' has " + std::to_string(m.workspace.size()) +
        " workspace buffers, got " + std::to_string(buffers.workspace.size()));
  for (size_t i = 0; i < m.bufferCount(); ++i)
    if (buffers.at(i) == 0)
      return Status::error(std::string("null device pointer for ") +
                           (i < m.args.size() ? "argument " : "workspace ") +
                           m.buffer(i).name);
  return Status::success();
}

Status buildKernelParams(const Manifest &manifest, const KernelSpec &kernel,
                         const Sizes &sizes, const BufferBindings &buffers,
                         KernelParams &params,
                         const std::vector<CUdeviceptr> &tensorMaps) {
  if (Status s = checkBindings(manifest, buffers); !s.ok())
    return s;
  params = KernelParams();
  for (const std::string &name : kernel.params) {
    if (int map = kernel.findTensorMap(name); map >= 0) {
      if (size_t(map) >= tensorMaps.size() || !tensorMaps[map])
        return Status::error("kernel '" + kernel.name + "' takes tensor map '" +
                             name + "', which was not encoded");
      params.append(tensorMaps[map]);
      continue;
    }
    int index = manifest.findBuffer(name);
    if (index < 0) // The reader resolved every name; a hand-built manifest.
      return Status::error("kernel '" + kernel.name +
                           "' takes unknown buffer '" + name + "'");
    CUdeviceptr pointer = buffers.at(static_cast<size_t>(index));
    std::vector<int64_t> extents = manifest.buffer(index).extents(sizes);
    std::vector<int64_t> strides = BufferSpec::contiguousStrides(extents);
    params.append(pointer); // allocated pointer
    params.append(pointer); // aligned pointer
    params.append(0);       // offset
    for (int64_t extent : extents)
      params.append(static_cast<uint64_t>(extent));
    for (int64_t stride : strides)
      params.append(static_cast<uint64_t>(stride));
  }
  return Status::success();
}

Status buildKernelParams(const Manifest &manifest, const Sizes &sizes,
                         const std::vector<CUdeviceptr> &args,
                         KernelParams &params) {
  if (manifest.kernels.empty())
    return Status::error("bundle '" + manifest.name + "' has no kernel");
  BufferBindings buffers;
  buffers.args = args;
  return buildKernelParams(manifest, manifest.kernels.front(), sizes, buffers,
                           params);
}

} // namespace amk::runtime
