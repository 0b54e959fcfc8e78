//===- ManifestReader.cpp - Typed fields out of manifest JSON -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "ManifestReader.h"

namespace amk::runtime {

Status ManifestReader::error(const JsonValue &at, const std::string &path,
                             const std::string &message) const {
  std::string where = source;
  if (at.line() > 0)
    where +=
        ":" + std::to_string(at.line()) + ":" + std::to_string(at.column());
  return Status::error(where + ": " + (path.empty() ? "" : path + ": ") +
                       message);
}

Status ManifestReader::member(const JsonValue &object, const std::string &path,
                              const char *key, const JsonValue *&out) const {
  out = object.find(key);
  if (!out)
    return error(object, path, std::string("missing key '") + key + "'");
  return Status::success();
}

Status ManifestReader::expectKind(const JsonValue &value,
                                  const std::string &path,
                                  JsonValue::Kind kind) const {
  if (value.kind() == kind)
    return Status::success();
  return error(value, path,
               std::string("expected ") + JsonValue::kindName(kind) +
                   ", found " + JsonValue::kindName(value.kind()));
}

Status ManifestReader::getObject(const JsonValue &object,
                                 const std::string &path, const char *key,
                                 const JsonValue *&out) const {
  if (Status s = member(object, path, key, out); !s.ok())
    return s;
  return expectKind(*out, join(path, key), JsonValue::Kind::Object);
}

Status ManifestReader::getArray(const JsonValue &object,
                                const std::string &path, const char *key,
                                const JsonValue *&out) const {
  if (Status s = member(object, path, key, out); !s.ok())
    return s;
  return expectKind(*out, join(path, key), JsonValue::Kind::Array);
}

Status ManifestReader::getString(const JsonValue &object,
                                 const std::string &path, const char *key,
                                 std::string &out, bool allowEmpty) const {
  const JsonValue *v;
  if (Status s = member(object, path, key, v); !s.ok())
    return s;
  if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::String);
      !s.ok())
    return s;
  if (!allowEmpty && v->getString().empty())
    return error(*v, join(path, key), "must not be empty");
  out = v->getString();
  return Status::success();
}

Status ManifestReader::getInt(const JsonValue &object, const std::string &path,
                              const char *key, int64_t &out) const {
  const JsonValue *v;
  if (Status s = member(object, path, key, v); !s.ok())
    return s;
  return toInt(*v, join(path, key), out);
}

Status ManifestReader::toInt(const JsonValue &v, const std::string &path,
                             int64_t &out) const {
  if (!v.isInteger())
    return error(v, path,
                 std::string("expected an integer, found ") +
                     (v.isNumber() ? "a non-integer number"
                                   : JsonValue::kindName(v.kind())));
  out = v.getInt();
  return Status::success();
}

Status ManifestReader::getNumber(const JsonValue &object,
                                 const std::string &path, const char *key,
                                 double &out) const {
  const JsonValue *v;
  if (Status s = member(object, path, key, v); !s.ok())
    return s;
  if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::Number);
      !s.ok())
    return s;
  out = v->getDouble();
  return Status::success();
}

Status ManifestReader::getBool(const JsonValue &object, const std::string &path,
                               const char *key, bool &out) const {
  const JsonValue *v;
  if (Status s = member(object, path, key, v); !s.ok())
    return s;
  if (Status s = expectKind(*v, join(path, key), JsonValue::Kind::Bool);
      !s.ok())
    return s;
  out = v->getBool();
  return Status::success();
}

Status ManifestReader::getType(const JsonValue &object, const std::string &path,
                               const char *key, ScalarType &out) const {
  std::string text;
  if (Status s = getString(object, path, key, text); !s.ok())
    return s;
  if (!parseScalarType(text, out))
    return error(*object.find(key), join(path, key),
                 "unsupported element type '" + text +
                     "' (expected f16, bf16, f32, f64 or i32)");
  return Status::success();
}

Status ManifestReader::toString(const JsonValue &v, const std::string &path,
                                std::string &out) const {
  if (Status s = expectKind(v, path, JsonValue::Kind::String); !s.ok())
    return s;
  if (v.getString().empty())
    return error(v, path, "must not be empty");
  out = v.getString();
  return Status::success();
}

void ManifestReader::noteUnknownKeys(
    const JsonValue &object, const std::string &path,
    const std::vector<std::string> &known) const {
  for (const JsonValue::Member &member : object.getObject()) {
    bool found = false;
    for (const std::string &key : known)
      found = found || member.first == key;
    if (!found)
      notes.push_back(source + ": unknown key '" + join(path, member.first) +
                      "' ignored");
  }
}

} // namespace amk::runtime
