//===- Report.cpp - amk-bench's lines, table, JSON and --list -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sys/stat.h>

using namespace amk::runtime;

namespace amk::bench {

std::string formatIndex(const GemmShape &s, long long index) {
  if (index < 0)
    return "-";
  long long n = index % s.n, m = (index / s.n) % s.m, b = index / (s.n * s.m);
  return std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(n);
}

static std::string formatSizes(const GemmShape &s) {
  return std::to_string(s.batch) + "x" + std::to_string(s.m) + "x" +
         std::to_string(s.n) + "x" + std::to_string(s.k);
}

static std::string formatTypes(const GemmProblem &p) {
  std::string text = std::string(toString(p.inType)) + "->" +
                     toString(p.outType) + " " + (p.transposeA ? "t" : "n") +
                     (p.transposeB ? "t" : "n");
  if (p.precision == Precision::TF32)
    text += " tf32";
  return text;
}

static std::string format(const char *spec, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), spec, value);
  return buf;
}

//===----------------------------------------------------------------------===//
// Lines and table
//===----------------------------------------------------------------------===//

void printCaseLine(const CaseResult &r, int index, int count) {
  std::printf("[%d/%d] %s %s %s: %s", index + 1, count, r.name.c_str(),
              formatSizes(r.spec.shape).c_str(),
              formatTypes(r.spec.problem).c_str(), r.status.c_str());
  if (const CheckResult *c = r.worstAmk())
    std::printf("  err/tol %.3g  rel_frob %.3g (limit %.3g)",
                c->stats.maxErrOverTol, c->relFrob, c->frobLimit);
  if (r.timed) {
    std::printf("\n      AMK %.2f us (%.1f TFLOP/s, %.1f%% of %.0f)",
                r.amkTime.medianUs, r.amkTflops(),
                r.peakTflops > 0 ? 100 * r.amkTflops() / r.peakTflops : 0.0,
                r.peakTflops);
    if (r.cublasTime.iters)
      std::printf("  cuBLAS %.2f us (%.1f TFLOP/s)  speed %.3f",
                  r.cublasTime.medianUs, r.cublasTflops(), r.speed());
  }
  std::printf("\n");
  if (!r.error.empty())
    std::printf("      error: %s\n", r.error.c_str());
  for (const std::string &why : r.reasons)
    std::printf("      fail: %s\n", why.c_str());
  for (const std::string &note : r.warnings)
    std::printf("      warning: %s\n", note.c_str());
  std::fflush(stdout);
}

void printTable(const std::vector<CaseResult> &results) {
  std::printf("\n%-3s %-36s %-20s %-15s %-6s %8s %9s %10s %10s %7s %9s %9s "
              "%6s\n",
              "#", "case", "BxMxNxK", "types", "verdict", "err/tol", "rel_frob",
              "AMK us", "cuBLAS us", "speed", "AMK TF/s", "cuBL TF/s", "%peak");
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult &r = results[i];
    std::string name =
        r.name.size() > 36 ? r.name.substr(0, 33) + "..." : r.name;
    const CheckResult *c = r.worstAmk();
    std::string errTol = c ? format("%.3g", c->stats.maxErrOverTol) : "-";
    std::string frob = c ? format("%.2e", c->relFrob) : "-";
    bool haveRef = r.timed && r.cublasTime.iters;
    std::printf("%-3zu %-36s %-20s %-15s %-6s %8s %9s %10s %10s %7s %9s %9s "
                "%6s\n",
                i + 1, name.c_str(), formatSizes(r.spec.shape).c_str(),
                formatTypes(r.spec.problem).c_str(), r.status.c_str(),
                errTol.c_str(), frob.c_str(),
                r.timed ? format("%.2f", r.amkTime.medianUs).c_str() : "-",
                haveRef ? format("%.2f", r.cublasTime.medianUs).c_str() : "-",
                haveRef ? format("%.3f", r.speed()).c_str() : "-",
                r.timed ? format("%.1f", r.amkTflops()).c_str() : "-",
                haveRef ? format("%.1f", r.cublasTflops()).c_str() : "-",
                r.timed && r.peakTflops > 0
                    ? format("%.1f", 100 * r.amkTflops() / r.peakTflops).c_str()
                    : "-");
  }
  std::printf("speed = cuBLAS time / AMK time (> 1: AMK faster); times are "
              "medians of CUDA-event timings after an L2 flush\n");
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static JsonValue number(double v) { return JsonValue::number(v); }
static JsonValue integer(long long v) { return JsonValue::integer(v); }
static JsonValue text(const std::string &v) { return JsonValue::string(v); }

static JsonValue strings(const std::vector<std::string> &list) {
  JsonValue array = JsonValue::array();
  for (const std::string &s : list)
    array.push(text(s));
  return array;
}

