//===- Run.cpp - Run one bundle: check it, then time it -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

using namespace amk::runtime;

namespace amk::bench {

/// Bytes of untouched memory before and after C, to catch writes past its
/// ends that compute-sanitizer cannot see (they stay inside the allocation).
constexpr size_t kGuardBytes = 256 << 10;
constexpr uint8_t kGuardPattern = 0xa7;
/// How long a launch may run before amk-bench calls it hung.
constexpr double kHangSeconds = 120;

#define AMK_TRY(expr)                                                          \
  do {                                                                         \
    if (Status amkStatus = (expr); !amkStatus.ok())                            \
      return amkStatus;                                                        \
  } while (false)

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

Status cudaStatus(cudaError_t err, const std::string &what) {
  if (err == cudaSuccess)
    return Status::success();
  return Status::error(what + " failed: " + cudaGetErrorName(err) + " (" +
                       cudaGetErrorString(err) + ")");
}

bool isStickyError(cudaError_t err) {
  switch (err) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchFailure:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorIllegalInstruction:
  case cudaErrorHardwareStackError:
  case cudaErrorAssert:
  case cudaErrorLaunchTimeout:
  case cudaErrorECCUncorrectable:
  case cudaErrorUnknown:
    return true;
  default:
    return false;
  }
}

