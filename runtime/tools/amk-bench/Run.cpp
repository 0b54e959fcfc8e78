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

/// What C's guard bands (GemmBuffers) are filled with.
constexpr uint8_t kGuardPattern = 0xa7;
/// How long a launch may run before amk-bench calls it hung.
constexpr double kHangSeconds = 120;

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
          const Sizes &sizes, CaseResult &result)
      : session(session), options(options), bundle(bundle), sizes(sizes),
        result(result) {}

  Session &session;
  const Options &options;
  const Bundle &bundle;
  Sizes sizes;
  CaseResult &result;
  BundleLauncher *launcher = nullptr;
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
  void noteVariant();
};

/// Records which variant ran and what the planner predicted for its
/// kernels.
void CaseRun::noteVariant() {
  const LaunchPlan &plan = launcher->lastPlan();
  result.variant = static_cast<int>(plan.variant);
  result.predictedUs = 0;
  for (const PlannedStep &step : plan.steps)
    if (step.kind == StepSpec::Kind::Kernel)
      result.predictedUs += bundle.manifest().kernels[step.kernel].predictedUs;
}

Status CaseRun::setUp() {
  AMK_TRY(session.launcherFor(bundle, launcher));
  result.kernels = launcher->kernelCount();
  result.attrs = launcher->kernel(0).attributes();
  for (size_t i = 0; i < launcher->kernelCount(); ++i) {
    const Kernel &kernel = launcher->kernel(i);
    result.fromPtx = result.fromPtx || kernel.loadedFromPtx();
    result.attrs.localBytesPerThread =
        std::max(result.attrs.localBytesPerThread,
                 kernel.attributes().localBytesPerThread);
  }
  for (const std::string &note : launcher->warnings())
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
  AMK_TRY(launcher->launch(sizes, arguments(), session.stream()));
  AMK_TRY(finish("the AMK kernel"));
  noteVariant();
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
    AMK_TRY(launcher->launch(sizes, args, stream));
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

/// The compute and memory ceilings of the device the case runs on, for the
/// problem's math path. Not the manifest's target: a bundle planned for
/// another GPU runs here at this GPU's speed.
void choosePeak(const Options &options, const Session &session,
                CaseResult &result) {
  const DeviceInfo *device = session.device();
  if (device)
    result.hbmGbps = static_cast<double>(device->hbm_gbps);
  if (options.peakTflops > 0) {
    result.peakTflops = options.peakTflops;
    result.peakSource = "--peak-tflops";
    return;
  }
  if (!device) {
    result.warnings.push_back("no sanity roofline: " + session.deviceError());
    return;
  }
  const GemmProblem &p = result.spec.problem;
  std::pair<const char *, int64_t> field =
      p.inType == ScalarType::BF16
          ? std::pair{"bf16_gflops", device->bf16_gflops}
      : p.inType == ScalarType::F16
          ? std::pair{"fp16_gflops", device->fp16_gflops}
      : p.precision == Precision::TF32
          ? std::pair{"tf32_gflops", device->tf32_gflops}
          : std::pair{"fp32_gflops", device->fp32_gflops};
  result.peakTflops = static_cast<double>(field.second) / 1000;
  result.peakSource = "device '" + device->name + "' " + field.first;
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

/// A time under the roofline of the device it ran on is impossible: the
/// measurement or the kernel is wrong.
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
                   const Bundle &bundle, const Sizes &sizes, int caseIndex) {
  CaseResult result;
  const Manifest &m = bundle.manifest();
  result.manifestPath = bundle.source();
  result.name = m.name;
  result.arch = m.arch;
  result.spec = GemmSpec::fromBundle(bundle, sizes);
  result.tolerances = Tolerances::of(result.spec);
  result.warnings = bundle.warnings();
  choosePeak(options, session, result);
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

} // namespace amk::bench
