//===- JsonWriter.cpp - JSON values as text -------------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// toJsonString: compact or indented, strings escaped, integers exact and
// doubles in the shortest form that reads back the same.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace amk::runtime {

static void writeString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

/// The shortest of %.15g / %.17g that reads back as the same double.
static void writeDouble(std::string &out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", value);
  if (std::strtod(buf, nullptr) != value)
    std::snprintf(buf, sizeof(buf), "%.17g", value);
  out += buf;
}

static void writeValue(std::string &out, const JsonValue &value, int indent,
                       int level) {
  auto newline = [&](int depth) {
    if (indent <= 0)
      return;
    out += '\n';
    out.append(static_cast<size_t>(indent) * depth, ' ');
  };
  switch (value.kind()) {
  case JsonValue::Kind::Null:
    out += "null";
    return;
  case JsonValue::Kind::Bool:
    out += value.getBool() ? "true" : "false";
    return;
  case JsonValue::Kind::Number:
    if (value.isInteger())
      out += std::to_string(value.getInt());
    else
      writeDouble(out, value.getDouble());
    return;
  case JsonValue::Kind::String:
    writeString(out, value.getString());
    return;
  case JsonValue::Kind::Array: {
    const JsonValue::Array &elements = value.getArray();
    out += '[';
    for (size_t i = 0; i < elements.size(); ++i) {
      out += i ? "," : "";
      newline(level + 1);
      writeValue(out, elements[i], indent, level + 1);
    }
    if (!elements.empty())
      newline(level);
    out += ']';
    return;
  }
  case JsonValue::Kind::Object: {
    const JsonValue::Object &members = value.getObject();
    out += '{';
    for (size_t i = 0; i < members.size(); ++i) {
      out += i ? "," : "";
      newline(level + 1);
      writeString(out, members[i].first);
      out += indent > 0 ? ": " : ":";
      writeValue(out, members[i].second, indent, level + 1);
    }
    if (!members.empty())
      newline(level);
    out += '}';
    return;
  }
  }
}

std::string toJsonString(const JsonValue &value, int indent) {
  std::string out;
  writeValue(out, value, indent, 0);
  return out;
}

} // namespace amk::runtime
