//===- Bundle.cpp - Load a manifest, resolve sizes, evaluate grids --------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Reads a manifest of either schema into the family-neutral model, runs the
// checks of its family where the runtime has some (GEMM), and answers what a
// launch needs before it reaches the driver: its sizes and grids. Calls no
// CUDA function (the driver half is Launcher.cpp), so the tests of this file
// run on machines without a driver.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Bundle.h"
#include "AMK/Runtime/GemmProblem.h"

#include "ManifestReader.h"

#include <climits>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

namespace {

/// The checks a family adds to the generic ones. A family without an entry
/// loads and launches on the generic rules alone.
struct FamilyChecks {
  const char *family;
  /// When the manifest loads (after the generic reading succeeded).
  Status (*checkManifest)(const Manifest &, const JsonValue &json,
                          const std::string &source,
                          std::vector<std::string> &notes);
  /// When a launch's sizes are resolved.
  Status (*checkSizes)(const Manifest &, const std::string &source,
                       const Sizes &);
};

Status checkGemmSizes(const Manifest &m, const std::string &source,
                      const Sizes &sizes) {
  GemmProblem problem;
  if (Status s = readGemmProblem(m.problem, source, problem); !s.ok())
    return s;
  return checkGemmArgShapes(m, problem, sizes);
}

const FamilyChecks kFamilies[] = {
    {"gemm", checkGemmManifest, checkGemmSizes},
};

const FamilyChecks *findFamily(const std::string &family) {
  for (const FamilyChecks &entry : kFamilies)
    if (family == entry.family)
      return &entry;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

Status readSchema(const ManifestReader &reader, const JsonValue &json,
                  int64_t &schema) {
  if (Status s = reader.getInt(json, "", "schema", schema); !s.ok())
    return s;
  if (schema != 1 && schema != 2)
    return reader.error(*json.find("schema"), "schema",
                        "unsupported manifest schema " +
                            std::to_string(schema) +
                            " (this runtime reads schemas 1 and 2)");
  return Status::success();
}

void noteVerdicts(const ManifestReader &reader, const Manifest &m) {
  if (m.verdictStatus != "verified")
    reader.note("the manifest's verdict is '" + m.verdictStatus +
                "', not 'verified'");
  if (m.schema == 1)
    return; // Its one kernel's verdict is the manifest's.
  for (const KernelSpec &kernel : m.kernels)
    if (!kernel.verdictStatus.empty() && kernel.verdictStatus != "verified")
      reader.note("kernel '" + kernel.name + "''s verdict is '" +
                  kernel.verdictStatus + "', not 'verified'");
}

} // namespace

Status Bundle::load(const std::string &dir, const std::string &name,
                    Bundle &out) {
  std::string base = dir.empty() ? "." : dir;
  return loadManifest(base + "/" + name + ".json", out);
}

Status Bundle::loadManifest(const std::string &path, Bundle &out) {
  std::string text;
  if (Status s = readFile(path, text); !s.ok())
    return s;
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty())
    dir = "/";
  return parse(text, dir, path, out);
}

Status Bundle::parse(std::string_view text, const std::string &dir,
                     const std::string &source, Bundle &out) {
  out = Bundle();
  out.dir = dir;
  out.sourceName = source;
  JsonValue json;
  // The JSON error starts with "<line>:<col>: ", so this reads
  // "<file>:<line>:<col>: ..." like every other manifest error.
  if (Status s = parseJson(text, json); !s.ok())
    return Status::error(source + ":" + s.message());
  ManifestReader reader(source, out.notes);
  Manifest &m = out.data;
  if (Status s = reader.expectKind(json, "", JsonValue::Kind::Object); !s.ok())
    return s;
  // The schema first: it decides which keys must be there.
  if (Status s = readSchema(reader, json, m.schema); !s.ok())
    return s;
  Status read = m.schema == 1 ? readManifestV1(reader, json, m)
                              : readManifestV2(reader, json, dir, m);
  if (!read.ok())
    return read;
  if (const FamilyChecks *family = findFamily(m.family))
    if (Status s = family->checkManifest(m, json, source, out.notes); !s.ok())
      return s;
  if (!m.isDynamic()) {
    Sizes sizes;
    if (Status s = out.resolveSizes(nullptr, sizes); !s.ok())
      return s.withContext(source);
  }
  noteVerdicts(reader, m);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

std::string Bundle::cubinPath(size_t kernel) const {
  return dir + "/" + data.kernels.at(kernel).cubin;
}

std::string Bundle::ptxPath(size_t kernel) const {
  return dir + "/" + data.kernels.at(kernel).ptx;
}

int Bundle::findArg(std::string_view name) const {
  for (size_t i = 0; i < data.args.size(); ++i)
    if (data.args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

Status Bundle::resolveSizes(const Sizes *requested, Sizes &out) const {
  out = Sizes();
  const std::string bundle = "bundle '" + data.name + "'";
  for (const auto &[symbol, fixed] : data.sizes.entries()) {
    const int64_t *asked = requested ? requested->find(symbol) : nullptr;
    if (fixed != kDynamicSize) {
      if (asked && *asked != fixed)
        return Status::error(bundle + " is built for " + symbol + "=" +
                             std::to_string(fixed) + ", not " +
                             std::to_string(*asked));
      out.set(symbol, fixed);
    } else if (!asked) {
      return Status::error(bundle + " has a dynamic " + symbol +
                           ": give the sizes to run");
    } else if (*asked < 1) {
      return Status::error(symbol + " must be positive (got " +
                           std::to_string(*asked) + ")");
    } else {
      out.set(symbol, *asked);
    }
  }
  if (requested)
    for (const auto &[symbol, value] : requested->entries())
      if (!data.sizes.contains(symbol))
        return Status::error(
            bundle + " has no size '" + symbol +
            "' (its sizes: " + listNames(data.sizes.symbols(), "and") + ")");
  for (size_t i = 0; i < data.bufferCount(); ++i) {
    int64_t bytes;
    if (Status s = data.buffer(i).bytes(out, bytes); !s.ok())
      return s;
  }
  if (const FamilyChecks *family = findFamily(data.family))
    return family->checkSizes(data, sourceName, out);
  return Status::success();
}

Status Bundle::evalGrid(size_t kernel, const Sizes &sizes,
                        std::array<int64_t, 3> &grid) const {
  static const char *const kAxes[] = {"x", "y", "z"};
  const KernelSpec &spec = data.kernels.at(kernel);
  std::string of = data.kernels.size() > 1 ? " of kernel '" + spec.name + "'"
                                           : std::string();
  for (int i = 0; i < 3; ++i) {
    std::string axis = std::string("grid ") + kAxes[i] + of;
    if (Status s = evalSizeExpr(spec.grid[i], sizes, grid[i]); !s.ok())
      return s.withContext(axis);
    if (grid[i] < 1 || grid[i] > UINT_MAX)
      return Status::error(axis + " '" + spec.grid[i] + "' evaluates to " +
                           std::to_string(grid[i]) + ", outside 1..2^32-1");
  }
  return Status::success();
}

} // namespace amk::runtime
