//===- Kernel.cpp - Load and launch a bundle's kernel ---------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver half of Bundle.h, in its own file so that the manifest code
// links without libcuda (its tests run on machines with no driver).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Bundle.h"

#include <cstdio>

namespace amk::runtime {

Status cudaDriverError(CUresult result, const std::string &what) {
  const char *name = nullptr;
  const char *desc = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString(result, &desc) != CUDA_SUCCESS)
    desc = nullptr;
  std::string text = what + " failed: ";
  if (name)
    text += name;
  else if (result == CUDA_ERROR_STUB_LIBRARY) // The stub cannot name itself.
    text += "CUDA_ERROR_STUB_LIBRARY (linked against the CUDA stub library, "
            "not a real driver)";
  else
    text += "CUresult " + std::to_string(static_cast<int>(result));
  if (desc)
    text += std::string(" (") + desc + ")";
  return Status::error(text);
}

/// Evaluates a driver call and returns its error from the enclosing function.
#define AMK_CU(call, what)                                                     \
  do {                                                                         \
    CUresult amkResult = (call);                                               \
    if (amkResult != CUDA_SUCCESS)                                             \
      return cudaDriverError(amkResult, what);                                 \
  } while (false)

namespace {

/// The device of the current context and what the loader needs to know
/// about it.
struct DeviceFacts {
  CUdevice device = 0;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int smemOptin = 0;
  std::array<int64_t, 3> maxGrid = {0, 0, 0};
};

Status queryCurrentDevice(DeviceFacts &facts) {
  CUcontext context = nullptr;
  AMK_CU(cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  if (!context)
    return Status::error("no current CUDA context: make one current (e.g. "
                         "cudaSetDevice + cudaFree(0)) before loading a "
                         "kernel");
  AMK_CU(cuCtxGetDevice(&facts.device), "cuCtxGetDevice");
  int gridX = 0, gridY = 0, gridZ = 0;
  const std::pair<CUdevice_attribute, int *> attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &facts.ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &facts.ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &facts.smCount},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &facts.smemOptin},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &gridX},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &gridY},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &gridZ}};
  for (const auto &[attr, out] : attrs)
    AMK_CU(cuDeviceGetAttribute(out, attr, facts.device),
           "cuDeviceGetAttribute");
  facts.maxGrid = {gridX, gridY, gridZ};
  return Status::success();
}

/// JIT-compiles `ptx`, returning the JIT's own error log on failure.
Status loadPtx(const std::string &ptx, const std::string &path,
               CUmodule &module) {
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result =
      cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (result == CUDA_SUCCESS)
    return Status::success();
  Status status = cudaDriverError(result, "cuModuleLoadDataEx('" + path + "')");
  return log[0] ? Status::error(status.message() + "; JIT log: " + log)
                : status;
}

Status readFunctionAttributes(CUfunction function, KernelAttributes &attrs) {
  const std::pair<CUfunction_attribute, int *> list[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &attrs.numRegisters},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &attrs.staticSmemBytes},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &attrs.localBytesPerThread},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &attrs.maxThreadsPerBlock}};
  for (const auto &[attr, out] : list)
    AMK_CU(cuFuncGetAttribute(out, attr, function), "cuFuncGetAttribute");
  return Status::success();
}

/// Checks the shared memory the launch needs against the device and raises
/// the function's limit when it is above the 48 KiB every function gets.
Status configureSharedMemory(CUfunction function, const Manifest &manifest,
                             const KernelAttributes &attrs,
                             const DeviceFacts &device) {
  constexpr int64_t kDefaultLimit = 48 * 1024;
  int64_t dynamic = manifest.dynamicSmemBytes;
  int64_t total = dynamic + attrs.staticSmemBytes;
  if (total > device.smemOptin)
    return Status::error(
        "kernel '" + manifest.entry + "' needs " + std::to_string(total) +
        " bytes of shared memory per block (" + std::to_string(dynamic) +
        " dynamic + " + std::to_string(attrs.staticSmemBytes) +
        " static); the device allows " + std::to_string(device.smemOptin));
  if (total <= kDefaultLimit)
    return Status::success();
  AMK_CU(cuFuncSetAttribute(function,
                            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            static_cast<int>(dynamic)),
         "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES = " +
             std::to_string(dynamic) + ")");
  return Status::success();
}

/// Decides between the cubin and the PTX. A cubin that fits the device is
/// preferred; the PTX is the fallback when the cubin does not fit or does
/// not load.
Status loadModule(const Bundle &bundle, const DeviceFacts &device,
                  CUmodule &module, bool &fromPtx,
                  std::vector<std::string> &notes) {
  const Manifest &m = bundle.manifest();
  Status fits = checkCubinCompatible(m.arch, device.ccMajor, device.ccMinor);
  bool ptxFits = isPtxCompatible(m.arch, device.ccMajor, device.ccMinor);
  std::string ptx;
  bool havePtx = ptxFits && readFile(bundle.ptxPath(), ptx).ok();
  Status cubinStatus = fits;
  if (fits.ok()) {
    std::string cubin;
    cubinStatus = readFile(bundle.cubinPath(), cubin);
    if (cubinStatus.ok()) {
      CUresult result = cuModuleLoadData(&module, cubin.data());
      if (result == CUDA_SUCCESS) {
        fromPtx = false;
        return Status::success();
      }
      cubinStatus = cudaDriverError(result, "cuModuleLoadData('" +
                                                bundle.cubinPath() + "')");
    }
  }
  if (!havePtx)
    return cubinStatus;
  if (Status s = loadPtx(ptx, bundle.ptxPath(), module); !s.ok())
    return Status::error(cubinStatus.message() +
                         "; the PTX fallback failed too: " + s.message());
  fromPtx = true;
  notes.push_back(cubinStatus.message() + "; loaded the PTX instead (JIT "
                                          "compiled by the driver, so the "
                                          "code is not the bundle's cubin)");
  return Status::success();
}

} // namespace

