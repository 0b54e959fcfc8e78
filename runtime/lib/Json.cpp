//===- Json.cpp - JSON values, and files read whole -----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// JSON values and their accessors, and the file reader the manifests use.
// The parser is JsonParser.cpp, the writer JsonWriter.cpp. They need only
// the C++ standard library, so they build on the GPU machine, which has no
// LLVM.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Json.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// JsonValue
//===----------------------------------------------------------------------===//

JsonValue JsonValue::boolean(bool value) {
  JsonValue v;
  v.valueKind = Kind::Bool;
  v.boolValue = value;
  return v;
}

JsonValue JsonValue::number(double value) {
  JsonValue v;
  v.valueKind = Kind::Number;
  v.doubleValue = value;
  return v;
}

JsonValue JsonValue::integer(int64_t value) {
  JsonValue v = number(static_cast<double>(value));
  v.hasInt = true;
  v.intValue = value;
  return v;
}

JsonValue JsonValue::string(std::string value) {
  JsonValue v;
  v.valueKind = Kind::String;
  v.stringValue = std::move(value);
  return v;
}

JsonValue JsonValue::array(Array elements) {
  JsonValue v;
  v.valueKind = Kind::Array;
  v.arrayValue = std::move(elements);
  return v;
}

JsonValue JsonValue::object(Object members) {
  JsonValue v;
  v.valueKind = Kind::Object;
  v.objectValue = std::move(members);
  return v;
}

// The neutral values returned by accessors of the wrong kind.
static const std::string kEmptyString;
static const JsonValue::Array kEmptyArray;
static const JsonValue::Object kEmptyObject;

const std::string &JsonValue::getString() const {
  return isString() ? stringValue : kEmptyString;
}

const JsonValue::Array &JsonValue::getArray() const {
  return isArray() ? arrayValue : kEmptyArray;
}

const JsonValue::Object &JsonValue::getObject() const {
  return isObject() ? objectValue : kEmptyObject;
}

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const Member &member : getObject())
    if (member.first == key)
      return &member.second;
  return nullptr;
}

JsonValue &JsonValue::set(std::string key, JsonValue value) {
  if (isNull())
    valueKind = Kind::Object;
  for (Member &member : objectValue)
    if (member.first == key)
      return member.second = std::move(value);
  objectValue.emplace_back(std::move(key), std::move(value));
  return objectValue.back().second;
}

JsonValue &JsonValue::push(JsonValue value) {
  if (isNull())
    valueKind = Kind::Array;
  arrayValue.push_back(std::move(value));
  return arrayValue.back();
}

const char *JsonValue::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "bool";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Status readFile(const std::string &path, std::string &contents) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return Status::error("cannot read '" + path + "': not a regular file");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << file.rdbuf();
  if (file.bad())
    return Status::error("cannot read '" + path + "'");
  contents = buffer.str();
  return Status::success();
}

} // namespace amk::runtime
