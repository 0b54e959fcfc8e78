//===- TargetSpec.h - A GPU's limits and rates ------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// TargetSpec is the plain data behind `#amk.target`: presets, the JSON form
// written by `amk-device-info`, and the limits the planner and the harness
// read. It depends on LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TARGET_TARGETSPEC_H
#define AMK_TARGET_TARGETSPEC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <tuple>

namespace mlir::amk {

/// A GPU description. Field names and units: TargetFields.def.
struct TargetSpec {
  /// A short name: the preset name or the device name.
  std::string name;
#define AMK_TARGET_STR(key, doc) std::string key;
#define AMK_TARGET_INT(key, doc) int64_t key = 0;
#include "AMK/Target/TargetFields.def"

  /// The SM version as a number (90 for `sm_90a`), or -1 if `arch` is not of
  /// the form `sm_<digits>[a-z]`.
  int64_t getSmVersion() const;

  /// Whether the arch carries the architecture-specific suffix (`sm_90a`),
  /// which wgmma and setmaxnreg need.
  bool hasArchSpecificFeatures() const;

  /// Returns an error message naming the first inconsistent field (a zero
  /// count, opt-in shared memory below the default, ...), or "" if the
  /// description is self-consistent.
  std::string validate() const;

  bool operator==(const TargetSpec &other) const;
  bool operator!=(const TargetSpec &other) const { return !(*this == other); }
};

llvm::hash_code hash_value(const TargetSpec &spec);

/// Visit every field as (key, value) without knowing the list: `intFn(key,
/// int64_t &)` and `strFn(key, std::string &)`. `name` is not visited.
template <typename Spec, typename IntFn, typename StrFn>
void forEachTargetField(Spec &spec, IntFn intFn, StrFn strFn) {
#define AMK_TARGET_STR(key, doc) strFn(llvm::StringRef(#key), spec.key);
#define AMK_TARGET_INT(key, doc) intFn(llvm::StringRef(#key), spec.key);
#include "AMK/Target/TargetFields.def"
}

//===----------------------------------------------------------------------===//
// Presets and JSON
//===----------------------------------------------------------------------===//

/// All built-in presets, in a fixed order.
llvm::ArrayRef<TargetSpec> getTargetPresets();

/// The preset of that name, or nullptr.
const TargetSpec *lookupTargetPreset(llvm::StringRef name);

/// "a100, rtx4060ti, ...": for error messages.
std::string listTargetPresetNames();

/// Parses a target from JSON text: an object with "name", every field of
/// TargetFields.def, and optionally "base" (a preset whose values fill the
/// fields not given) and "info" (free-form, ignored). Unknown keys, missing
/// fields and wrong types are errors that name the key.
llvm::Expected<TargetSpec> parseTargetJSON(llvm::StringRef text);

/// Resolves a `--amk-target` value: a preset name, or a path to a JSON file.
llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef presetOrPath);

/// The JSON form of a target (every field; loads back with parseTargetJSON).
std::string targetToJSON(const TargetSpec &spec);

} // namespace mlir::amk

#endif // AMK_TARGET_TARGETSPEC_H