/// Waits for `stream`, giving up after kHangSeconds (a kernel that never
/// finishes, e.g. from a divergent barrier, must not stall the whole run).
static cudaError_t waitFor(cudaStream_t stream, bool &hung) {
  hung = false;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(kHangSeconds);
  while (true) {
    cudaError_t err = cudaStreamQuery(stream);
    if (err != cudaErrorNotReady)
      return err;
    if (std::chrono::steady_clock::now() > deadline) {
      hung = true;
      return err;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

//===----------------------------------------------------------------------===//
// GemmSpec and tolerances
//===----------------------------------------------------------------------===//

GemmSpec GemmSpec::fromBundle(const Bundle &bundle, const ProblemSizes &s) {
  const Manifest &m = bundle.manifest();
  GemmSpec spec;
  spec.problem = m.problem;
  spec.shape = {s.b,  s.m, s.n, s.k, m.problem.transposeA, m.problem.transposeB,
                false};
  spec.biasType = m.problem.outType;
  spec.tileM = m.tile[0];
  spec.tileN = m.tile[1];
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
  kernels.clear();
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
  if (options.checkOnly || options.list)
    return Status::success();
  cublasContext = std::make_unique<CublasContext>();
  // cuBLAS recommends 32 MiB of workspace on Hopper; 64 leaves headroom.
  AMK_TRY(cublasContext->init(size_t(64) << 20));
  return flush.allocate(options.flushBytes, "L2 flush buffer");
}

Status Session::kernelFor(const Bundle &bundle, const Kernel *&kernel) {
  auto found = kernels.find(bundle.source());
  if (found == kernels.end()) {
    auto loaded = std::make_unique<Kernel>();
    AMK_TRY(Kernel::load(bundle, *loaded));
    found = kernels.emplace(bundle.source(), std::move(loaded)).first;
  }
  kernel = found->second.get();
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Inputs, outputs and the check
//===----------------------------------------------------------------------===//

Status prepareInputs(Session &session, const GemmSpec &spec,
                     GemmBuffers &buffers, uint64_t seed) {
  const GemmProblem &p = spec.problem;
  const GemmShape &s = spec.shape;
  cudaStream_t stream = session.stream();
  // One seed per operand, so A and B never share values.
  fillUniform(buffers.a.get(), p.inType, s.sizeA(), seed * 8 + 1, stream);
  fillUniform(buffers.b.get(), p.inType, s.sizeB(), seed * 8 + 2, stream);
  if (p.bias)
    fillUniform(buffers.bias.get(), spec.biasType, s.sizeBias(), seed * 8 + 3,
                stream);
  if (p.beta != 0)
    fillUniform(buffers.cOld.get(), p.outType, s.sizeC(), seed * 8 + 4, stream);
  AMK_TRY(cudaStatus(cudaGetLastError(), "filling the inputs"));
  AMK_TRY(cudaStatus(referenceGemm(buffers.a.get(), buffers.b.get(), p.inType,
                                   s, static_cast<double *>(buffers.z.get()),
                                   static_cast<double *>(buffers.absAB.get()),
                                   stream),
                     "fp64 reference GEMM"));
  return cudaStatus(cudaStreamSynchronize(stream), "fp64 reference GEMM");
}

Status prepareOutput(Session &session, const GemmSpec &spec,
                     const GemmBuffers &buffers, void *c, bool guards) {
  cudaStream_t stream = session.stream();
  size_t bytes = buffers.cBytes(spec);
  if (guards) {
    char *base = static_cast<char *>(buffers.c.get());
    size_t guard = buffers.guardBytes;
    AMK_TRY(cudaStatus(cudaMemsetAsync(base, kGuardPattern, guard, stream),
                       "cudaMemsetAsync(guard)"));
    AMK_TRY(cudaStatus(
        cudaMemsetAsync(base + guard + bytes, kGuardPattern, guard, stream),
        "cudaMemsetAsync(guard)"));
  }
  if (spec.problem.beta == 0) {
    fillNaN(c, spec.problem.outType, spec.shape.sizeC(), stream);
    return cudaStatus(cudaGetLastError(), "poisoning C");
  }
  return cudaStatus(cudaMemcpyAsync(c, buffers.cOld.get(), bytes,
                                    cudaMemcpyDeviceToDevice, stream),
                    "copying the pre-launch C");
}

static Status countGuardChanges(Session &session, const GemmSpec &spec,
                                const GemmBuffers &buffers,
                                unsigned long long &changed) {
  const char *base = static_cast<const char *>(buffers.c.get());
  const char *bands[] = {base,
                         base + buffers.guardBytes + buffers.cBytes(spec)};
  changed = 0;
  for (const char *band : bands) {
    unsigned long long count = 0;
    AMK_TRY(cudaStatus(countBytesNot(band, buffers.guardBytes, kGuardPattern,
                                     session.counter(), session.stream()),
                       "checking the guard bands"));
    AMK_TRY(cudaStatus(cudaMemcpy(&count, session.counter(), sizeof(count),
                                  cudaMemcpyDeviceToHost),
                       "checking the guard bands"));
    changed += count;
  }
  return Status::success();
}

static CheckParams checkParams(const GemmSpec &spec,
                               const GemmBuffers &buffers) {
  const GemmProblem &p = spec.problem;
  Tolerances t = Tolerances::of(spec);
  CheckParams params;
  params.alpha = p.alpha;
  params.beta = p.beta;
  params.activation = p.activation;
  params.cOld = p.beta != 0 ? buffers.cOld.get() : nullptr;
  params.bias = p.bias ? buffers.bias.get() : nullptr;
  params.outType = p.outType;
  params.biasType = spec.biasType;
  params.uIn = t.uIn;
  params.uAcc = t.uAcc;
  params.uOut = t.uOut;
  params.outFloor = t.outFloor;
  params.k = spec.shape.k;
  params.tileM = spec.tileM;
  params.tileN = spec.tileN;
  return params;
}

static void judge(const GemmSpec &spec, CheckResult &r) {
  const CheckStats &st = r.stats;
  const GemmShape &s = spec.shape;
  if (st.elements != static_cast<unsigned long long>(s.sizeC()))
    r.failures.push_back("checked " + std::to_string(st.elements) + " of " +
                         std::to_string(s.sizeC()) + " elements");
  if (st.nonfinite)
    r.failures.push_back(
        std::to_string(st.nonfinite) + " elements are NaN or Inf" +
        (spec.problem.beta == 0 ? " (C was NaN-poisoned: unwritten?)" : "") +
        ", first at [" + formatIndex(s, r.firstBad.index) + "]");
  if (st.overK) {
    char text[256];
    std::snprintf(text, sizeof(text),
                  "%llu elements exceed the K-scaled bound; first at [%s]: "
                  "got %.9g, want %.9g +- %.3g",
                  st.overK, formatIndex(s, r.firstBad.index).c_str(),
                  r.firstBad.value, r.firstBad.ref, r.firstBad.tolK);
    r.failures.push_back(text);
  }
  if (!(r.relFrob <= r.frobLimit) && !st.nonfinite) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "relative Frobenius error %.3g exceeds %.3g", r.relFrob,
                  r.frobLimit);
    r.failures.push_back(text);
  }
  if (r.refNorm > 0 && r.outNorm == 0)
    r.failures.push_back("the output is all zeros");
  if (r.guardBytesChanged)
    r.failures.push_back(std::to_string(r.guardBytesChanged) +
                         " bytes written outside C (guard bands)");
  r.pass = r.failures.empty();
}

Status checkResult(Session &session, const GemmSpec &spec,
                   const GemmBuffers &buffers, const void *c, bool guards,
                   CheckResult &r) {
  r = CheckResult();
  CheckParams params = checkParams(spec, buffers);
  const auto *z = static_cast<const double *>(buffers.z.get());
  const auto *abs = static_cast<const double *>(buffers.absAB.get());
  AMK_TRY(cudaStatus(checkOutput(c, spec.shape, z, abs, params,
                                 session.scratch(), session.stream(), r.stats),
                     "checking the output"));
  for (auto [index, report] : {std::pair{r.stats.worstIndex, &r.worst},
                               {r.stats.firstBadIndex, &r.firstBad}})
    if (index >= 0)
      AMK_TRY(cudaStatus(describeElement(c, spec.shape, z, abs, params, index,
                                         session.scratch(), session.stream(),
                                         *report),
                         "describing an element"));
  r.refNorm = std::sqrt(r.stats.sumSqRef);
  r.outNorm = std::sqrt(r.stats.sumSqOut);
  double errNorm = std::sqrt(r.stats.sumSqErr);
  r.relFrob =
      r.refNorm > 0 ? errNorm / r.refNorm : (errNorm > 0 ? INFINITY : 0.0);
  // Plus the output type's subnormal spacing on every element: a tiny
  // reference (K = 1, say) can round to a subnormal with a large relative
  // error, in cuBLAS as in AMK.
  Tolerances tol = Tolerances::of(spec);
  double elements = double(spec.shape.batch) * spec.shape.m * spec.shape.n;
  r.frobLimit =
      tol.frobLimit +
      (r.refNorm > 0 ? tol.outFloor * std::sqrt(elements) / r.refNorm : 0.0);
  r.guardChecked = guards;
  if (guards)
    AMK_TRY(countGuardChanges(session, spec, buffers, r.guardBytesChanged));
  judge(spec, r);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// One case
//===----------------------------------------------------------------------===//

namespace {

/// The state of one case while it runs.
struct CaseRun {
  CaseRun(Session &session, const Options &options, const Bundle &bundle,
          const ProblemSizes &sizes, CaseResult &result)
      : session(session), options(options), bundle(bundle), sizes(sizes),
        result(result) {}

  Session &session;
  const Options &options;
  const Bundle &bundle;
  ProblemSizes sizes;
  CaseResult &result;
  const Kernel *kernel = nullptr;
  GemmBuffers buffers;
  std::unique_ptr<CublasReference> reference;
  bool guards = true;

  const GemmSpec &spec() const { return result.spec; }

  /// The kernel's buffers in manifest argument order.
  std::vector<CUdeviceptr> arguments() const {
    std::vector<CUdeviceptr> list;
    for (const ArgSpec &arg : bundle.manifest().args) {
      const void *p = arg.name == "A"      ? buffers.a.get()
                      : arg.name == "B"    ? buffers.b.get()
                      : arg.name == "bias" ? buffers.bias.get()
                                           : buffers.cData();
      list.push_back(reinterpret_cast<CUdeviceptr>(p));
    }
    return list;
  }

  /// Waits for the stream; a failure here is the kernel's (or cuBLAS's).
  Status finish(const std::string &what) {
    bool hung = false;
    cudaError_t err = waitFor(session.stream(), hung);
    if (hung) {
      result.stickyError = result.hung = true;
      return Status::error(what + " did not finish within " +
                           std::to_string(int(kHangSeconds)) + " s (hung?)");
    }
    if (isStickyError(err))
      result.stickyError = true;
    return cudaStatus(err, what);
  }

  Status setUp();
  Status checkTrial(uint64_t seed);
  Status time();
};

Status CaseRun::setUp() {
  AMK_TRY(session.kernelFor(bundle, kernel));
  result.attrs = kernel->attributes();
  result.fromPtx = kernel->loadedFromPtx();
  for (const std::string &note : kernel->warnings())
    result.warnings.push_back(note);
  guards = !options.checkOnly;
  AMK_TRY(buffers.allocate(spec(), guards, !options.checkOnly));
  if (options.checkOnly)
    return Status::success();
  reference = std::make_unique<CublasReference>();
  CublasReference::Operands ops{buffers.a.get(), buffers.b.get(),
                                buffers.bias.get(), buffers.cRef.get()};
  Status status = reference->prepare(session.cublas(), spec().problem,
                                     spec().shape, spec().biasType, ops);
  result.cublasDescription = reference->description();
  if (!status.ok()) {
    result.warnings.push_back("no cuBLAS reference: " + status.message());
    reference.reset();
  }
  return Status::success();
}

/// Mixes the run seed, the case and the trial into one seed.
uint64_t trialSeed(uint64_t seed, int caseIndex, int trial) {
  return seed * 0x100000001b3ULL + static_cast<uint64_t>(caseIndex) * 1000 +
         static_cast<uint64_t>(trial);
}

Status CaseRun::checkTrial(uint64_t seed) {
  AMK_TRY(prepareInputs(session, spec(), buffers, seed));
  AMK_TRY(prepareOutput(session, spec(), buffers, buffers.cData(), guards));
  AMK_TRY(kernel->launch(sizes, arguments(), session.stream()));
  AMK_TRY(finish("the AMK kernel"));
  result.amkTrials.emplace_back();
  AMK_TRY(checkResult(session, spec(), buffers, buffers.cData(), guards,
                      result.amkTrials.back()));
  if (!reference)
    return Status::success();
  AMK_TRY(prepareOutput(session, spec(), buffers, buffers.cRef.get(), false));
  AMK_TRY(reference->run(session.stream()));
  AMK_TRY(finish("the cuBLAS reference"));
  result.cublasTrials.emplace_back();
  return checkResult(session, spec(), buffers, buffers.cRef.get(), false,
                     result.cublasTrials.back());
}

/// Milliseconds between consecutive pairs of events.
std::vector<float> elapsed(const std::vector<cudaEvent_t> &events) {
  std::vector<float> times;
  for (size_t i = 0; i + 1 < events.size(); i += 2) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, events[i], events[i + 1]) == cudaSuccess)
      times.push_back(ms);
  }
  return times;
}

/// Events destroyed on scope exit.
struct EventPool {
  std::vector<cudaEvent_t> events;
  ~EventPool() {
    for (cudaEvent_t e : events)
      (void)cudaEventDestroy(e);
  }
  Status create(size_t count) {
    events.resize(count, nullptr);
    for (cudaEvent_t &e : events)
      AMK_TRY(cudaStatus(cudaEventCreate(&e), "cudaEventCreate"));
    return Status::success();
  }
};

/// Times AMK and cuBLAS alternately (so clock or thermal drift hits both
/// alike), each launch after an L2 flush, with events on the launch stream.
Status CaseRun::time() {
  const int iters = options.iters, warmup = options.warmup;
  EventPool amkEvents, refEvents;
  AMK_TRY(amkEvents.create(2 * static_cast<size_t>(iters)));
  AMK_TRY(refEvents.create(reference ? 2 * static_cast<size_t>(iters) : 0));
  cudaStream_t stream = session.stream();
  std::vector<CUdeviceptr> args = arguments();
  auto flushL2 = [&](int i) {
    return cudaStatus(cudaMemsetAsync(session.flushBuffer(), i & 0xff,
                                      options.flushBytes, stream),
                      "L2 flush");
  };
  auto record = [&](EventPool &pool, int i, int which) {
    if (i < warmup)
      return Status::success();
    return cudaStatus(
        cudaEventRecord(pool.events[2 * (i - warmup) + which], stream),
        "cudaEventRecord");
  };
  for (int i = 0; i < warmup + iters; ++i) {
    AMK_TRY(flushL2(i));
    AMK_TRY(record(amkEvents, i, 0));
    AMK_TRY(kernel->launch(sizes, args, stream));
    AMK_TRY(record(amkEvents, i, 1));
    if (!reference)
      continue;
    AMK_TRY(flushL2(i));
    AMK_TRY(record(refEvents, i, 0));
    AMK_TRY(reference->run(stream));
    AMK_TRY(record(refEvents, i, 1));
  }
  AMK_TRY(finish("the timing loop"));
  result.amkTime = TimingStats::of(elapsed(amkEvents.events));
  if (reference)
    result.cublasTime = TimingStats::of(elapsed(refEvents.events));
  result.timed = true;
  result.warmup = warmup;
  result.flushBytes = options.flushBytes;
  return Status::success();
}

/// The compute ceiling for the problem's math path.
void choosePeak(const Options &options, const Manifest &m, CaseResult &result) {
  result.hbmGbps = static_cast<double>(m.target.hbm_gbps);
  if (options.peakTflops > 0) {
    result.peakTflops = options.peakTflops;
    result.peakSource = "--peak-tflops";
    return;
  }
  const GemmProblem &p = m.problem;
  std::pair<const char *, int64_t> field =
      p.inType == ScalarType::BF16
          ? std::pair{"bf16_gflops", m.target.bf16_gflops}
      : p.inType == ScalarType::F16
          ? std::pair{"fp16_gflops", m.target.fp16_gflops}
      : p.precision == Precision::TF32
          ? std::pair{"tf32_gflops", m.target.tf32_gflops}
          : std::pair{"fp32_gflops", m.target.fp32_gflops};
  result.peakTflops = static_cast<double>(field.second) / 1000;
  result.peakSource = "manifest target '" + m.target.name + "' " + field.first;
}

/// Merges the trials into the verdict.
void decide(CaseResult &result) {
  for (size_t t = 0; t < result.amkTrials.size(); ++t)
    for (const std::string &why : result.amkTrials[t].failures)
      result.reasons.push_back("trial " + std::to_string(t) + ": " + why);
  for (size_t t = 0; t < result.cublasTrials.size(); ++t)
    for (const std::string &why : result.cublasTrials[t].failures)
      result.reasons.push_back("cuBLAS reference, trial " + std::to_string(t) +
                               ": " + why +
                               " (the checker or the cuBLAS mapping is "
                               "suspect)");
  result.status = result.reasons.empty() ? "PASS" : "FAIL";
}

/// A time under the roofline of the manifest's own target is impossible:
/// the measurement or the kernel is wrong.
void checkRoofline(CaseResult &result) {
  double roofline = result.rooflineUs();
  if (!result.timed || roofline <= 0 ||
      result.amkTime.medianUs >= 0.99 * roofline)
    return;
  char text[200];
  std::snprintf(text, sizeof(text),
                "AMK's median %.2f us is under the roofline %.2f us (%s)",
                result.amkTime.medianUs, roofline, result.peakSource.c_str());
  if (result.peakSource == "--peak-tflops") {
    result.warnings.push_back(text);
  } else {
    result.reasons.push_back(std::string(text) +
                             ": the timing or the kernel is wrong");
    result.status = "FAIL";
  }
}

} // namespace

