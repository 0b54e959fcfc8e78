//===- amk-launch.cu - Launch one corpus kernel from a cubin --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Launches ONE case of the planted-bug corpus, as compiled by
// scripts/corpus-cubins.py, so that scripts/gpu-corpus.sh can run it under
// compute-sanitizer:
//
//   amk-launch MANIFEST.txt INDEX       launch case INDEX, exit 0 / 1
//   amk-launch MANIFEST.txt --count     print the number of cases
//
// A standalone file (no AMK library, no MLIR), built with the runtime
// (`cmake -S runtime -B build-rt -G Ninja && ninja -C build-rt amk-launch`,
// or scripts/build-runtime.sh), or with plain nvcc,
//   nvcc -O2 -std=c++17 -arch=sm_90 -o amk-launch amk-launch.cu -lcuda
//
// MANIFEST.txt is the line-based manifest corpus-cubins.py writes beside
// manifest.json; a case reads
//
//   case N            name S            cubin FILE (relative to the manifest)
//   kernel K          kind Bug|Twin     tool T          expect error|clean
//   grid X Y Z        block X Y Z       smem BYTES  (dynamic shared memory)
//   cooperative 0|1   (1: cuLaunchCooperativeKernel, every block resident)
//   buffer ID DTYPE COUNT ELEMBYTES [pattern|zero]
//                                       (one cudaMalloc of exactly
//                                        COUNT * ELEMBYTES bytes, filled
//                                        with a pattern, or zeroed)
//   param KIND VALUE  (in kernel-parameter order)
//   end
//
// param kinds: ptr BUF (the 8-byte device address of buffer BUF); sptr32 OFF /
// sptr64 OFF (a shared-memory pointer: the shared-window address of the
// launch's dynamic shared memory plus OFF bytes; learned from a probe kernel,
// since the host cannot see it); i8 i16 i32 i64 f32 f64 VALUE.
//
// Fill pattern: floating-point elements i % 251 * 0.5 (f16/bf16: 1.0),
// integer elements i % 5 (small, as some kernels use them as trip counts).
//
// The kernel runs once (cuModuleLoad, cuLaunchKernel, cuCtxSynchronize);
// any error of the driver, the launch or the kernel is reported and the exit
// status is 1; otherwise 0.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *const kTool = "amk-launch";

struct Buffer {
  int id = 0;
  std::string dtype;
  size_t count = 0, elemBytes = 0;
  bool zero = false;
  void *device = nullptr;
};

struct Param {
  std::string kind, value;
};

struct Case {
  int index = -1;
  std::string name, cubin, kernel, kind, tool, expect;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned smem = 0;
  bool cooperative = false;
  std::vector<Buffer> buffers;
  std::vector<Param> params;
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "%s: %s\n", kTool, message.c_str());
  std::exit(1);
}

std::string driverError(CUresult r) {
  const char *name = nullptr, *desc = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &desc);
  std::string s = name ? name : ("CUresult " + std::to_string(int(r)));
  if (desc)
    s += std::string(" (") + desc + ")";
  return s;
}

#define CU_CHECK(call, what)                                                   \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS)                                                    \
      die(std::string(what) + " failed: " + driverError(r_));                  \
  } while (0)

#define RT_CHECK(call, what)                                                   \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      die(std::string(what) + " failed: " + cudaGetErrorName(e_) + " (" +      \
          cudaGetErrorString(e_) + ")");                                       \
  } while (0)

/// Reads the manifest; returns every case if want < 0, else only that one.
std::vector<Case> readManifest(const std::string &path, int want) {
  std::ifstream in(path);
  if (!in)
    die("cannot open manifest " + path);
  std::vector<Case> cases;
  Case cur;
  bool open = false;
  std::string line;
  int lineNo = 0;
  auto bad = [&](const std::string &why) {
    die(path + ":" + std::to_string(lineNo) + ": " + why + ": '" + line + "'");
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "case") {
      if (open)
        bad("case inside a case");
      cur = Case();
      if (!(ls >> cur.index))
        bad("bad case index");
      open = true;
      continue;
    }
    if (!open)
      bad("a field outside a case");
    if (key == "end") {
      open = false;
      if (want < 0 || cur.index == want)
        cases.push_back(cur);
      continue;
    }
    bool ok = true;
    if (key == "name")
      ok = bool(ls >> cur.name);
    else if (key == "cubin")
      ok = bool(ls >> cur.cubin);
    else if (key == "kernel")
      ok = bool(ls >> cur.kernel);
    else if (key == "kind")
      ok = bool(ls >> cur.kind);
    else if (key == "tool")
      ok = bool(ls >> cur.tool);
    else if (key == "expect")
      ok = bool(ls >> cur.expect);
    else if (key == "grid")
      ok = bool(ls >> cur.grid[0] >> cur.grid[1] >> cur.grid[2]);
    else if (key == "block")
      ok = bool(ls >> cur.block[0] >> cur.block[1] >> cur.block[2]);
    else if (key == "smem")
      ok = bool(ls >> cur.smem);
    else if (key == "cooperative")
      ok = bool(ls >> cur.cooperative);
    else if (key == "buffer") {
      Buffer b;
      ok = bool(ls >> b.id >> b.dtype >> b.count >> b.elemBytes);
      std::string fill;
      if (ok && ls >> fill) {
        if (fill != "zero" && fill != "pattern")
          bad("buffer fill must be pattern or zero");
        b.zero = fill == "zero";
      }
      if (ok && b.id != int(cur.buffers.size()))
        bad("buffers must be numbered 0, 1, ... in order");
      cur.buffers.push_back(b);
    } else if (key == "param") {
      Param p;
      ok = bool(ls >> p.kind >> p.value);
      cur.params.push_back(p);
    } else
      bad("unknown field");
    if (!ok)
      bad("cannot read");
  }
  if (open)
    die(path + ": the last case has no 'end'");
  return cases;
}

