//===- ManifestV1.cpp - Schema-1 manifests: one GEMM kernel ---------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Schema 1 (docs/BUNDLE.md) is what the compiler writes today: one kernel of
// family "gemm", its launch at the top level. It reads into the schema-2
// model: sizes B, M, N, K from the problem's batch, m, n, k; one kernel named
// after the manifest, taking every argument in order; one variant without a
// condition, whose steps are the kernel, after zeroing C (the last argument)
// when the manifest says zero_output.
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

namespace amk::runtime {

namespace {

/// The problem's family and signature, and its batch, m, n, k as the sizes.
Status readProblemV1(const ManifestReader &reader, const JsonValue &json,
                     Manifest &m) {
  const JsonValue *problem;
  if (Status s = reader.getObject(json, "", "problem", problem); !s.ok())
    return s;
  m.problem = *problem;
  if (Status s = reader.getString(*problem, "problem", "family", m.family);
      !s.ok())
    return s;
  if (m.family != "gemm")
    return reader.error(*problem->find("family"), "problem.family",
                        "unsupported problem family '" + m.family +
                            "' (schema 1 defines \"gemm\")");
  if (Status s =
          reader.getString(*problem, "problem", "signature", m.signature);
      !s.ok())
    return s;
  for (auto [key, symbol] :
       {std::pair{"batch", "B"}, {"m", "M"}, {"n", "N"}, {"k", "K"}}) {
    int64_t value;
    if (Status s = reader.getInt(*problem, "problem", key, value); !s.ok())
      return s;
    if (value < 1 && value != kDynamicSize)
      return reader.error(*problem->find(key), std::string("problem.") + key,
                          "must be positive, or -1 when dynamic (got " +
                              std::to_string(value) + ")");
    m.sizes.set(symbol, value);
  }
  return Status::success();
}

/// The launch of the one kernel: what schema 1 writes at the top level.
Status readKernelV1(const ManifestReader &reader, const JsonValue &json,
                    Manifest &m, KernelSpec &kernel) {
  Status s = reader.getString(json, "", "config", kernel.config);
  if (s.ok())
    s = readLaunchConfig(reader, json, "", m.sizes, kernel);
  if (s.ok())
    s = readBuffers(reader, json, "args", m.sizes, true, m.args);
  if (s.ok())
    s = readTopVerdict(reader, json, m);
  if (s.ok())
    s = reader.getString(json, "", "cache_key", kernel.cacheKey);
  kernel.name = m.name;
  kernel.verdictStatus = m.verdictStatus;
  kernel.verdict = m.verdict;
  for (const BufferSpec &arg : m.args)
    kernel.params.push_back(arg.name);
  return s;
}

/// One variant: [zero C,] the kernel.
Status buildVariantV1(const ManifestReader &reader, const JsonValue &json,
                      Manifest &m) {
  bool zeroOutput = false; // Optional (older manifests lack it).
  if (json.find("zero_output"))
    if (Status s = reader.getBool(json, "", "zero_output", zeroOutput); !s.ok())
      return s;
  VariantSpec variant;
  StepSpec kernel;
  kernel.id = "kernel";
  kernel.kernel = m.name;
  if (zeroOutput && !m.args.empty()) {
    StepSpec zero;
    zero.id = "zero";
    zero.kind = StepSpec::Kind::Zero;
    zero.buffer = m.args.back().name;
    kernel.after.push_back(zero.id);
    variant.steps.push_back(zero);
  }
  variant.steps.push_back(kernel);
  for (size_t i = 0; i < variant.steps.size(); ++i)
    variant.order.push_back(i);
  m.variants.push_back(variant);
  return Status::success();
}

} // namespace

Status readManifestV1(const ManifestReader &reader, const JsonValue &json,
                      Manifest &m) {
  KernelSpec kernel;
  Status s;
  for (auto [key, field] : {std::pair{"name", &m.name},
                            {"entry", &kernel.entry},
                            {"cubin", &kernel.cubin},
                            {"ptx", &kernel.ptx}})
    if (s.ok())
      s = reader.getString(json, "", key, *field);
  if (s.ok())
    s = readArchAndTarget(reader, json, m.arch, m.target);
  if (s.ok())
    s = readProblemV1(reader, json, m);
  if (s.ok())
    s = readKernelV1(reader, json, m, kernel);
  if (s.ok() && json.find("flags"))
    s = reader.getString(json, "", "flags", m.flags, true);
  if (s.ok())
    s = buildVariantV1(reader, json, m);
  if (!s.ok())
    return s;
  m.kernels.push_back(kernel);
  reader.noteUnknownKeys(json, "", {"schema",      "name",
                                    "entry",       "cubin",
                                    "ptx",         "arch",
                                    "target",      "problem",
                                    "config",      "block",
                                    "grid",        "dynamic_smem_bytes",
                                    "zero_output", "estimated_regs_per_thread",
                                    "tile",        "predicted_us",
                                    "args",        "verdict",
                                    "flags",       "cache_key"});
  return Status::success();
}

} // namespace amk::runtime
