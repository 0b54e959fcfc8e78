//===- Session.cpp - A case's spec and buffers, the session's GPU state ---===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <cmath>

using namespace amk::runtime;

namespace amk::bench {

/// Bytes of untouched memory before and after C, to catch writes past its
/// ends that compute-sanitizer cannot see (they stay inside the allocation).
constexpr size_t kGuardBytes = 256 << 10;

//===----------------------------------------------------------------------===//
// GemmSpec and tolerances
//===----------------------------------------------------------------------===//

GemmSpec GemmSpec::fromBundle(const Bundle &bundle, const Sizes &s) {
  const Manifest &m = bundle.manifest();
  GemmSpec spec;
  // The bundle loaded, so its problem reads (main() refuses other families).
  (void)readGemmProblem(bundle, spec.problem);
  const GemmProblem &p = spec.problem;
  spec.shape = {s.get("B"),   s.get("M"),   s.get("N"), s.get("K"),
                p.transposeA, p.transposeB, false};
  spec.biasType = p.outType;
  if (!m.kernels.empty()) {
    spec.tileM = m.kernels[0].tile[0];
    spec.tileN = m.kernels[0].tile[1];
  }
  if (int bias = bundle.findArg("bias"); bias >= 0) {
    spec.biasType = m.args[bias].elem;
    spec.shape.biasPerBatch = m.args[bias].shape.size() == 2;
  }
  return spec;
}

double GemmSpec::flops() const {
  return 2.0 * shape.batch * shape.m * shape.n * shape.k;
}

double GemmSpec::minBytes() const {
  double in = static_cast<double>(byteSize(problem.inType));
  double out = static_cast<double>(byteSize(problem.outType));
  double bytes = in * (shape.sizeA() + shape.sizeB()) +
                 out * shape.sizeC() * (problem.beta != 0 ? 2 : 1);
  if (problem.bias)
    bytes += static_cast<double>(byteSize(biasType)) * shape.sizeBias();
  return bytes;
}

Tolerances Tolerances::of(const GemmSpec &spec) {
  Tolerances t;
  const GemmProblem &p = spec.problem;
  // Inputs are generated in their storage type, so only tf32 rounds them.
  t.uIn = p.precision == Precision::TF32 ? std::ldexp(1.0, -11) : 0.0;
  t.uAcc = std::ldexp(1.0, -24);
  switch (p.outType) {
  case ScalarType::F16:
    t.uOut = std::ldexp(1.0, -11);
    t.outFloor = std::ldexp(1.0, -25);
    break;
  case ScalarType::BF16:
    t.uOut = std::ldexp(1.0, -8);
    t.outFloor = std::ldexp(1.0, -134);
    break;
  case ScalarType::F32:
    t.uOut = std::ldexp(1.0, -24);
    t.outFloor = std::ldexp(1.0, -150);
    break;
  case ScalarType::F64:
    t.uOut = std::ldexp(1.0, -53);
    t.outFloor = std::ldexp(1.0, -1075);
    break;
  case ScalarType::I32: // refused by the GEMM checks
    break;
  }
  // sqrt(K) for rounding that behaves like a random walk, K/16 for tensor
  // cores that truncate while accumulating (an error that grows with K).
  // Measured with cuBLAS on the H200: bf16/f16 -> f32 at K = 1024 gives
  // ~1e-6, within 1/20 of this; tf32 in place of ieee fp32 gives ~2.6e-4,
  // over it up to K ~ 40000.
  double k = static_cast<double>(spec.shape.k);
  t.frobLimit = 4 * t.uIn + 2 * t.uOut + (4 * std::sqrt(k) + k / 16) * t.uAcc;
  return t;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

DeviceBuffer::~DeviceBuffer() { reset(); }

void DeviceBuffer::reset() {
  if (data)
    (void)cudaFree(data);
  data = nullptr;
  size = 0;
}

Status DeviceBuffer::allocate(size_t bytes, const std::string &what) {
  reset();
  AMK_TRY(cudaStatus(cudaMalloc(&data, std::max<size_t>(bytes, 1)),
                     "cudaMalloc(" + what + ", " + std::to_string(bytes) +
                         " bytes)"));
  size = bytes;
  return Status::success();
}

size_t GemmBuffers::cBytes(const GemmSpec &spec) const {
  return static_cast<size_t>(spec.shape.sizeC() *
                             byteSize(spec.problem.outType));
}

Status GemmBuffers::allocate(const GemmSpec &spec, bool guards,
                             bool withReference) {
  const GemmProblem &p = spec.problem;
  const GemmShape &s = spec.shape;
  guardBytes = guards ? kGuardBytes : 0;
  size_t in = static_cast<size_t>(byteSize(p.inType));
  size_t cb = cBytes(spec);
  size_t ref = static_cast<size_t>(s.sizeC()) * sizeof(double);
  size_t need = in * (s.sizeA() + s.sizeB()) + cb + 2 * guardBytes +
                (p.beta != 0 ? cb : 0) + (withReference ? cb : 0) + 2 * ref;
  size_t freeBytes = 0, totalBytes = 0;
  AMK_TRY(
      cudaStatus(cudaMemGetInfo(&freeBytes, &totalBytes), "cudaMemGetInfo"));
  if (need > freeBytes)
    return Status::error("the case needs " + std::to_string(need >> 20) +
                         " MiB of device memory (inputs, output, fp64 "
                         "reference); " +
                         std::to_string(freeBytes >> 20) + " MiB are free");
  AMK_TRY(a.allocate(in * s.sizeA(), "A"));
  AMK_TRY(b.allocate(in * s.sizeB(), "B"));
  if (p.bias)
    AMK_TRY(bias.allocate(byteSize(spec.biasType) * s.sizeBias(), "bias"));
  AMK_TRY(c.allocate(cb + 2 * guardBytes, "C"));
  if (p.beta != 0)
    AMK_TRY(cOld.allocate(cb, "C before the launch"));
  if (withReference)
    AMK_TRY(cRef.allocate(cb, "cuBLAS C"));
  AMK_TRY(z.allocate(ref, "fp64 reference"));
  return absAB.allocate(ref, "fp64 |A||B|");
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

Session::~Session() {
  launchers.clear();
  cublasContext.reset();
  flush.reset();
  checkScratch.reset();
  counterBuffer.reset();
  if (launchStream)
    (void)cudaStreamDestroy(launchStream);
  launchStream = nullptr;
}

Status Session::init(const Options &options) {
  AMK_TRY(cudaStatus(cudaSetDevice(options.device), "cudaSetDevice"));
  AMK_TRY(cudaStatus(cudaFree(nullptr), "creating the CUDA context"));
  AMK_TRY(cudaStatus(
      cudaStreamCreateWithFlags(&launchStream, cudaStreamNonBlocking),
      "cudaStreamCreate"));
  AMK_TRY(checkScratch.allocate(checkScratchBytes(), "check scratch"));
  AMK_TRY(counterBuffer.allocate(sizeof(unsigned long long), "counter"));
  haveDevice =
      runtime::queryDevice(options.device, deviceInfo, deviceQueryError);
  if (options.checkOnly || options.list)
    return Status::success();
  cublasContext = std::make_unique<CublasContext>();
  // cuBLAS recommends 32 MiB of workspace on Hopper; 64 leaves headroom.
  AMK_TRY(cublasContext->init(size_t(64) << 20));
  return flush.allocate(options.flushBytes, "L2 flush buffer");
}

Status Session::launcherFor(const Bundle &bundle, BundleLauncher *&launcher) {
  auto found = launchers.find(bundle.source());
  if (found == launchers.end()) {
    auto loaded = std::make_unique<BundleLauncher>();
    AMK_TRY(BundleLauncher::load(bundle, *loaded));
    found = launchers.emplace(bundle.source(), std::move(loaded)).first;
  }
  launcher = found->second.get();
  return Status::success();
}

} // namespace amk::bench
