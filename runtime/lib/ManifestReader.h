//===- ManifestReader.h - Typed fields out of manifest JSON -----*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Private to the runtime library: the helpers every manifest reader (schema
// 1, schema 2, the GEMM family) shares, so that all their errors read
// "<source>:<line>:<col>: <field path>: <what is wrong>".
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_LIB_MANIFESTREADER_H
#define AMK_RUNTIME_LIB_MANIFESTREADER_H

#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/Manifest.h"
#include "AMK/Runtime/ScalarType.h"
#include "AMK/Runtime/Status.h"

#include <string>
#include <vector>

namespace amk::runtime {

/// Reads typed fields out of the manifest's JSON. Paths are dotted
/// ("problem.m", "kernels[1].grid[0]"); entries with a name carry it
/// ("kernels[1] ('tail')").
class ManifestReader {
public:
  ManifestReader(const std::string &source, std::vector<std::string> &notes)
      : source(source), notes(notes) {}

  const std::string &sourceName() const { return source; }

  /// "<source>:<line>:<col>: <path>: <message>" (the position of `at`).
  Status error(const JsonValue &at, const std::string &path,
               const std::string &message) const;

  static std::string join(const std::string &path, const std::string &key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }
  /// `path` of an entry named `name`: "kernels[1] ('tail')".
  static std::string labeled(const std::string &path, const std::string &name) {
    return name.empty() ? path : path + " ('" + name + "')";
  }

  /// The required member `key` of `object`.
  Status member(const JsonValue &object, const std::string &path,
                const char *key, const JsonValue *&out) const;
  Status expectKind(const JsonValue &value, const std::string &path,
                    JsonValue::Kind kind) const;
  Status getObject(const JsonValue &object, const std::string &path,
                   const char *key, const JsonValue *&out) const;
  Status getArray(const JsonValue &object, const std::string &path,
                  const char *key, const JsonValue *&out) const;
  Status getString(const JsonValue &object, const std::string &path,
                   const char *key, std::string &out,
                   bool allowEmpty = false) const;
  Status getInt(const JsonValue &object, const std::string &path,
                const char *key, int64_t &out) const;
  Status toInt(const JsonValue &v, const std::string &path, int64_t &out) const;
  Status getNumber(const JsonValue &object, const std::string &path,
                   const char *key, double &out) const;
  Status getBool(const JsonValue &object, const std::string &path,
                 const char *key, bool &out) const;
  Status getType(const JsonValue &object, const std::string &path,
                 const char *key, ScalarType &out) const;
  /// A non-empty string element of an array.
  Status toString(const JsonValue &v, const std::string &path,
                  std::string &out) const;

  /// Records a warning for each member of `object` not in `known`: a newer
  /// writer may add keys, and silently dropping one could hide a mismatch.
  void noteUnknownKeys(const JsonValue &object, const std::string &path,
                       const std::vector<std::string> &known) const;
  void note(const std::string &message) const {
    notes.push_back(source + ": " + message);
  }

private:
  const std::string &source;
  std::vector<std::string> &notes;
};

//===----------------------------------------------------------------------===//
// Parts both schemas share (ManifestParts.cpp)
//===----------------------------------------------------------------------===//

/// "arch" (checked to be sm_XY[a|f]) and the "target" object.
Status readArchAndTarget(const ManifestReader &reader, const JsonValue &json,
                         std::string &arch, TargetDesc &target);
/// A list of buffers at `json[key]` (args or workspace). Argument buffers
/// must say kind "memref"; workspace buffers may leave it out. Shapes may
/// name only the symbols of `declared`.
Status readBuffers(const ManifestReader &reader, const JsonValue &json,
                   const char *key, const Sizes &declared, bool requireKind,
                   std::vector<BufferSpec> &buffers);
/// A kernel's "block", "grid" (over `declared`) and "dynamic_smem_bytes",
/// and the optional "tile" and "predicted_us", from `json` at `path`.
Status readLaunchConfig(const ManifestReader &reader, const JsonValue &json,
                        const std::string &path, const Sizes &declared,
                        KernelSpec &kernel);
/// A "verdict" object (status, checks) at `path`.
Status readVerdict(const ManifestReader &reader, const JsonValue &verdict,
                   const std::string &path, std::string &status,
                   JsonValue &out);
/// The manifest's top-level "verdict", noting one that is not "verified".
Status readTopVerdict(const ManifestReader &reader, const JsonValue &json,
                      Manifest &m);

//===----------------------------------------------------------------------===//
// The schemas (ManifestV1.cpp, ManifestV2.cpp)
//===----------------------------------------------------------------------===//

/// Reads a schema-1 manifest (one GEMM kernel) into the model.
Status readManifestV1(const ManifestReader &reader, const JsonValue &json,
                      Manifest &m);
/// Reads a schema-2 manifest; its cubins must exist in `dir`.
Status readManifestV2(const ManifestReader &reader, const JsonValue &json,
                      const std::string &dir, Manifest &m);

} // namespace amk::runtime

#endif // AMK_RUNTIME_LIB_MANIFESTREADER_H
