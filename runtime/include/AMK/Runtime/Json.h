//===- Json.h - A small strict JSON reader and writer -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Bundle manifests are JSON, and the machine that loads them has the CUDA
// toolkit and nothing else (no LLVM, no JSON library), so the runtime carries
// its own reader. It is strict on purpose: a manifest the MLIR side wrote
// wrongly should fail loudly, at the line and column where it is wrong, rather
// than load with a guessed meaning.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_JSON_H
#define AMK_RUNTIME_JSON_H

#include "AMK/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amk::runtime {

/// One JSON value: null, a bool, a number, a string, an array or an object.
///
/// Numbers keep their double value; a number written as an integer literal
/// (no fraction, no exponent) that fits in int64_t also keeps its exact
/// integer value, so `4096` is an integer and `4096.0` and `4e3` are not.
/// Objects keep their members in the order written.
///
/// Accessors of the wrong kind return a neutral value (false, 0, an empty
/// string or container) instead of asserting; check the kind first.
class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<JsonValue>;
  using Member = std::pair<std::string, JsonValue>;
  using Object = std::vector<Member>;

  /// A null value.
  JsonValue() = default;

  static JsonValue boolean(bool value);
  static JsonValue number(double value);
  static JsonValue integer(int64_t value);
  static JsonValue string(std::string value);
  static JsonValue array(Array elements = {});
  static JsonValue object(Object members = {});

  Kind kind() const { return valueKind; }
  bool isNull() const { return valueKind == Kind::Null; }
  bool isBool() const { return valueKind == Kind::Bool; }
  bool isNumber() const { return valueKind == Kind::Number; }
  /// Whether this is a number with an exact int64_t value.
  bool isInteger() const { return valueKind == Kind::Number && hasInt; }
  bool isString() const { return valueKind == Kind::String; }
  bool isArray() const { return valueKind == Kind::Array; }
  bool isObject() const { return valueKind == Kind::Object; }

  bool getBool() const { return isBool() && boolValue; }
  double getDouble() const { return isNumber() ? doubleValue : 0.0; }
  int64_t getInt() const { return isInteger() ? intValue : 0; }
  const std::string &getString() const;
  const Array &getArray() const;
  const Object &getObject() const;

  /// The member named `key` of an object, or null if absent (or not an
  /// object).
  const JsonValue *find(std::string_view key) const;

  /// Sets member `key` of an object (appending it if new) and returns it.
  /// Turns a null value into an empty object first.
  JsonValue &set(std::string key, JsonValue value);
  /// Appends to an array and returns the new element. Turns a null value
  /// into an empty array first.
  JsonValue &push(JsonValue value);

  /// Where the value starts in the text it was parsed from: 1-based line and
  /// column (in bytes). Both 0 for values built in code.
  int line() const { return sourceLine; }
  int column() const { return sourceColumn; }

  /// "null", "bool", "number", "string", "array" or "object".
  static const char *kindName(Kind kind);

private:
  friend class JsonParser;

  Kind valueKind = Kind::Null;
  bool boolValue = false;
  bool hasInt = false;
  double doubleValue = 0.0;
  int64_t intValue = 0;
  std::string stringValue;
  Array arrayValue;
  Object objectValue;
  int sourceLine = 0;
  int sourceColumn = 0;
};

/// Parses `text` as one JSON document (RFC 8259) into `out`.
///
/// Strict: no comments, no trailing commas, no single quotes, no NaN or
/// Infinity, no leading zeros or '+' signs, no control characters inside
/// strings, no unpaired UTF-16 surrogates in \u escapes, no duplicate keys in
/// an object, nothing but whitespace after the value, nesting at most 256
/// deep. Bytes of 0x80 and above inside strings pass through unchecked.
///
/// On failure the message starts with "<line>:<column>: ", e.g.
/// "3:17: expected ',' or '}' after an object member, found ']'".
Status parseJson(std::string_view text, JsonValue &out);

/// Writes `value` as JSON text, with `indent` spaces per level (0: one line).
/// Numbers that are NaN or infinite are written as null, since JSON has no
/// spelling for them.
std::string toJsonString(const JsonValue &value, int indent = 2);

/// Reads the whole file at `path` into `contents`.
Status readFile(const std::string &path, std::string &contents);

} // namespace amk::runtime

#endif // AMK_RUNTIME_JSON_H
