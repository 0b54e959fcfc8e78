//===- CApi.cpp - The runtime's C interface -------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/amk_runtime.h"

#include "AMK/Runtime/Launcher.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace amk::runtime;

struct amk_bundle {
  Bundle bundle;
  BundleLauncher launcher;
  std::string manifestText;
};

static thread_local std::string lastError;

static int fail(const std::string &message) {
  lastError = message;
  return 1;
}

static int fail(const Status &status) { return fail(status.message()); }

/// A current context: the caller's, or device 0's primary one.
static Status ensureContext() {
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS)
    return cudaDriverError(r, "cuInit");
  CUcontext current = nullptr;
  if (CUresult r = cuCtxGetCurrent(&current); r != CUDA_SUCCESS)
    return cudaDriverError(r, "cuCtxGetCurrent");
  if (current)
    return Status::success();
  CUdevice device;
  if (CUresult r = cuDeviceGet(&device, 0); r != CUDA_SUCCESS)
    return cudaDriverError(r, "cuDeviceGet");
  CUcontext primary;
  if (CUresult r = cuDevicePrimaryCtxRetain(&primary, device);
      r != CUDA_SUCCESS)
    return cudaDriverError(r, "cuDevicePrimaryCtxRetain");
  if (CUresult r = cuCtxSetCurrent(primary); r != CUDA_SUCCESS)
    return cudaDriverError(r, "cuCtxSetCurrent");
  return Status::success();
}

extern "C" {

const char *amk_last_error(void) { return lastError.c_str(); }

int amk_bundle_load(const char *path, amk_bundle **out) {
  if (!path || !out)
    return fail("amk_bundle_load: null argument");
  *out = nullptr;
  auto loaded = std::make_unique<amk_bundle>();
  if (Status s = Bundle::loadManifest(path, loaded->bundle); !s.ok())
    return fail(s);
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  loaded->manifestText = text.str();
  if (Status s = ensureContext(); !s.ok())
    return fail(s);
  if (Status s = BundleLauncher::load(loaded->bundle, loaded->launcher);
      !s.ok())
    return fail(s);
  *out = loaded.release();
  return 0;
}

void amk_bundle_free(amk_bundle *bundle) { delete bundle; }

const char *amk_bundle_manifest(const amk_bundle *bundle) {
  return bundle ? bundle->manifestText.c_str() : "";
}

int amk_bundle_launch(amk_bundle *bundle, int num_sizes,
                      const char *const *names, const int64_t *values,
                      int num_args, const uint64_t *args, void *stream) {
  if (!bundle || num_sizes < 0 || num_args < 0 ||
      (num_sizes > 0 && (!names || !values)) || (num_args > 0 && !args))
    return fail("amk_bundle_launch: null or negative argument");
  Sizes requested;
  for (int i = 0; i < num_sizes; ++i) {
    if (!names[i])
      return fail("amk_bundle_launch: size name " + std::to_string(i) +
                  " is null");
    requested.set(names[i], values[i]);
  }
  Sizes sizes;
  if (Status s = bundle->bundle.resolveSizes(&requested, sizes); !s.ok())
    return fail(s);
  size_t expected = bundle->bundle.manifest().args.size();
  if (size_t(num_args) != expected)
    return fail("amk_bundle_launch: " + bundle->bundle.manifest().name +
                " takes " + std::to_string(expected) + " buffers, got " +
                std::to_string(num_args));
  // The harness proves every access aligned for buffers that start on
  // 16 bytes (it takes cudaMalloc's 256; no access needs more than 16): a
  // view at an odd offset would fault, so it is refused here.
  for (int i = 0; i < num_args; ++i)
    if (args[i] % 16 != 0)
      return fail("amk_bundle_launch: buffer " + std::to_string(i) + " ('" +
                  bundle->bundle.manifest().args[i].name +
                  "') is not 16-byte aligned; AMK kernels take buffers that "
                  "start on 16 bytes (copy the view to a fresh tensor)");
  std::vector<CUdeviceptr> pointers(args, args + num_args);
  if (Status s = bundle->launcher.launch(sizes, pointers,
                                         static_cast<CUstream>(stream));
      !s.ok())
    return fail(s);
  return 0;
}

} // extern "C"
