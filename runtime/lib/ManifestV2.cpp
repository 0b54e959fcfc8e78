//===- ManifestV2.cpp - Schema-2 manifests: kernels, variants, steps ------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Schema 2 (docs/BUNDLE.md): declared size symbols, argument and workspace
// buffers, several kernels, and variants of steps. Everything a launch will
// look up by name is resolved here, so a bad bundle fails when it loads,
// naming the field and the entry, and never half-way through a launch.
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

#include "AMK/Runtime/LaunchPlan.h"

#include <sys/stat.h>

namespace amk::runtime {

namespace {

using Reader = ManifestReader;

//===----------------------------------------------------------------------===//
// Sizes, problem, buffers
//===----------------------------------------------------------------------===//

Status readSizes(const Reader &reader, const JsonValue &json, Manifest &m) {
  const JsonValue *sizes;
  if (Status s = reader.getObject(json, "", "sizes", sizes); !s.ok())
    return s;
  for (const JsonValue::Member &member : sizes->getObject()) {
    std::string path = Reader::join("sizes", member.first);
    if (!isSizeSymbol(member.first))
      return reader.error(member.second, path,
                          "'" + member.first +
                              "' is not a symbol ([A-Za-z_][A-Za-z0-9_]*)");
    int64_t value;
    if (Status s = reader.toInt(member.second, path, value); !s.ok())
      return s;
    if (value < 1 && value != kDynamicSize)
      return reader.error(member.second, path,
                          "must be positive, or -1 when dynamic (got " +
                              std::to_string(value) + ")");
    m.sizes.set(member.first, value);
  }
  return Status::success();
}

Status readProblem(const Reader &reader, const JsonValue &json, Manifest &m) {
  if (Status s = reader.getString(json, "", "family", m.family); !s.ok())
    return s;
  const JsonValue *problem;
  if (Status s = reader.getObject(json, "", "problem", problem); !s.ok())
    return s;
  m.problem = *problem;
  std::string family;
  if (Status s = reader.getString(*problem, "problem", "family", family);
      !s.ok())
    return s;
  if (family != m.family)
    return reader.error(*problem->find("family"), "problem.family",
                        "'" + family +
                            "' differs from the manifest's family '" +
                            m.family + "'");
  return reader.getString(*problem, "problem", "signature", m.signature);
}

/// Args and workspace share one namespace: steps and params name them.
Status checkUniqueBuffers(const Reader &reader, const JsonValue &json,
                          const Manifest &m) {
  for (size_t i = 0; i < m.bufferCount(); ++i) {
    int first = m.findBuffer(m.buffer(i).name);
    if (first == static_cast<int>(i))
      continue;
    auto path = [&](size_t index) {
      return index < m.args.size()
                 ? Reader::index("args", index)
                 : Reader::index("workspace", index - m.args.size());
    };
    bool isArg = i < m.args.size();
    const JsonValue &entry = json.find(isArg ? "args" : "workspace")
                                 ->getArray()[isArg ? i : i - m.args.size()];
    return reader.error(*entry.find("name"), path(i) + ".name",
                        "duplicate buffer name '" + m.buffer(i).name +
                            "' (also " + path(first) + ")");
  }
  return Status::success();
}

Status readAllBuffers(const Reader &reader, const JsonValue &json,
                      Manifest &m) {
  if (Status s = readBuffers(reader, json, "args", m.sizes, true, m.args);
      !s.ok())
    return s;
  if (json.find("workspace"))
    if (Status s =
            readBuffers(reader, json, "workspace", m.sizes, false, m.workspace);
        !s.ok())
      return s;
  return checkUniqueBuffers(reader, json, m);
}

std::vector<std::string> bufferNames(const Manifest &m) {
  std::vector<std::string> names;
  for (size_t i = 0; i < m.bufferCount(); ++i)
    names.push_back(m.buffer(i).name);
  return names;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// One entry of "tensor_maps": a new name, an argument or workspace buffer,
/// a box per dimension in [1, 256], a swizzle the hardware has whose span
/// holds the box's rows.
Status readTensorMap(const Reader &reader, const JsonValue &json,
                     const std::string &index, const Manifest &m,
                     const KernelSpec &kernel, TensorMapSpec &map) {
  if (Status s = reader.expectKind(json, index, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (Status s = reader.getString(json, index, "name", map.name); !s.ok())
    return s;
  std::string path = Reader::labeled(index, map.name);
  if (m.findBuffer(map.name) >= 0 || kernel.findTensorMap(map.name) >= 0)
    return reader.error(*json.find("name"), path + ".name",
                        "tensor map name '" + map.name +
                            "' is already a buffer's or another map's");
  if (Status s = reader.getString(json, path, "buffer", map.buffer); !s.ok())
    return s;
  int buffer = m.findBuffer(map.buffer);
  if (buffer < 0)
    return reader.error(*json.find("buffer"), path + ".buffer",
                        "unknown buffer '" + map.buffer + "' (buffers: " +
                            listNames(bufferNames(m), "and") + ")");
  const BufferSpec &spec = m.buffer(static_cast<size_t>(buffer));
  const JsonValue *box;
  if (Status s = reader.getArray(json, path, "box", box); !s.ok())
    return s;
  if (box->getArray().size() != spec.shape.size() || spec.shape.size() > 5)
    return reader.error(*box, path + ".box",
                        "needs one extent per dimension of '" + map.buffer +
                            "' (" + std::to_string(spec.shape.size()) +
                            ", at most 5)");
  for (size_t i = 0; i < box->getArray().size(); ++i) {
    int64_t extent = 0;
    std::string at = Reader::index(path + ".box", i);
    if (Status s = reader.toInt(box->getArray()[i], at, extent); !s.ok())
      return s;
    if (extent < 1 || extent > 256)
      return reader.error(box->getArray()[i], at,
                          "a box extent is in [1, 256], got " +
                              std::to_string(extent));
    map.box.push_back(extent);
  }
  if (Status s = reader.getInt(json, path, "swizzle_bytes", map.swizzleBytes);
      !s.ok())
    return s;
  int64_t rowBytes = map.box[0] * byteSize(spec.elem);
  if (map.swizzleBytes != 0 && map.swizzleBytes != 32 &&
      map.swizzleBytes != 64 && map.swizzleBytes != 128)
    return reader.error(*json.find("swizzle_bytes"), path + ".swizzle_bytes",
                        "a swizzle spans 0, 32, 64 or 128 bytes");
  if (rowBytes % 16 != 0 || (map.swizzleBytes && rowBytes > map.swizzleBytes))
    return reader.error(*box, path + ".box",
                        "the box's rows are " + std::to_string(rowBytes) +
                            " bytes: a multiple of 16, at most the swizzle "
                            "span");
  reader.noteUnknownKeys(json, path,
                         {"name", "buffer", "box", "swizzle_bytes"});
  return Status::success();
}

Status readTensorMaps(const Reader &reader, const JsonValue &json,
                      const std::string &path, const Manifest &m,
                      KernelSpec &kernel) {
  if (!json.find("tensor_maps"))
    return Status::success();
  const JsonValue *list;
  if (Status s = reader.getArray(json, path, "tensor_maps", list); !s.ok())
    return s;
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    TensorMapSpec map;
    if (Status s = readTensorMap(reader, list->getArray()[i],
                                 Reader::index(path + ".tensor_maps", i), m,
                                 kernel, map);
        !s.ok())
      return s;
    kernel.tensorMaps.push_back(std::move(map));
  }
  return Status::success();
}

Status readParams(const Reader &reader, const JsonValue &json,
                  const std::string &path, const Manifest &m,
                  KernelSpec &kernel) {
  const JsonValue *params;
  if (Status s = reader.getArray(json, path, "params", params); !s.ok())
    return s;
  for (size_t i = 0; i < params->getArray().size(); ++i) {
    const JsonValue &v = params->getArray()[i];
    std::string at = Reader::index(path + ".params", i), name;
    if (Status s = reader.toString(v, at, name); !s.ok())
      return s;
    if (m.findBuffer(name) < 0 && kernel.findTensorMap(name) < 0)
      return reader.error(v, at,
                          "unknown buffer '" + name + "' (buffers: " +
                              listNames(bufferNames(m), "and") + ")");
    kernel.params.push_back(name);
  }
  return Status::success();
}

/// The optional "config", "cache_key" and "verdict".
Status readKernelProvenance(const Reader &reader, const JsonValue &json,
                            const std::string &path, KernelSpec &kernel) {
  if (json.find("config"))
    if (Status s = reader.getString(json, path, "config", kernel.config);
        !s.ok())
      return s;
  if (json.find("cache_key"))
    if (Status s = reader.getString(json, path, "cache_key", kernel.cacheKey);
        !s.ok())
      return s;
  if (const JsonValue *verdict = json.find("verdict"))
    return readVerdict(reader, *verdict, Reader::join(path, "verdict"),
                       kernel.verdictStatus, kernel.verdict);
  return Status::success();
}

bool isFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

Status readKernel(const Reader &reader, const JsonValue &json,
                  const std::string &index, const std::string &dir,
                  const Manifest &m, KernelSpec &kernel) {
  if (Status s = reader.expectKind(json, index, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (Status s = reader.getString(json, index, "name", kernel.name); !s.ok())
    return s;
  std::string path = Reader::labeled(index, kernel.name);
  Status s;
  for (auto [key, field] : {std::pair{"entry", &kernel.entry},
                            {"cubin", &kernel.cubin},
                            {"ptx", &kernel.ptx}})
    if (s.ok())
      s = reader.getString(json, path, key, *field);
  if (s.ok() && !isFile(dir + "/" + kernel.cubin))
    s = reader.error(*json.find("cubin"), path + ".cubin",
                     "no cubin '" + kernel.cubin + "' in '" + dir + "'");
  if (s.ok())
    s = readLaunchConfig(reader, json, path, m.sizes, kernel);
  if (s.ok())
    s = readTensorMaps(reader, json, path, m, kernel);
  if (s.ok())
    s = readParams(reader, json, path, m, kernel);
  if (s.ok())
    s = readKernelProvenance(reader, json, path, kernel);
  if (s.ok() && json.find("cooperative"))
    s = reader.getBool(json, path, "cooperative", kernel.cooperative);
  if (s.ok() && json.find("programmatic"))
    s = reader.getBool(json, path, "programmatic", kernel.programmatic);
  if (s.ok())
    reader.noteUnknownKeys(json, path,
                           {"name", "entry", "cubin", "ptx", "config", "block",
                            "grid", "dynamic_smem_bytes",
                            "estimated_regs_per_thread", "params",
                            "cooperative", "programmatic", "tensor_maps",
                            "tile", "predicted_us", "cache_key", "verdict"});
  return s;
}

Status readKernels(const Reader &reader, const JsonValue &json,
                   const std::string &dir, Manifest &m) {
  const JsonValue *list;
  if (Status s = reader.getArray(json, "", "kernels", list); !s.ok())
    return s;
  if (list->getArray().empty())
    return reader.error(*list, "kernels", "a bundle needs a kernel");
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    const JsonValue &entry = list->getArray()[i];
    KernelSpec kernel;
    std::string index = Reader::index("kernels", i);
    if (Status s = readKernel(reader, entry, index, dir, m, kernel); !s.ok())
      return s;
    if (int first = m.findKernel(kernel.name); first >= 0)
      return reader.error(*entry.find("name"), index + ".name",
                          "duplicate kernel name '" + kernel.name + "' (also " +
                              Reader::index("kernels", first) + ")");
    m.kernels.push_back(std::move(kernel));
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Variants and steps
//===----------------------------------------------------------------------===//

/// What a step does: "kernel" or "zero", exactly one, naming what exists.
Status readStepAction(const Reader &reader, const JsonValue &json,
                      const std::string &path, const Manifest &m,
                      StepSpec &step) {
  const JsonValue *kernel = json.find("kernel"), *zero = json.find("zero");
  if (!kernel == !zero)
    return reader.error(json, path,
                        kernel ? "has both \"kernel\" and \"zero\""
                               : "expected \"kernel\" or \"zero\"");
  if (kernel) {
    if (Status s = reader.toString(*kernel, path + ".kernel", step.kernel);
        !s.ok())
      return s;
    if (m.findKernel(step.kernel) < 0) {
      std::vector<std::string> names;
      for (const KernelSpec &k : m.kernels)
        names.push_back(k.name);
      return reader.error(*kernel, path + ".kernel",
                          "unknown kernel '" + step.kernel +
                              "' (kernels: " + listNames(names, "and") + ")");
    }
    return Status::success();
  }
  step.kind = StepSpec::Kind::Zero;
  if (Status s = reader.toString(*zero, path + ".zero", step.buffer); !s.ok())
    return s;
  if (m.findBuffer(step.buffer) < 0)
    return reader.error(*zero, path + ".zero",
                        "unknown buffer '" + step.buffer + "' (buffers: " +
                            listNames(bufferNames(m), "and") + ")");
  return Status::success();
}

Status readStep(const Reader &reader, const JsonValue &json,
                const std::string &index, const Manifest &m, StepSpec &step) {
  if (Status s = reader.expectKind(json, index, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (json.find("id"))
    if (Status s = reader.getString(json, index, "id", step.id); !s.ok())
      return s;
  std::string path = Reader::labeled(index, step.id);
  if (Status s = readStepAction(reader, json, path, m, step); !s.ok())
    return s;
  if (json.find("after")) {
    const JsonValue *after;
    if (Status s = reader.getArray(json, path, "after", after); !s.ok())
      return s;
    for (size_t i = 0; i < after->getArray().size(); ++i) {
      step.after.emplace_back();
      if (Status s = reader.toString(after->getArray()[i],
                                     Reader::index(path + ".after", i),
                                     step.after.back());
          !s.ok())
        return s;
    }
  }
  reader.noteUnknownKeys(json, path, {"id", "kernel", "zero", "after"});
  return Status::success();
}

/// Unique ids, and every `after` naming one of them.
Status checkStepIds(const Reader &reader, const JsonValue &list,
                    const std::string &path, const VariantSpec &variant) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < variant.steps.size(); ++i) {
    const std::string &id = variant.steps[i].id;
    for (size_t j = 0; !id.empty() && j < i; ++j)
      if (variant.steps[j].id == id)
        return reader.error(*list.getArray()[i].find("id"),
                            Reader::index(path, i) + ".id",
                            "duplicate step id '" + id + "' (also " +
                                Reader::index(path, j) + ")");
    if (!id.empty())
      ids.push_back(id);
  }
  for (size_t i = 0; i < variant.steps.size(); ++i) {
    const StepSpec &step = variant.steps[i];
    for (size_t j = 0; j < step.after.size(); ++j) {
      bool known = false;
      for (const std::string &id : ids)
        known = known || id == step.after[j];
      if (!known)
        return reader.error(
            list.getArray()[i].find("after")->getArray()[j],
            Reader::index(
                Reader::labeled(Reader::index(path, i), step.id) + ".after", j),
            "no step '" + step.after[j] +
                "' in this variant (ids: " + listNames(ids, "and") + ")");
    }
  }
  return Status::success();
}

Status readVariant(const Reader &reader, const JsonValue &json,
                   const std::string &path, const Manifest &m,
                   VariantSpec &variant) {
  if (Status s = reader.expectKind(json, path, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (json.find("when")) {
    std::string at = path + ".when";
    if (Status s = reader.getString(json, path, "when", variant.when); !s.ok())
      return s;
    if (Status s = checkCondition(variant.when, m.sizes, bufferNames(m));
        !s.ok())
      return reader.error(*json.find("when"), at, s.message());
  }
  const JsonValue *steps;
  if (Status s = reader.getArray(json, path, "steps", steps); !s.ok())
    return s;
  std::string stepsPath = path + ".steps";
  if (steps->getArray().empty())
    return reader.error(*steps, stepsPath, "a variant needs a step");
  for (size_t i = 0; i < steps->getArray().size(); ++i) {
    variant.steps.emplace_back();
    if (Status s =
            readStep(reader, steps->getArray()[i], Reader::index(stepsPath, i),
                     m, variant.steps.back());
        !s.ok())
      return s;
  }
  if (Status s = checkStepIds(reader, *steps, stepsPath, variant); !s.ok())
    return s;
  if (Status s = orderSteps(variant.steps, variant.order); !s.ok())
    return reader.error(*steps, stepsPath, s.message());
  reader.noteUnknownKeys(json, path, {"when", "steps"});
  return Status::success();
}

Status readVariants(const Reader &reader, const JsonValue &json, Manifest &m) {
  const JsonValue *list;
  if (Status s = reader.getArray(json, "", "variants", list); !s.ok())
    return s;
  if (list->getArray().empty())
    return reader.error(*list, "variants", "a bundle needs a variant");
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    m.variants.emplace_back();
    if (Status s =
            readVariant(reader, list->getArray()[i],
                        Reader::index("variants", i), m, m.variants.back());
        !s.ok())
      return s;
  }
  return Status::success();
}

} // namespace

Status readManifestV2(const ManifestReader &reader, const JsonValue &json,
                      const std::string &dir, Manifest &m) {
  Status s = reader.getString(json, "", "name", m.name);
  if (s.ok())
    s = readArchAndTarget(reader, json, m.arch, m.target);
  if (s.ok())
    s = readProblem(reader, json, m);
  if (s.ok())
    s = readSizes(reader, json, m);
  if (s.ok())
    s = readAllBuffers(reader, json, m);
  if (s.ok())
    s = readKernels(reader, json, dir, m);
  if (s.ok())
    s = readVariants(reader, json, m);
  if (s.ok() && json.find("flags"))
    s = reader.getString(json, "", "flags", m.flags, true);
  if (s.ok())
    s = readTopVerdict(reader, json, m);
  if (s.ok())
    reader.noteUnknownKeys(json, "",
                           {"schema", "name", "family", "arch", "target",
                            "problem", "sizes", "args", "workspace", "kernels",
                            "variants", "flags", "verdict"});
  return s;
}

} // namespace amk::runtime