static JsonValue elementJson(const GemmShape &shape, const ElementReport &e) {
  if (e.index < 0)
    return JsonValue();
  JsonValue o = JsonValue::object();
  JsonValue at = JsonValue::array();
  at.push(integer(e.index / (shape.m * shape.n)));
  at.push(integer((e.index / shape.n) % shape.m));
  at.push(integer(e.index % shape.n));
  o.set("index", at); // [b, m, n]
  o.set("value", number(e.value));
  o.set("ref", number(e.ref));
  o.set("err", number(e.err));
  o.set("tol_sqrtk", number(e.tolSqrtK));
  o.set("tol_k", number(e.tolK));
  return o;
}

JsonValue CheckResult::toJson(const GemmShape &shape) const {
  JsonValue o = JsonValue::object();
  o.set("pass", JsonValue::boolean(pass));
  o.set("elements", integer(static_cast<long long>(stats.elements)));
  o.set("nonfinite", integer(static_cast<long long>(stats.nonfinite)));
  o.set("over_sqrtk_bound", integer(static_cast<long long>(stats.overSqrtK)));
  o.set("over_k_bound", integer(static_cast<long long>(stats.overK)));
  o.set("bad_in_partial_tiles",
        integer(static_cast<long long>(stats.badInPartialTiles)));
  o.set("max_abs_err", number(stats.maxAbsErr));
  o.set("max_err_over_tol", number(stats.maxErrOverTol));
  o.set("rel_frob", number(relFrob));
  o.set("frob_limit", number(frobLimit));
  o.set("out_norm", number(outNorm));
  o.set("ref_norm", number(refNorm));
  o.set("guard_checked", JsonValue::boolean(guardChecked));
  o.set("guard_bytes_changed",
        integer(static_cast<long long>(guardBytesChanged)));
  o.set("worst", elementJson(shape, worst));
  o.set("first_bad", elementJson(shape, firstBad));
  o.set("failures", strings(failures));
  return o;
}

JsonValue TimingStats::toJson() const {
  JsonValue o = JsonValue::object();
  o.set("iters", integer(iters));
  o.set("median_us", number(medianUs));
  o.set("min_us", number(minUs));
  o.set("mean_us", number(meanUs));
  o.set("max_us", number(maxUs));
  return o;
}

static JsonValue problemJson(const GemmSpec &spec) {
  const GemmProblem &p = spec.problem;
  JsonValue o = JsonValue::object();
  o.set("in_type", text(toString(p.inType)));
  o.set("acc_type", text(toString(p.accType)));
  o.set("out_type", text(toString(p.outType)));
  o.set("transpose_a", JsonValue::boolean(p.transposeA));
  o.set("transpose_b", JsonValue::boolean(p.transposeB));
  o.set("precision", text(toString(p.precision)));
  o.set("alpha", number(p.alpha));
  o.set("beta", number(p.beta));
  o.set("bias", JsonValue::boolean(p.bias));
  if (p.bias) {
    o.set("bias_type", text(toString(spec.biasType)));
    o.set("bias_per_batch", JsonValue::boolean(spec.shape.biasPerBatch));
  }
  o.set("activation", text(toString(p.activation)));
  return o;
}

static JsonValue timingJson(const CaseResult &r) {
  JsonValue o = JsonValue::object();
  o.set("warmup", integer(r.warmup));
  o.set("l2_flush_bytes", integer(static_cast<long long>(r.flushBytes)));
  JsonValue amk = r.amkTime.toJson();
  amk.set("tflops", number(r.amkTflops()));
  o.set("amk", amk);
  if (r.cublasTime.iters) {
    JsonValue ref = r.cublasTime.toJson();
    ref.set("tflops", number(r.cublasTflops()));
    o.set("cublas", ref);
    o.set("speed", number(r.speed()));
  }
  o.set("peak_tflops", number(r.peakTflops));
  o.set("peak_source", text(r.peakSource));
  if (r.peakTflops > 0) {
    o.set("amk_pct_of_peak", number(100 * r.amkTflops() / r.peakTflops));
    if (r.cublasTime.iters)
      o.set("cublas_pct_of_peak",
            number(100 * r.cublasTflops() / r.peakTflops));
  }
  o.set("hbm_gbps", number(r.hbmGbps));
  o.set("min_bytes", number(r.spec.minBytes()));
  o.set("roofline_us", number(r.rooflineUs()));
  if (r.rooflineUs() > 0)
    o.set("amk_pct_of_roofline",
          number(100 * r.rooflineUs() / r.amkTime.medianUs));
  return o;
}

/// Measured over predicted above this flags the cost model for
/// recalibration.
static constexpr double kSlowerThanModel = 2.0;

static bool mentions(const std::string &text,
                     std::initializer_list<const char *> words) {
  for (const char *w : words)
    if (text.find(w) != std::string::npos)
      return true;
  return false;
}