CaseResult runCase(Session &session, const Options &options,
                   const Bundle &bundle, const ProblemSizes &sizes,
                   int caseIndex) {
  CaseResult result;
  const Manifest &m = bundle.manifest();
  result.manifestPath = bundle.source();
  result.name = m.name;
  result.arch = m.arch;
  result.spec = GemmSpec::fromBundle(bundle, sizes);
  result.tolerances = Tolerances::of(result.spec);
  result.warnings = bundle.warnings();
  result.predictedUs = m.predictedUs;
  choosePeak(options, m, result);
  CaseRun run(session, options, bundle, sizes, result);
  Status status = run.setUp();
  int trials = options.checkOnly ? 1 : options.trials;
  for (int t = 0; status.ok() && t < trials; ++t)
    status = run.checkTrial(trialSeed(options.seed, caseIndex, t));
  if (!status.ok()) {
    result.status = "ERROR";
    result.error = status.message();
    return result;
  }
  decide(result);
  if (options.checkOnly || result.status != "PASS")
    return result;
  if (Status s = run.time(); !s.ok()) {
    result.status = "ERROR";
    result.error = s.message();
    return result;
  }
  checkRoofline(result);
  return result;
}

//===----------------------------------------------------------------------===//
// Derived numbers
//===----------------------------------------------------------------------===//

