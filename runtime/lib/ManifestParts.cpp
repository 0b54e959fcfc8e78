//===- ManifestParts.cpp - Manifest fields both schemas share -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The target, the architecture, buffers and their shapes, a kernel's launch
// configuration and verdicts: written alike in schema 1 (at the top level)
// and schema 2 (per kernel).
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

#include "AMK/Runtime/Arch.h"

#include <climits>

namespace amk::runtime {

static Status readTarget(const ManifestReader &reader, const JsonValue &json,
                         TargetDesc &target) {
  const std::string path = "target";
  if (Status s = reader.getString(json, path, "name", target.name); !s.ok())
    return s;
  Status status;
  // "info" is provenance that amk-device-info writes; the runtime needs none.
  std::vector<std::string> known = {"name", "info"};
#define AMK_TARGET_INT(key, limit, doc)                                        \
  known.push_back(#key);                                                       \
  if (status.ok())                                                             \
    status = reader.getInt(json, path, #key, target.key);
#define AMK_TARGET_STR(key, doc)                                               \
  known.push_back(#key);                                                       \
  if (status.ok())                                                             \
    status = reader.getString(json, path, #key, target.key);
#include "AMK/Target/TargetFields.def"
  reader.noteUnknownKeys(json, path, known);
  return status;
}

Status readArchAndTarget(const ManifestReader &reader, const JsonValue &json,
                         std::string &arch, TargetDesc &target) {
  if (Status s = reader.getString(json, "", "arch", arch); !s.ok())
    return s;
  ArchName parsed;
  if (!ArchName::parse(arch, parsed))
    return reader.error(*json.find("arch"), "arch",
                        "expected sm_<major><minor>[a|f], found '" + arch +
                            "'");
  const JsonValue *targetJson = nullptr;
  if (Status s = reader.getObject(json, "", "target", targetJson); !s.ok())
    return s;
  return readTarget(reader, *targetJson, target);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

static Status readDim(const ManifestReader &reader, const JsonValue &v,
                      const std::string &path, const Sizes &declared,
                      ShapeDim &dim) {
  if (v.isString()) {
    dim.symbol = v.getString();
    if (declared.contains(dim.symbol))
      return Status::success();
    std::vector<std::string> expected = declared.symbols();
    expected.push_back("an integer");
    return reader.error(v, path,
                        "unknown symbol '" + dim.symbol + "' (expected " +
                            listNames(expected) + ")");
  }
  if (Status s = reader.toInt(v, path, dim.extent); !s.ok())
    return s;
  if (dim.extent < 1)
    return reader.error(v, path, "extent must be positive");
  return Status::success();
}

static Status readBuffer(const ManifestReader &reader, const JsonValue &json,
                         const std::string &path, const Sizes &declared,
                         bool requireKind, BufferSpec &buffer) {
  if (Status s = reader.expectKind(json, path, JsonValue::Kind::Object);
      !s.ok())
    return s;
  // Buffers keep index paths ("args[0].shape[1]"), as schema 1 had them.
  const std::string &at = path;
  Status s = reader.getString(json, path, "name", buffer.name);
  if (s.ok() && (requireKind || json.find("kind")))
    s = reader.getString(json, at, "kind", buffer.kind);
  if (s.ok() && buffer.kind != "memref")
    s = reader.error(*json.find("kind"), at + ".kind",
                     "unsupported argument kind '" + buffer.kind +
                         "' (the runtime knows \"memref\")");
  if (s.ok())
    s = reader.getType(json, at, "elem", buffer.elem);
  const JsonValue *shape = nullptr;
  if (s.ok())
    s = reader.getArray(json, at, "shape", shape);
  for (size_t i = 0; s.ok() && i < shape->getArray().size(); ++i) {
    buffer.shape.emplace_back();
    s = readDim(reader, shape->getArray()[i],
                ManifestReader::index(at + ".shape", i), declared,
                buffer.shape.back());
  }
  if (s.ok() && json.find("written"))
    s = reader.getBool(json, at, "written", buffer.written);
  // (What an argument holds is the caller's: only workspace is kept.)
  if (s.ok() && json.find("kept_zero"))
    s = path.rfind("workspace", 0) != 0
            ? reader.error(*json.find("kept_zero"), at + ".kept_zero",
                           "only a workspace buffer is kept zeroed")
            : reader.getBool(json, at, "kept_zero", buffer.keptZero);
  if (s.ok())
    reader.noteUnknownKeys(
        json, path, {"name", "kind", "elem", "shape", "written", "kept_zero"});
  return s;
}

Status readBuffers(const ManifestReader &reader, const JsonValue &json,
                   const char *key, const Sizes &declared, bool requireKind,
                   std::vector<BufferSpec> &buffers) {
  const JsonValue *list;
  if (Status s = reader.getArray(json, "", key, list); !s.ok())
    return s;
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    buffers.emplace_back();
    if (Status s = readBuffer(reader, list->getArray()[i],
                              ManifestReader::index(key, i), declared,
                              requireKind, buffers.back());
        !s.ok())
      return s;
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Launch configuration
//===----------------------------------------------------------------------===//

static Status readBlock(const ManifestReader &reader, const JsonValue &json,
                        const std::string &path, KernelSpec &kernel) {
  const JsonValue *block;
  if (Status s = reader.getArray(json, path, "block", block); !s.ok())
    return s;
  std::string at = ManifestReader::join(path, "block");
  if (block->getArray().size() != 3)
    return reader.error(*block, at, "expected 3 entries");
  for (size_t i = 0; i < 3; ++i) {
    const JsonValue &v = block->getArray()[i];
    if (Status s =
            reader.toInt(v, ManifestReader::index(at, i), kernel.block[i]);
        !s.ok())
      return s;
    if (kernel.block[i] < 1 || kernel.block[i] > INT_MAX)
      return reader.error(v, ManifestReader::index(at, i),
                          "must be a positive 32-bit integer");
  }
  return Status::success();
}

static Status readGrid(const ManifestReader &reader, const JsonValue &json,
                       const std::string &path, const Sizes &declared,
                       KernelSpec &kernel) {
  const JsonValue *grid;
  if (Status s = reader.getArray(json, path, "grid", grid); !s.ok())
    return s;
  std::string at = ManifestReader::join(path, "grid");
  if (grid->getArray().size() != 3)
    return reader.error(*grid, at, "expected 3 entries");
  for (size_t i = 0; i < 3; ++i) {
    const JsonValue &v = grid->getArray()[i];
    std::string entry = ManifestReader::index(at, i);
    if (Status s = reader.expectKind(v, entry, JsonValue::Kind::String);
        !s.ok())
      return s;
    if (Status s = checkSizeExpr(v.getString(), declared); !s.ok())
      return reader.error(v, entry, s.message());
    kernel.grid[i] = v.getString();
  }
  return Status::success();
}

/// The optional "tile" and "predicted_us" (older manifests lack them).
static Status readTuningHints(const ManifestReader &reader,
                              const JsonValue &json, const std::string &path,
                              KernelSpec &kernel) {
  if (const JsonValue *tile = json.find("tile")) {
    std::string at = ManifestReader::join(path, "tile");
    if (Status s = reader.expectKind(*tile, at, JsonValue::Kind::Array);
        !s.ok())
      return s;
    if (tile->getArray().size() != 3)
      return reader.error(*tile, at, "expected 3 entries");
    for (size_t i = 0; i < 3; ++i) {
      const JsonValue &v = tile->getArray()[i];
      std::string entry = ManifestReader::index(at, i);
      if (Status s = reader.toInt(v, entry, kernel.tile[i]); !s.ok())
        return s;
      if (kernel.tile[i] < 0)
        return reader.error(v, entry, "must not be negative");
    }
  }
  if (json.find("predicted_us"))
    return reader.getNumber(json, path, "predicted_us", kernel.predictedUs);
  return Status::success();
}

Status readLaunchConfig(const ManifestReader &reader, const JsonValue &json,
                        const std::string &path, const Sizes &declared,
                        KernelSpec &kernel) {
  if (Status s = readBlock(reader, json, path, kernel); !s.ok())
    return s;
  if (Status s = readGrid(reader, json, path, declared, kernel); !s.ok())
    return s;
  if (Status s = reader.getInt(json, path, "dynamic_smem_bytes",
                               kernel.dynamicSmemBytes);
      !s.ok())
    return s;
  if (kernel.dynamicSmemBytes < 0 || kernel.dynamicSmemBytes > INT_MAX)
    return reader.error(*json.find("dynamic_smem_bytes"),
                        ManifestReader::join(path, "dynamic_smem_bytes"),
                        "must be between 0 and 2^31-1");
  if (json.find("estimated_regs_per_thread")) {
    if (Status s = reader.getInt(json, path, "estimated_regs_per_thread",
                                 kernel.estimatedRegsPerThread);
        !s.ok())
      return s;
    if (kernel.estimatedRegsPerThread < 0)
      return reader.error(
          *json.find("estimated_regs_per_thread"),
          ManifestReader::join(path, "estimated_regs_per_thread"),
          "must not be negative");
  }
  return readTuningHints(reader, json, path, kernel);
}

//===----------------------------------------------------------------------===//
// Verdicts
//===----------------------------------------------------------------------===//

Status readVerdict(const ManifestReader &reader, const JsonValue &verdict,
                   const std::string &path, std::string &status,
                   JsonValue &out) {
  if (Status s = reader.expectKind(verdict, path, JsonValue::Kind::Object);
      !s.ok())
    return s;
  if (Status s = reader.getString(verdict, path, "status", status); !s.ok())
    return s;
  const JsonValue *checks;
  if (Status s = reader.getArray(verdict, path, "checks", checks); !s.ok())
    return s;
  out = verdict;
  return Status::success();
}

Status readTopVerdict(const ManifestReader &reader, const JsonValue &json,
                      Manifest &m) {
  const JsonValue *verdict;
  if (Status s = reader.member(json, "", "verdict", verdict); !s.ok())
    return s;
  return readVerdict(reader, *verdict, "verdict", m.verdictStatus, m.verdict);
}

} // namespace amk::runtime