JsonValue CaseResult::traceJson() const {
  std::string stage = "done", cls = "ok", detail;
  JsonValue flags = JsonValue::array();
  if (status == "ERROR") {
    detail = error;
    if (hung) {
      stage = "launch";
      cls = "hang";
    } else if (mentions(error, {"OUT_OF_RESOURCES", "out of resources",
                                "too many resources", "shared memory"})) {
      stage = "launch";
      cls = "out-of-resources";
    } else if (mentions(error, {"load", "arch", "NO_BINARY", "INVALID_IMAGE",
                                "INVALID_PTX", "manifest"})) {
      stage = "load";
      cls = "load-error";
    } else {
      stage = "launch";
      cls = "launch-error";
    }
  } else if (status == "FAIL") {
    stage = "check";
    const CheckResult *worst = worstAmk();
    unsigned long long bad =
        worst ? worst->stats.nonfinite + worst->stats.overK : 0;
    unsigned long long edge = worst ? worst->stats.badInPartialTiles : 0;
    bool referenceSuspect = false;
    for (const CheckResult &c : cublasTrials)
      referenceSuspect |= !c.pass;
    if (referenceSuspect) {
      cls = "reference-suspect";
    } else if (bad > 0 && edge == bad) {
      cls = "mismatch-edge";
      detail = "all " + std::to_string(bad) +
               " wrong elements lie in the last, partial tile row or column";
    } else if (bad > 0) {
      cls = "mismatch";
      detail = std::to_string(bad) + " wrong elements, " +
               std::to_string(edge) + " of them in partial tiles";
    } else if (timed) {
      stage = "time";
      cls = "implausible-time";
    } else {
      cls = "mismatch";
    }
    if (detail.empty() && !reasons.empty())
      detail = reasons.front();
  } else if (!timed) {
    stage = "check";
  }
  if (attrs.localBytesPerThread > 0)
    flags.push(JsonValue::string("spills"));
  double ratio = timed && predictedUs > 0 ? amkTime.medianUs / predictedUs : 0;
  if (ratio > kSlowerThanModel)
    flags.push(JsonValue::string("slower-than-model"));
  JsonValue o = JsonValue::object();
  o.set("stage", text(stage));
  o.set("class", text(cls));
  o.set("detail", text(detail));
  o.set("flags", flags);
  o.set("predicted_us", number(predictedUs));
  o.set("measured_over_predicted", number(ratio));
  return o;
}

JsonValue CaseResult::toJson() const {
  JsonValue o = JsonValue::object();
  o.set("manifest", text(manifestPath));
  o.set("name", text(name));
  o.set("arch", text(arch));
  JsonValue sizes = JsonValue::object();
  sizes.set("B", integer(spec.shape.batch));
  sizes.set("M", integer(spec.shape.m));
  sizes.set("N", integer(spec.shape.n));
  sizes.set("K", integer(spec.shape.k));
  o.set("sizes", sizes);
  o.set("problem", problemJson(spec));
  o.set("flops", number(spec.flops()));
  o.set("status", text(status));
  o.set("not_run", JsonValue::boolean(notRun));
  if (!error.empty())
    o.set("error", text(error));
  o.set("reasons", strings(reasons));
  o.set("warnings", strings(warnings));
  JsonValue kernel = JsonValue::object();
  kernel.set("registers", integer(attrs.numRegisters));
  kernel.set("static_smem_bytes", integer(attrs.staticSmemBytes));
  kernel.set("local_bytes_per_thread", integer(attrs.localBytesPerThread));
  kernel.set("max_threads_per_block", integer(attrs.maxThreadsPerBlock));
  kernel.set("loaded_from_ptx", JsonValue::boolean(fromPtx));
  o.set("kernel", kernel);
  o.set("kernels", integer(static_cast<long long>(kernels)));
  if (variant >= 0)
    o.set("variant", integer(variant));
  JsonValue tol = JsonValue::object();
  tol.set("u_in", number(tolerances.uIn));
  tol.set("u_acc", number(tolerances.uAcc));
  tol.set("u_out", number(tolerances.uOut));
  tol.set("frob_limit", number(tolerances.frobLimit));
  tol.set("elementwise", text("|C-ref| <= L*(|alpha|*4*(u_in+sqrt(K)*u_acc)*"
                              "(|A||B|) + e_epilogue) + u_out*|ref|; over it, "
                              "re-checked with K for sqrt(K)"));
  tol.set("gelu", text("erf form: 0.5*x*(1+erf(x/sqrt(2)))"));
  o.set("tolerance", tol);
  JsonValue check = JsonValue::object();
  JsonValue amk = JsonValue::array(), ref = JsonValue::array();
  for (const CheckResult &c : amkTrials)
    amk.push(c.toJson(spec.shape));
  for (const CheckResult &c : cublasTrials)
    ref.push(c.toJson(spec.shape));
  check.set("amk", amk);
  check.set("cublas", ref);
  o.set("check", check);
  o.set("cublas_reference", text(cublasDescription));
  if (timed)
    o.set("timing", timingJson(*this));
  o.set("trace", traceJson());
  return o;
}