TimingStats TimingStats::of(std::vector<float> ms) {
  TimingStats t;
  t.iters = static_cast<int>(ms.size());
  if (ms.empty())
    return t;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  double sum = 0;
  for (float v : ms)
    sum += v;
  t.medianUs = median * 1000;
  t.minUs = ms.front() * 1000.0;
  t.maxUs = ms.back() * 1000.0;
  t.meanUs = sum / n * 1000;
  return t;
}

const CheckResult *CaseResult::worstAmk() const {
  const CheckResult *worst = nullptr;
  for (const CheckResult &r : amkTrials)
    if (!worst || (worst->pass && !r.pass) ||
        (worst->pass == r.pass &&
         r.stats.maxErrOverTol > worst->stats.maxErrOverTol))
      worst = &r;
  return worst;
}

const CheckResult *CaseResult::worstCublas() const {
  const CheckResult *worst = nullptr;
  for (const CheckResult &r : cublasTrials)
    if (!worst || (worst->pass && !r.pass) ||
        (worst->pass == r.pass &&
         r.stats.maxErrOverTol > worst->stats.maxErrOverTol))
      worst = &r;
  return worst;
}

static double tflops(double flops, double us) {
  return us > 0 ? flops / (us * 1e-6) / 1e12 : 0;
}

double CaseResult::amkTflops() const {
  return tflops(spec.flops(), amkTime.medianUs);
}

double CaseResult::cublasTflops() const {
  return tflops(spec.flops(), cublasTime.medianUs);
}

double CaseResult::speed() const {
  return amkTime.medianUs > 0 && cublasTime.medianUs > 0
             ? cublasTime.medianUs / amkTime.medianUs
             : 0;
}

double CaseResult::rooflineUs() const {
  double compute = peakTflops > 0 ? spec.flops() / (peakTflops * 1e12) : 0;
  double memory = hbmGbps > 0 ? spec.minBytes() / (hbmGbps * 1e9) : 0;
  return std::max(compute, memory) * 1e6;
}

} // namespace amk::bench