/// Fills a host image of a buffer with the documented pattern.
std::vector<unsigned char> pattern(const Buffer &b) {
  std::vector<unsigned char> host(b.count * b.elemBytes, 0);
  for (size_t i = 0; i < b.count && !b.zero; ++i) {
    unsigned char *p = host.data() + i * b.elemBytes;
    const std::string &t = b.dtype;
    if (t == "f32") {
      float v = float(i % 251) * 0.5f;
      std::memcpy(p, &v, 4);
    } else if (t == "f64") {
      double v = double(i % 251) * 0.5;
      std::memcpy(p, &v, 8);
    } else if (t == "f16") {
      uint16_t v = 0x3C00;
      std::memcpy(p, &v, 2);
    } else if (t == "bf16") {
      uint16_t v = 0x3F80;
      std::memcpy(p, &v, 2);
    } else { // integers: i8 i16 i32 i64 index, little-endian
      uint64_t v = i % 5;
      std::memcpy(p, &v, b.elemBytes);
    }
  }
  return host;
}

/// The shared-window address of a kernel's dynamic shared memory (when the
/// kernel has no static shared memory), read by a kernel built here.
__global__ void sharedBaseProbe(unsigned long long *out) {
  extern __shared__ __align__(16) unsigned char dynamicSmem[];
  if (threadIdx.x == 0)
    *out =
        static_cast<unsigned long long>(__cvta_generic_to_shared(dynamicSmem));
}

unsigned long long probeSharedBase() {
  unsigned long long *d = nullptr, h = 0;
  RT_CHECK(cudaMalloc(&d, sizeof(h)), "cudaMalloc (probe)");
  sharedBaseProbe<<<1, 32, 16>>>(d);
  RT_CHECK(cudaGetLastError(), "probe launch");
  RT_CHECK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), "probe copy");
  RT_CHECK(cudaFree(d), "cudaFree (probe)");
  return h;
}

