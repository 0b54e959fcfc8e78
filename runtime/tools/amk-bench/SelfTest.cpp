//===- SelfTest.cpp - Test the checker and the cuBLAS mapping -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// amk-bench --self-test, on the GPU, without any bundle:
//   1. the fp64 reference GEMM against a plain CPU loop (exact);
//   2. cuBLAS through the row-major mapping, for every transpose pair, batch
//      and epilogue, against the fp64 reference: all must PASS (no false
//      alarms, and the mapping is right);
//   3. planted errors in cuBLAS's output (a NaN, one element off by a few
//      tolerances, a dropped last row, a wrong transpose, tf32 used for an
//      ieee problem): all must FAIL (the checker sees them).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace amk::runtime;

namespace amk::bench {

namespace {

//===----------------------------------------------------------------------===//
// 1. The fp64 reference against the CPU
//===----------------------------------------------------------------------===//

/// Widens one stored element to double on the host.
double hostToDouble(const unsigned char *data, ScalarType type, int64_t i) {
  switch (type) {
  case ScalarType::F32: {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  case ScalarType::BF16: {
    uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    uint32_t bits = uint32_t(h) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  case ScalarType::F16: {
    uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = exponent == 0 ? std::ldexp(mantissa, -24)
                             : std::ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -v : v;
  }
  case ScalarType::F64: {
    double v;
    std::memcpy(&v, data + 8 * i, 8);
    return v;
  }
  case ScalarType::I32: {
    int32_t v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  }
  return 0;
}

Status copyToHost(const DeviceBuffer &buffer, std::vector<unsigned char> &out) {
  out.resize(buffer.bytes());
  return cudaStatus(cudaMemcpy(out.data(), buffer.get(), buffer.bytes(),
                               cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
}

/// Compares the GPU's z and |A||B| with a CPU loop in the same summation
/// order (so the results agree exactly).
Status checkReferenceOnCpu(Session &session, const GemmSpec &spec,
                           std::string &mismatch) {
  GemmBuffers buffers;
  AMK_TRY(buffers.allocate(spec, false, false));
  AMK_TRY(prepareInputs(session, spec, buffers, 7));
  std::vector<unsigned char> a, b, z, abs;
  AMK_TRY(copyToHost(buffers.a, a));
  AMK_TRY(copyToHost(buffers.b, b));
  AMK_TRY(copyToHost(buffers.z, z));
  AMK_TRY(copyToHost(buffers.absAB, abs));
  const GemmShape &s = spec.shape;
  ScalarType in = spec.problem.inType;
  for (int64_t batch = 0; batch < s.batch; ++batch)
    for (int64_t m = 0; m < s.m; ++m)
      for (int64_t n = 0; n < s.n; ++n) {
        double sum = 0, absSum = 0;
        for (int64_t k = 0; k < s.k; ++k) {
          double av = hostToDouble(
              a.data(), in,
              batch * s.m * s.k + (s.transposeA ? k * s.m + m : m * s.k + k));
          double bv = hostToDouble(
              b.data(), in,
              batch * s.k * s.n + (s.transposeB ? n * s.k + k : k * s.n + n));
          sum = std::fma(av, bv, sum);
          absSum = std::fma(std::fabs(av), std::fabs(bv), absSum);
        }
        int64_t i = batch * s.m * s.n + m * s.n + n;
        double gz = hostToDouble(z.data(), ScalarType::F64, i);
        double ga = hostToDouble(abs.data(), ScalarType::F64, i);
        if (gz != sum || ga != absSum) {
          char text[200];
          std::snprintf(text, sizeof(text),
                        "at [%s]: GPU z %.17g |A||B| %.17g, CPU %.17g %.17g",
                        formatIndex(s, i).c_str(), gz, ga, sum, absSum);
          mismatch = text;
          return Status::success();
        }
      }
  mismatch.clear();
  return Status::success();
}

//===----------------------------------------------------------------------===//
// 2 and 3. cuBLAS through the checker
//===----------------------------------------------------------------------===//

enum class Mutation {
  None,
  NaNElement,     ///< One element set to NaN.
  OffElement,     ///< One element moved by 4 times its K-scaled tolerance.
  DroppedLastRow, ///< cuBLAS run for M-1 rows: the last row is never written.
  WrongTranspose, ///< cuBLAS told A is transposed when it is not (or not).
  TF32ForIEEE,    ///< cuBLAS allowed tf32 on an ieee fp32 problem.
};

const char *mutationName(Mutation m) {
  switch (m) {
  case Mutation::None:
    return "none";
  case Mutation::NaNElement:
    return "nan-element";
  case Mutation::OffElement:
    return "off-element";
  case Mutation::DroppedLastRow:
    return "dropped-last-row";
  case Mutation::WrongTranspose:
    return "wrong-transpose";
  case Mutation::TF32ForIEEE:
    return "tf32-for-ieee";
  }
  return "?";
}

struct SelfCase {
  GemmSpec spec;
  CublasReference::Mode mode = CublasReference::Mode::Auto;
  Mutation mutation = Mutation::None;

  std::string name() const {
    const GemmProblem &p = spec.problem;
    const GemmShape &s = spec.shape;
    char text[256];
    std::snprintf(
        text, sizeof(text),
        "%lldx%lldx%lldx%lld %s->%s%s %s%s alpha %g beta %g bias %s act %s "
        "%s, mutation %s",
        (long long)s.batch, (long long)s.m, (long long)s.n, (long long)s.k,
        toString(p.inType), toString(p.outType),
        p.precision == Precision::TF32 ? " tf32" : "", p.transposeA ? "t" : "n",
        p.transposeB ? "t" : "n", p.alpha, p.beta,
        p.bias ? (std::string(toString(spec.biasType)) +
                  (s.biasPerBatch ? "[B][N]" : "[N]"))
                     .c_str()
               : "no",
        toString(p.activation),
        mode == CublasReference::Mode::Unfused ? "unfused" : "auto",
        mutationName(mutation));
    return text;
  }
};

GemmSpec makeSpec(ScalarType in, ScalarType out, bool tf32, GemmShape shape) {
  GemmSpec spec;
  spec.problem.family = "gemm";
  spec.problem.inType = in;
  spec.problem.outType = out;
  spec.problem.accType = ScalarType::F32;
  spec.problem.precision = tf32 ? Precision::TF32 : Precision::IEEE;
  spec.problem.batch = shape.batch;
  spec.problem.m = shape.m;
  spec.problem.n = shape.n;
  spec.problem.k = shape.k;
  spec.problem.transposeA = shape.transposeA;
  spec.problem.transposeB = shape.transposeB;
  spec.shape = shape;
  spec.biasType = out;
  return spec;
}

/// Epilogue variant `which` (0..3) applied to `spec`.
void setEpilogue(GemmSpec &spec, int which) {
  GemmProblem &p = spec.problem;
  switch (which) {
  case 1:
    p.alpha = 0.5;
    p.beta = 0.75;
    p.bias = true;
    p.activation = Activation::ReLU;
    break;
  case 2:
    p.bias = true;
    p.activation = Activation::GELU;
    break;
  case 3:
    p.beta = 1.0;
    p.activation = Activation::SiLU;
    break;
  default:
    break;
  }
}

/// Every transpose pair, type combination and epilogue, on small odd shapes.
std::vector<SelfCase> passingCases() {
  struct Types {
    ScalarType in, out;
    bool tf32;
  };
  const Types types[] = {{ScalarType::F32, ScalarType::F32, false},
                         {ScalarType::F32, ScalarType::F32, true},
                         {ScalarType::BF16, ScalarType::BF16, false},
                         {ScalarType::BF16, ScalarType::F32, false},
                         {ScalarType::F16, ScalarType::F16, false},
                         {ScalarType::F16, ScalarType::F32, false}};
  const int64_t shapes[][4] = {{1, 1, 1, 1},       {1, 17, 33, 65},
                               {3, 64, 48, 40},    {2, 130, 7, 259},
                               {1, 256, 256, 256}, {4, 1, 100, 513}};
  std::vector<SelfCase> cases;
  int i = 0;
  for (const Types &t : types)
    for (int transposes = 0; transposes < 4; ++transposes)
      for (const auto &dims : shapes) {
        GemmShape shape{dims[0],
                        dims[1],
                        dims[2],
                        dims[3],
                        (transposes & 1) != 0,
                        (transposes & 2) != 0,
                        dims[0] > 1 && i % 3 == 0};
        SelfCase c;
        c.spec = makeSpec(t.in, t.out, t.tf32, shape);
        setEpilogue(c.spec, i % 4);
        if (i % 5 == 0 && c.spec.problem.bias)
          c.spec.biasType = ScalarType::F32; // A bias type unlike C's.
        c.mode = (i / 4) % 2 ? CublasReference::Mode::Unfused
                             : CublasReference::Mode::Auto;
        cases.push_back(c);
        ++i;
      }
  // Large K, where the sqrt(K) bound and the Frobenius limit are tightest.
  for (const Types &t : types) {
    SelfCase c;
    c.spec = makeSpec(t.in, t.out, t.tf32,
                      GemmShape{1, 512, 384, 8192, false, true, false});
    cases.push_back(c);
  }
  return cases;
}

std::vector<SelfCase> failingCases() {
  std::vector<SelfCase> cases;
  auto add = [&](ScalarType in, ScalarType out, GemmShape shape,
                 Mutation mutation, int epilogue = 0) {
    SelfCase c;
    c.spec = makeSpec(in, out, false, shape);
    setEpilogue(c.spec, epilogue);
    c.mutation = mutation;
    cases.push_back(c);
  };
  const ScalarType f32 = ScalarType::F32, bf16 = ScalarType::BF16,
                   f16 = ScalarType::F16;
  GemmShape square{1, 256, 256, 256, false, false, false};
  GemmShape odd{1, 130, 72, 97, false, true, false};
  for (ScalarType out : {f32, bf16, f16}) {
    ScalarType in = out == f32 ? f32 : out;
    add(in, out, square, Mutation::NaNElement);
    add(in, out, odd, Mutation::OffElement);
    add(in, out, odd, Mutation::DroppedLastRow);
    add(in, out, square, Mutation::WrongTranspose);
  }
  add(bf16, bf16, odd, Mutation::OffElement, 2);   // through gelu
  add(f32, f32, odd, Mutation::DroppedLastRow, 3); // beta: old C remains
  add(f32, f32, GemmShape{1, 256, 256, 1024, false, false, false},
      Mutation::TF32ForIEEE);
  add(f32, f32, GemmShape{1, 256, 256, 8192, true, false, false},
      Mutation::TF32ForIEEE);
  return cases;
}

/// Runs cuBLAS for `c` (with its mutation) and checks the result.
Status runSelfCase(Session &session, const SelfCase &c, uint64_t seed,
                   CheckResult &result) {
  const GemmSpec &spec = c.spec;
  GemmBuffers buffers;
  AMK_TRY(buffers.allocate(spec, false, true));
  AMK_TRY(prepareInputs(session, spec, buffers, seed));
  GemmProblem problem = spec.problem;
  GemmShape shape = spec.shape;
  if (c.mutation == Mutation::WrongTranspose)
    problem.transposeA = !problem.transposeA;
  if (c.mutation == Mutation::TF32ForIEEE)
    problem.precision = Precision::TF32;
  if (c.mutation == Mutation::DroppedLastRow)
    shape.m -= 1;
  CublasReference reference;
  CublasReference::Operands ops{buffers.a.get(), buffers.b.get(),
                                buffers.bias.get(), buffers.cRef.get()};
  AMK_TRY(reference.prepare(session.cublas(), problem, shape, spec.biasType,
                            ops, c.mode));
  void *out = buffers.cRef.get();
  AMK_TRY(prepareOutput(session, spec, buffers, out, false));
  AMK_TRY(reference.run(session.stream()));
  AMK_TRY(cudaStatus(cudaStreamSynchronize(session.stream()), "cuBLAS"));
  long long target = spec.shape.sizeC() / 2;
  if (c.mutation == Mutation::NaNElement)
    AMK_TRY(cudaStatus(perturbElement(out, spec.problem.outType, target, NAN,
                                      session.stream()),
                       "planting a NaN"));
  if (c.mutation == Mutation::OffElement) {
    // Move the element nearest to failing by 4 of its K-scaled tolerances.
    CheckResult probe;
    AMK_TRY(checkResult(session, spec, buffers, out, false, probe));
    if (probe.worst.index < 0)
      return Status::error("no element to perturb");
    AMK_TRY(
        cudaStatus(perturbElement(out, spec.problem.outType, probe.worst.index,
                                  4 * probe.worst.tolK, session.stream()),
                   "planting an error"));
  }
  return checkResult(session, spec, buffers, out, false, result);
}

} // namespace

int runSelfTest(Session &session, const Options &options) {
  int unexpected = 0, total = 0;
  // 1. The fp64 reference.
  for (ScalarType in : {ScalarType::F32, ScalarType::BF16, ScalarType::F16})
    for (int transposes = 0; transposes < 4; ++transposes) {
      GemmSpec spec = makeSpec(in, ScalarType::F32, false,
                               GemmShape{2, 70, 131, 37, (transposes & 1) != 0,
                                         (transposes & 2) != 0, false});
      std::string mismatch;
      Status s = checkReferenceOnCpu(session, spec, mismatch);
      ++total;
      if (!s.ok() || !mismatch.empty()) {
        ++unexpected;
        std::printf("UNEXPECTED fp64 reference %s %s%s: %s\n", toString(in),
                    transposes & 1 ? "t" : "n", transposes & 2 ? "t" : "n",
                    s.ok() ? mismatch.c_str() : s.message().c_str());
      }
    }
  std::printf("self-test: fp64 reference GEMM vs CPU: %d cases\n", total);

  // 2 and 3. cuBLAS through the checker.
  auto run = [&](const std::vector<SelfCase> &cases, bool expectPass) {
    for (size_t i = 0; i < cases.size(); ++i) {
      CheckResult result;
      Status s = runSelfCase(session, cases[i], options.seed + i, result);
      ++total;
      bool asExpected = s.ok() && result.pass == expectPass;
      // How close legitimate results come to the limits, where they are
      // tightest.
      if (asExpected && expectPass && cases[i].spec.shape.k >= 4096)
        std::printf("margin  %s: max err/tol %.3g, rel_frob %.3g (limit "
                    "%.3g)\n",
                    cases[i].name().c_str(), result.stats.maxErrOverTol,
                    result.relFrob, result.frobLimit);
      if (asExpected && !expectPass)
        std::printf("caught  %s: %s\n", cases[i].name().c_str(),
                    result.failures.front().c_str());
      if (asExpected)
        continue;
      ++unexpected;
      std::printf("UNEXPECTED %s: %s\n", cases[i].name().c_str(),
                  !s.ok()      ? s.message().c_str()
                  : expectPass ? result.failures.front().c_str()
                               : "the planted error passed the check");
      if (s.ok() && expectPass)
        std::printf("  max err/tol %.3g, rel_frob %.3g (limit %.3g)\n",
                    result.stats.maxErrOverTol, result.relFrob,
                    result.frobLimit);
    }
  };
  std::vector<SelfCase> passing = passingCases(), failing = failingCases();
  run(passing, true);
  std::printf("self-test: cuBLAS mapping, %zu cases that must pass\n",
              passing.size());
  run(failing, false);
  std::printf("self-test: %zu planted errors that must be caught\n",
              failing.size());
  std::printf("self-test: %d cases, %d unexpected: %s\n", total, unexpected,
              unexpected ? "FAIL" : "PASS");
  return unexpected;
}

} // namespace amk::bench
