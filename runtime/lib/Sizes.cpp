//===- Sizes.cpp - Size symbols and element types -------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Sizes.h"
#include "AMK/Runtime/ScalarType.h"

#include <cctype>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

bool parseScalarType(std::string_view text, ScalarType &type) {
  static const std::pair<const char *, ScalarType> kTypes[] = {
      {"f16", ScalarType::F16},
      {"bf16", ScalarType::BF16},
      {"f32", ScalarType::F32},
      {"f64", ScalarType::F64},
      {"i32", ScalarType::I32}};
  for (const auto &entry : kTypes)
    if (text == entry.first) {
      type = entry.second;
      return true;
    }
  return false;
}

const char *toString(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
    return "f16";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  case ScalarType::I32:
    return "i32";
  }
  return "?";
}

int64_t byteSize(ScalarType type) {
  switch (type) {
  case ScalarType::F16:
  case ScalarType::BF16:
    return 2;
  case ScalarType::F32:
  case ScalarType::I32:
    return 4;
  case ScalarType::F64:
    return 8;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

Sizes::Sizes(std::initializer_list<Entry> entries) {
  for (const Entry &entry : entries)
    set(entry.first, entry.second);
}

void Sizes::set(std::string_view symbol, int64_t value) {
  for (Entry &entry : values)
    if (entry.first == symbol) {
      entry.second = value;
      return;
    }
  values.emplace_back(std::string(symbol), value);
}

const int64_t *Sizes::find(std::string_view symbol) const {
  for (const Entry &entry : values)
    if (entry.first == symbol)
      return &entry.second;
  return nullptr;
}

int64_t Sizes::get(std::string_view symbol, int64_t otherwise) const {
  const int64_t *value = find(symbol);
  return value ? *value : otherwise;
}

std::vector<std::string> Sizes::symbols() const {
  std::vector<std::string> names;
  for (const Entry &entry : values)
    names.push_back(entry.first);
  return names;
}

std::string Sizes::toString() const {
  std::string text;
  for (const Entry &entry : values)
    text += (text.empty() ? "" : " ") + entry.first + "=" +
            (entry.second == kDynamicSize ? "?" : std::to_string(entry.second));
  return text;
}

bool isSizeSymbol(std::string_view name) {
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

std::string listNames(const std::vector<std::string> &names, const char *last) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      text += i + 1 == names.size() ? std::string(" ") + last + " " : ", ";
    text += names[i];
  }
  return text.empty() ? "none" : text;
}

} // namespace amk::runtime