std::string dirOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(
        stderr, "usage: %s MANIFEST.txt INDEX | MANIFEST.txt --count\n", kTool);
    return 2;
  }
  std::string manifest = argv[1], which = argv[2];
  if (which == "--count") {
    std::printf("%zu\n", readManifest(manifest, -1).size());
    return 0;
  }
  char *end = nullptr;
  long index = std::strtol(which.c_str(), &end, 10);
  if (*end || index < 0)
    die("bad case index '" + which + "'");
  std::vector<Case> found = readManifest(manifest, int(index));
  if (found.size() != 1)
    die("no case " + which + " in " + manifest);
  Case &c = found[0];
  std::printf("%s: case %d %s: %s (%s, %s, expect %s)\n", kTool, c.index,
              c.name.c_str(), c.kernel.c_str(), c.kind.c_str(), c.tool.c_str(),
              c.expect.c_str());
  std::printf("  grid %u,%u,%u  block %u,%u,%u  dynamic smem %u B\n", c.grid[0],
              c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2], c.smem);

  // The runtime makes the device's primary context current; the driver calls
  // below use it.
  RT_CHECK(cudaSetDevice(0), "cudaSetDevice");
  RT_CHECK(cudaFree(nullptr), "context creation");

  bool needsShared = false;
  for (const Param &p : c.params)
    needsShared |= p.kind.rfind("sptr", 0) == 0;
  unsigned long long sharedBase = needsShared ? probeSharedBase() : 0;

  CUmodule module = nullptr;
  std::string cubin =
      c.cubin[0] == '/' ? c.cubin : dirOf(manifest) + "/" + c.cubin;
  CU_CHECK(cuModuleLoad(&module, cubin.c_str()), "cuModuleLoad(" + cubin + ")");
  CUfunction function = nullptr;
  CU_CHECK(cuModuleGetFunction(&function, module, c.kernel.c_str()),
           "cuModuleGetFunction(" + c.kernel + ")");
  int staticSmem = 0;
  CU_CHECK(cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                              function),
           "cuFuncGetAttribute");
  if (needsShared && staticSmem) {
    // Dynamic shared memory follows the static; this launcher only knows the
    // base of a kernel without any.
    sharedBase += (unsigned long long)(staticSmem + 15) / 16 * 16;
    std::printf("  note: %d B of static shared memory; shared pointer "
                "arguments assume the dynamic part follows it\n",
                staticSmem);
  }
  if (c.smem > 48 * 1024)
    CU_CHECK(cuFuncSetAttribute(function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                int(c.smem)),
             "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");

  for (Buffer &b : c.buffers) {
    size_t bytes = b.count * b.elemBytes;
    if (!bytes)
      continue;
    RT_CHECK(cudaMalloc(&b.device, bytes), "cudaMalloc");
    std::vector<unsigned char> host = pattern(b);
    RT_CHECK(cudaMemcpy(b.device, host.data(), bytes, cudaMemcpyHostToDevice),
             "cudaMemcpy");
    std::printf("  buffer %d: %zu x %s (%zu B) at %p\n", b.id, b.count,
                b.dtype.c_str(), bytes, b.device);
  }

  // One 8-byte-aligned slot per parameter; the driver copies as many bytes
  // as the kernel's parameter takes.
  std::vector<uint64_t> storage(c.params.size(), 0);
  std::vector<void *> args(c.params.size());
  std::string summary;
  for (size_t i = 0; i < c.params.size(); ++i) {
    const Param &p = c.params[i];
    void *slot = &storage[i];
    args[i] = slot;
    const char *v = p.value.c_str();
    if (p.kind == "ptr") {
      int id = std::atoi(v);
      if (id < 0 || id >= int(c.buffers.size()))
        die("param ptr names no buffer: " + p.value);
      uint64_t a = reinterpret_cast<uint64_t>(c.buffers[id].device);
      std::memcpy(slot, &a, 8);
    } else if (p.kind == "sptr32") {
      uint32_t a = uint32_t(sharedBase + std::strtoull(v, nullptr, 0));
      std::memcpy(slot, &a, 4);
    } else if (p.kind == "sptr64") {
      uint64_t a = sharedBase + std::strtoull(v, nullptr, 0);
      std::memcpy(slot, &a, 8);
    } else if (p.kind == "i8") {
      int8_t a = int8_t(std::strtoll(v, nullptr, 0));
      std::memcpy(slot, &a, 1);
    } else if (p.kind == "i16") {
      int16_t a = int16_t(std::strtoll(v, nullptr, 0));
      std::memcpy(slot, &a, 2);
    } else if (p.kind == "i32") {
      int32_t a = int32_t(std::strtoll(v, nullptr, 0));
      std::memcpy(slot, &a, 4);
    } else if (p.kind == "i64") {
      int64_t a = std::strtoll(v, nullptr, 0);
      std::memcpy(slot, &a, 8);
    } else if (p.kind == "f32") {
      float a = std::strtof(v, nullptr);
      std::memcpy(slot, &a, 4);
    } else if (p.kind == "f64") {
      double a = std::strtod(v, nullptr);
      std::memcpy(slot, &a, 8);
    } else {
      die("unknown param kind '" + p.kind + "'");
    }
    summary += (i ? ", " : "") + p.kind + " " + p.value;
  }
  std::printf("  %zu params: %s\n", c.params.size(), summary.c_str());
  if (needsShared)
    std::printf("  dynamic shared memory at shared address 0x%llx\n",
                sharedBase);

  // A kernel whose blocks wait for each other needs them all resident: a
  // cooperative launch fails on a grid too large instead of hanging.
  CUresult launch =
      c.cooperative
          ? cuLaunchCooperativeKernel(function, c.grid[0], c.grid[1],
                                      c.grid[2], c.block[0], c.block[1],
                                      c.block[2], c.smem, nullptr,
                                      args.empty() ? nullptr : args.data())
          : cuLaunchKernel(function, c.grid[0], c.grid[1], c.grid[2],
                           c.block[0], c.block[1], c.block[2], c.smem,
                           nullptr, args.empty() ? nullptr : args.data(),
                           nullptr);
  if (launch != CUDA_SUCCESS) {
    std::printf("  launch: FAILED: %s\n", driverError(launch).c_str());
    return 1;
  }
  CUresult sync = cuCtxSynchronize();
  if (sync != CUDA_SUCCESS) {
    std::printf("  kernel: FAILED: %s\n", driverError(sync).c_str());
    return 1;
  }
  std::printf("  kernel: completed\n");
  for (Buffer &b : c.buffers)
    if (b.device)
      RT_CHECK(cudaFree(b.device), "cudaFree");
  CU_CHECK(cuModuleUnload(module), "cuModuleUnload");
  return 0;
}