Kernel::~Kernel() { reset(); }

Kernel::Kernel(Kernel &&other) noexcept { *this = std::move(other); }

Kernel &Kernel::operator=(Kernel &&other) noexcept {
  if (this == &other)
    return *this;
  reset();
  source = std::move(other.source);
  module = other.module;
  function = other.function;
  fromPtx = other.fromPtx;
  attrs = other.attrs;
  maxGrid = other.maxGrid;
  notes = std::move(other.notes);
  other.module = nullptr;
  other.function = nullptr;
  return *this;
}

void Kernel::reset() {
  // Unloading fails harmlessly when the context is already gone (e.g. after
  // a device reset), so the result is ignored.
  if (module)
    (void)cuModuleUnload(module);
  module = nullptr;
  function = nullptr;
}

Status Kernel::load(const Bundle &bundle, Kernel &out) {
  out = Kernel();
  out.source = bundle;
  const Manifest &m = bundle.manifest();
  DeviceFacts device;
  if (Status s = queryCurrentDevice(device); !s.ok())
    return s;
  if (Status s = loadModule(bundle, device, out.module, out.fromPtx, out.notes);
      !s.ok())
    return s;
  CUresult found =
      cuModuleGetFunction(&out.function, out.module, m.entry.c_str());
  if (found != CUDA_SUCCESS)
    return cudaDriverError(found, "cuModuleGetFunction('" + m.entry + "')")
        .withContext(bundle.source());
  if (Status s = readFunctionAttributes(out.function, out.attrs); !s.ok())
    return s;
  if (Status s = configureSharedMemory(out.function, m, out.attrs, device);
      !s.ok())
    return s;
  out.maxGrid = device.maxGrid;
  if (m.target.sm_count != 0 && m.target.sm_count != device.smCount)
    out.notes.push_back("bundle planned for a target with " +
                        std::to_string(m.target.sm_count) +
                        " SMs, the device has " +
                        std::to_string(device.smCount));
  if (out.attrs.localBytesPerThread > 0)
    out.notes.push_back("kernel uses " +
                        std::to_string(out.attrs.localBytesPerThread) +
                        " bytes of local memory per thread (register "
                        "spills?)");
  return Status::success();
}

Status Kernel::launch(const ProblemSizes &sizes,
                      const std::vector<CUdeviceptr> &buffers,
                      CUstream stream) const {
  if (!function)
    return Status::error("kernel is not loaded");
  const Manifest &m = source.manifest();
  // AMK's harness proves the kernel in bounds for sizes of at least 1.
  if (sizes.b < 1 || sizes.m < 1 || sizes.n < 1 || sizes.k < 1)
    return Status::error(
        "problem sizes must be at least 1 (got B=" + std::to_string(sizes.b) +
        " M=" + std::to_string(sizes.m) + " N=" + std::to_string(sizes.n) +
        " K=" + std::to_string(sizes.k) + ")");
  std::array<int64_t, 3> grid;
  if (Status s = source.evalGrid(sizes, grid); !s.ok())
    return s;
  static const char *const kAxes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    if (grid[i] > maxGrid[i])
      return Status::error("grid " + std::string(kAxes[i]) + " = " +
                           std::to_string(grid[i]) + " ('" + m.grid[i] +
                           "') exceeds the device limit " +
                           std::to_string(maxGrid[i]));
  int64_t threads = m.block[0] * m.block[1] * m.block[2];
  if (threads > attrs.maxThreadsPerBlock)
    return Status::error(
        "block of " + std::to_string(threads) + " threads exceeds the " +
        std::to_string(attrs.maxThreadsPerBlock) + " that kernel '" + m.entry +
        "' can run per block (it uses " + std::to_string(attrs.numRegisters) +
        " registers per thread)");
  KernelParams params;
  if (Status s = buildKernelParams(m, sizes, buffers, params); !s.ok())
    return s;
  if (m.zeroOutput) {
    // Split-K: the kernel adds partial sums into C (f32, the last argument).
    int64_t elements = 1;
    for (int64_t extent : m.args.back().extents(sizes))
      elements *= extent;
    AMK_CU(cuMemsetD32Async(buffers.back(), 0, static_cast<size_t>(elements),
                            stream),
           "cuMemsetD32Async(C)");
  }
  AMK_CU(cuLaunchKernel(function, static_cast<unsigned>(grid[0]),
                        static_cast<unsigned>(grid[1]),
                        static_cast<unsigned>(grid[2]),
                        static_cast<unsigned>(m.block[0]),
                        static_cast<unsigned>(m.block[1]),
                        static_cast<unsigned>(m.block[2]),
                        static_cast<unsigned>(m.dynamicSmemBytes), stream,
                        params.pointers(), nullptr),
         "cuLaunchKernel('" + m.entry + "')");
  return Status::success();
}

} // namespace amk::runtime
