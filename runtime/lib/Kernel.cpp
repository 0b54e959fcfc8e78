//===- Kernel.cpp - Load and launch one kernel of a bundle ----------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver half of the runtime (with Launcher.cpp), in files of its
// own so that the manifest code links without libcuda (its tests run on
// machines with no driver).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Launcher.h"

#include "DriverUtil.h"

#include <cstdlib>
#include <string>

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

namespace {

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
Status configureSharedMemory(CUfunction function, const KernelSpec &kernel,
                             const KernelAttributes &attrs,
                             const DeviceFacts &device) {
  constexpr int64_t kDefaultLimit = 48 * 1024;
  int64_t dynamic = kernel.dynamicSmemBytes;
  int64_t total = dynamic + attrs.staticSmemBytes;
  if (total > device.smemOptin)
    return Status::error(
        "kernel '" + kernel.entry + "' needs " + std::to_string(total) +
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

/// Loads the cubin when it fits the device and the driver takes it.
Status loadCubin(const std::string &path, CUmodule &module) {
  std::string cubin;
  if (Status s = readFile(path, cubin); !s.ok())
    return s;
  CUresult result = cuModuleLoadData(&module, cubin.data());
  if (result != CUDA_SUCCESS)
    return cudaDriverError(result, "cuModuleLoadData('" + path + "')");
  return Status::success();
}

/// Decides between the cubin and the PTX of kernel `index`. A cubin that
/// fits the device is preferred; the PTX is the fallback when the cubin does
/// not fit or does not load.
Status loadModule(const Bundle &bundle, size_t index, const DeviceFacts &device,
                  CUmodule &module, bool &fromPtx,
                  std::vector<std::string> &notes) {
  const std::string &arch = bundle.manifest().arch;
  Status cubinStatus =
      checkCubinCompatible(arch, device.ccMajor, device.ccMinor);
  if (cubinStatus.ok())
    cubinStatus = loadCubin(bundle.cubinPath(index), module);
  if (cubinStatus.ok()) {
    fromPtx = false;
    return Status::success();
  }
  std::string ptx;
  bool havePtx = isPtxCompatible(arch, device.ccMajor, device.ccMinor) &&
                 readFile(bundle.ptxPath(index), ptx).ok();
  if (!havePtx)
    return cubinStatus;
  if (Status s = loadPtx(ptx, bundle.ptxPath(index), module); !s.ok())
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
  kernel = std::move(other.kernel);
  module = other.module;
  function = other.function;
  fromPtx = other.fromPtx;
  attrs = other.attrs;
  maxGrid = other.maxGrid;
  maxResidentBlocks = other.maxResidentBlocks;
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

Status Kernel::load(const Bundle &bundle, size_t index, Kernel &out) {
  out = Kernel();
  if (index >= bundle.manifest().kernels.size())
    return Status::error("bundle '" + bundle.manifest().name +
                         "' has no "
                         "kernel " +
                         std::to_string(index));
  out.kernel = bundle.manifest().kernels[index];
  const KernelSpec &k = out.kernel;
  DeviceFacts device;
  if (Status s = queryCurrentDevice(device); !s.ok())
    return s;
  if (Status s =
          loadModule(bundle, index, device, out.module, out.fromPtx, out.notes);
      !s.ok())
    return s;
  CUresult found =
      cuModuleGetFunction(&out.function, out.module, k.entry.c_str());
  if (found != CUDA_SUCCESS)
    return cudaDriverError(found, "cuModuleGetFunction('" + k.entry + "')")
        .withContext(bundle.source());
  if (Status s = readFunctionAttributes(out.function, out.attrs); !s.ok())
    return s;
  if (Status s = configureSharedMemory(out.function, k, out.attrs, device);
      !s.ok())
    return s;
  out.maxGrid = device.maxGrid;
  if (k.cooperative) {
    int perSM = 0;
    AMK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(
               &perSM, out.function,
               static_cast<int>(k.block[0] * k.block[1] * k.block[2]),
               static_cast<size_t>(k.dynamicSmemBytes)),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor('" + k.entry + "')");
    out.maxResidentBlocks = int64_t(perSM) * device.smCount;
  }
  if (out.attrs.localBytesPerThread > 0)
    out.notes.push_back("kernel '" + k.entry + "' uses " +
                        std::to_string(out.attrs.localBytesPerThread) +
                        " bytes of local memory per thread (register "
                        "spills?)");
  return Status::success();
}

/// AMK_PROGRAMMATIC_LAUNCH=0 launches every kernel after the one before it
/// has finished (the kernels' griddepcontrol.wait then returns at once): to
/// measure what the overlap gains, or to rule it out.
static bool programmaticLaunchEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("AMK_PROGRAMMATIC_LAUNCH");
    return !value || std::string(value) != "0";
  }();
  return enabled;
}

Status Kernel::launch(const std::array<int64_t, 3> &grid, KernelParams &params,
                      CUstream stream) const {
  if (!function)
    return Status::error("kernel is not loaded");
  static const char *const kAxes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || grid[i] > maxGrid[i])
      return Status::error(
          "grid " + std::string(kAxes[i]) + " = " + std::to_string(grid[i]) +
          " ('" + kernel.grid[i] + "') of kernel '" + kernel.entry +
          "' is outside the device limit 1.." + std::to_string(maxGrid[i]));
  int64_t threads;
  bool overflow =
      __builtin_mul_overflow(kernel.block[0], kernel.block[1], &threads) ||
      __builtin_mul_overflow(threads, kernel.block[2], &threads);
  if (overflow || threads > attrs.maxThreadsPerBlock)
    return Status::error(
        "block of " +
        (overflow ? std::string("over 2^63") : std::to_string(threads)) +
        " threads exceeds the " + std::to_string(attrs.maxThreadsPerBlock) +
        " that kernel '" + kernel.entry + "' can run per block (it uses " +
        std::to_string(attrs.numRegisters) + " registers per thread)");
  if (kernel.cooperative) {
    int64_t blocks = grid[0] * grid[1] * grid[2];
    if (blocks > maxResidentBlocks)
      return Status::error(
          "kernel '" + kernel.entry + "' needs its " + std::to_string(blocks) +
          " blocks resident at once (its blocks wait for each other), but "
          "the device holds " +
          std::to_string(maxResidentBlocks) + " of them");
    AMK_CU(cuLaunchCooperativeKernel(
               function, static_cast<unsigned>(grid[0]),
               static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
               static_cast<unsigned>(kernel.block[0]),
               static_cast<unsigned>(kernel.block[1]),
               static_cast<unsigned>(kernel.block[2]),
               static_cast<unsigned>(kernel.dynamicSmemBytes), stream,
               params.pointers()),
           "cuLaunchCooperativeKernel('" + kernel.entry + "')");
    return Status::success();
  }
  if (kernel.programmatic && programmaticLaunchEnabled()) {
    // Launched while the kernel before it on the stream still runs; its
    // first instruction waits for that kernel (griddepcontrol.wait).
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {};
    config.gridDimX = static_cast<unsigned>(grid[0]);
    config.gridDimY = static_cast<unsigned>(grid[1]);
    config.gridDimZ = static_cast<unsigned>(grid[2]);
    config.blockDimX = static_cast<unsigned>(kernel.block[0]);
    config.blockDimY = static_cast<unsigned>(kernel.block[1]);
    config.blockDimZ = static_cast<unsigned>(kernel.block[2]);
    config.sharedMemBytes = static_cast<unsigned>(kernel.dynamicSmemBytes);
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    AMK_CU(cuLaunchKernelEx(&config, function, params.pointers(), nullptr),
           "cuLaunchKernelEx('" + kernel.entry + "', programmatic)");
    return Status::success();
  }
  AMK_CU(cuLaunchKernel(function, static_cast<unsigned>(grid[0]),
                        static_cast<unsigned>(grid[1]),
                        static_cast<unsigned>(grid[2]),
                        static_cast<unsigned>(kernel.block[0]),
                        static_cast<unsigned>(kernel.block[1]),
                        static_cast<unsigned>(kernel.block[2]),
                        static_cast<unsigned>(kernel.dynamicSmemBytes), stream,
                        params.pointers(), nullptr),
         "cuLaunchKernel('" + kernel.entry + "')");
  return Status::success();
}

} // namespace amk::runtime