//===----------------------------------------------------------------------===//
// --list
//===----------------------------------------------------------------------===//

static std::string describeShape(const BufferSpec &buffer) {
  std::string text = "[";
  for (size_t i = 0; i < buffer.shape.size(); ++i) {
    const ShapeDim &d = buffer.shape[i];
    text += (i ? ", " : "") +
            (d.symbol.empty() ? std::to_string(d.extent) : d.symbol);
  }
  return text + "]";
}

static const char *fileState(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 ? "present" : "MISSING";
}

static void printProblem(const Bundle &bundle) {
  GemmProblem p;
  if (Status s = readGemmProblem(bundle, p); !s.ok()) {
    std::printf("  problem: %s\n", s.message().c_str());
    return;
  }
  std::printf("  problem gemm %s, %s x %s -> %s (acc %s), %s%s, %s, alpha %g "
              "beta %g, bias %s, activation %s\n",
              bundle.manifest().sizes.toString().c_str(), toString(p.inType),
              toString(p.inType), toString(p.outType), toString(p.accType),
              p.transposeA ? "t" : "n", p.transposeB ? "t" : "n",
              toString(p.precision), p.alpha, p.beta, p.bias ? "yes" : "no",
              toString(p.activation));
}

static void printKernel(const Bundle &bundle, size_t index) {
  const KernelSpec &k = bundle.manifest().kernels[index];
  std::printf("  kernel %s: entry %s, block [%lld, %lld, %lld], grid [%s, %s, "
              "%s], dynamic smem %lld bytes\n",
              k.name.c_str(), k.entry.c_str(), (long long)k.block[0],
              (long long)k.block[1], (long long)k.block[2], k.grid[0].c_str(),
              k.grid[1].c_str(), k.grid[2].c_str(),
              (long long)k.dynamicSmemBytes);
  std::string params;
  for (const std::string &name : k.params)
    params += (params.empty() ? "" : ", ") + name;
  std::printf("    params %s; cubin %s (%s), ptx %s (%s)\n", params.c_str(),
              k.cubin.c_str(), fileState(bundle.cubinPath(index)),
              k.ptx.c_str(), fileState(bundle.ptxPath(index)));
  if (!k.config.empty())
    std::printf("    config %s\n", k.config.c_str());
}

static void printVariants(const Manifest &m) {
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantSpec &v = m.variants[i];
    std::string steps;
    for (size_t index : v.order) {
      const StepSpec &step = v.steps[index];
      steps += (steps.empty() ? "" : ", ") +
               (step.kind == StepSpec::Kind::Kernel ? step.kernel
                                                    : "zero " + step.buffer);
    }
    std::printf("  variant %zu when %s: %s\n", i,
                v.when.empty() ? "always" : v.when.c_str(), steps.c_str());
  }
}

static void printManifest(const Bundle &bundle) {
  const Manifest &m = bundle.manifest();
  std::printf("%s\n", bundle.source().c_str());
  std::printf("  name %s, schema %lld, family %s, arch %s, verdict %s\n",
              m.name.c_str(), (long long)m.schema, m.family.c_str(),
              m.arch.c_str(), m.verdictStatus.c_str());
  if (m.family == "gemm")
    printProblem(bundle);
  else
    std::printf("  problem %s, sizes %s\n", m.signature.c_str(),
                m.sizes.toString().c_str());
  for (const BufferSpec &arg : m.args)
    std::printf("  arg %s: %s %s %s\n", arg.name.c_str(), arg.kind.c_str(),
                toString(arg.elem), describeShape(arg).c_str());
  for (const BufferSpec &buffer : m.workspace)
    std::printf("  workspace %s: %s %s\n", buffer.name.c_str(),
                toString(buffer.elem), describeShape(buffer).c_str());
  for (size_t i = 0; i < m.kernels.size(); ++i)
    printKernel(bundle, i);
  printVariants(m);
  std::printf("  target %s (%s, %lld SMs)\n", m.target.name.c_str(),
              m.target.arch.c_str(), (long long)m.target.sm_count);
  for (const std::string &note : bundle.warnings())
    std::printf("  warning: %s\n", note.c_str());
}

int listManifests(const Options &options) {
  int failed = 0;
  for (const std::string &path : options.manifests) {
    Bundle bundle;
    if (Status s = Bundle::loadManifest(path, bundle); !s.ok()) {
      std::printf("%s\n  error: %s\n", path.c_str(), s.message().c_str());
      ++failed;
      continue;
    }
    printManifest(bundle);
  }
  return failed ? 1 : 0;
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
