//===- TargetJSON.cpp - Targets to and from JSON --------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Target/TargetSpec.h"

#include "AMK/Target/JSONDepth.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir::amk;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<TargetSpec> mlir::amk::parseTargetJSON(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = parseJSON(text);
  if (!value)
    return makeError("invalid JSON: " + llvm::toString(value.takeError()));
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return makeError("a target must be a JSON object");

  TargetSpec spec;
  llvm::StringSet<> known = {"name", "base", "info"};
  forEachTargetField(
      spec, [&](llvm::StringRef key, int64_t &) { known.insert(key); },
      [&](llvm::StringRef key, std::string &) { known.insert(key); });
  for (const auto &entry : *object)
    if (!known.contains(entry.first))
      return makeError(llvm::formatv("unknown key '{0}'", entry.first.str()));

  bool hasBase = false;
  if (const llvm::json::Value *base = object->get("base")) {
    std::optional<llvm::StringRef> baseName = base->getAsString();
    if (!baseName)
      return makeError("'base' must be a string naming a preset");
    const TargetSpec *preset = lookupTargetPreset(*baseName);
    if (!preset)
      return makeError(llvm::formatv("unknown base preset '{0}' (presets: {1})",
                                     *baseName, listTargetPresetNames()));
    spec = *preset;
    hasBase = true;
  }
  std::optional<llvm::StringRef> name = object->getString("name");
  if (!name)
    return makeError("missing string key 'name'");
  spec.name = name->str();

  std::string error;
  auto missing = [&](llvm::StringRef key) {
    if (error.empty())
      error = llvm::formatv("missing key '{0}'", key);
  };
  forEachTargetField(
      spec,
      [&](llvm::StringRef key, int64_t &field) {
        const llvm::json::Value *v = object->get(key);
        if (!v)
          return hasBase ? void() : missing(key);
        std::optional<int64_t> i = v->getAsInteger();
        if (!i && error.empty())
          error = llvm::formatv("key '{0}' must be an integer", key);
        else if (i)
          field = *i;
      },
      [&](llvm::StringRef key, std::string &field) {
        const llvm::json::Value *v = object->get(key);
        if (!v)
          return hasBase ? void() : missing(key);
        std::optional<llvm::StringRef> s = v->getAsString();
        if (!s && error.empty())
          error = llvm::formatv("key '{0}' must be a string", key);
        else if (s)
          field = s->str();
      });
  if (!error.empty())
    return makeError(error);
  if (std::string invalid = spec.validate(); !invalid.empty())
    return makeError(invalid);
  return spec;
}

llvm::Expected<TargetSpec> mlir::amk::resolveTarget(llvm::StringRef value) {
  if (const TargetSpec *preset = lookupTargetPreset(value))
    return *preset;
  if (!value.ends_with(".json"))
    return makeError(llvm::formatv(
        "unknown target '{0}': expected a preset ({1}) or a .json file", value,
        listTargetPresetNames()));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(value);
  if (!file)
    return makeError(llvm::formatv("cannot read target file '{0}': {1}", value,
                                   file.getError().message()));
  llvm::Expected<TargetSpec> spec = parseTargetJSON((*file)->getBuffer());
  if (!spec)
    return makeError(llvm::formatv("in target file '{0}': {1}", value,
                                   llvm::toString(spec.takeError())));
  return spec;
}

std::string mlir::amk::targetToJSON(const TargetSpec &spec) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("name", spec.name);
    forEachTargetField(
        spec,
        [&](llvm::StringRef key, int64_t value) { json.attribute(key, value); },
        [&](llvm::StringRef key, const std::string &value) {
          json.attribute(key, value);
        });
  });
  return out;
}
