//===- Bundle.h - A bundle: its manifest and its directory ------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The runtime side of a kernel bundle (docs/BUNDLE.md): read and check the
// manifest (schema 1 or 2), resolve the sizes of a launch and evaluate the
// kernels' grids. Calls no CUDA function, so it is tested on machines without
// a GPU; Launcher.h loads and launches through the driver.
//
// Headers of the runtime:
//   Status.h, Json.h        errors as values; the strict JSON reader
//   ScalarType.h, Sizes.h   element types; size symbols, expressions,
//                           conditions
//   Manifest.h              the family-neutral manifest model
//   Bundle.h                reading a manifest (this file)
//   Arch.h                  cubin and PTX compatibility
//   KernelParams.h          the memref calling convention
//   LaunchPlan.h            variant selection and step order (no driver)
//   Launcher.h              Kernel and BundleLauncher (CUDA driver)
//   GemmProblem.h           the GEMM family's problem and checks
//   DeviceInfo.h            a device's target description
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_BUNDLE_H
#define AMK_RUNTIME_BUNDLE_H

#include "AMK/Runtime/Arch.h"
#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/KernelParams.h"
#include "AMK/Runtime/Manifest.h"
#include "AMK/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace amk::runtime {

/// A manifest together with the directory holding its cubins and PTX.
class Bundle {
public:
  /// Loads `<dir>/<name>.json`.
  static Status load(const std::string &dir, const std::string &name,
                     Bundle &out);
  /// Loads the manifest at `path`; the cubins and PTX are looked up next to
  /// it. Errors start with the path, then the line and column in the file
  /// where one is known, then the field (e.g. "kernels[1] ('tail').grid[0]").
  static Status loadManifest(const std::string &path, Bundle &out);
  /// Parses manifest `text`; `dir` is where the cubins and PTX live (a
  /// schema-2 manifest's cubins must be there) and `source` names the text
  /// in error messages.
  static Status parse(std::string_view text, const std::string &dir,
                      const std::string &source, Bundle &out);

  const Manifest &manifest() const { return data; }
  const std::string &directory() const { return dir; }
  /// The manifest's path (or the `source` given to parse()).
  const std::string &source() const { return sourceName; }
  /// The files of kernel `kernel` (index into manifest().kernels).
  std::string cubinPath(size_t kernel = 0) const;
  std::string ptxPath(size_t kernel = 0) const;
  /// Non-fatal findings, e.g. keys this runtime does not know.
  const std::vector<std::string> &warnings() const { return notes; }

  /// The sizes of a launch: every declared symbol, static ones at the
  /// manifest's value, dynamic ones from `requested`. Fails when a dynamic
  /// size has no requested value (`requested` null or without it), when a
  /// requested value disagrees with a static size or is not positive, when
  /// `requested` names an undeclared symbol, or when the buffers do not fit
  /// these sizes (int64 bytes; and the family's own checks, e.g. GEMM's
  /// operand shapes).
  Status resolveSizes(const Sizes *requested, Sizes &out) const;

  /// Evaluates kernel `kernel`'s three grid expressions for `sizes`; each
  /// must be in 1..2^32-1.
  Status evalGrid(size_t kernel, const Sizes &sizes,
                  std::array<int64_t, 3> &grid) const;
  /// The same for the first kernel.
  Status evalGrid(const Sizes &sizes, std::array<int64_t, 3> &grid) const {
    return evalGrid(0, sizes, grid);
  }

  /// The index in manifest().args of the argument called `name`, or -1.
  int findArg(std::string_view name) const;

private:
  Manifest data;
  std::string dir;
  std::string sourceName;
  std::vector<std::string> notes;
};

} // namespace amk::runtime

#endif // AMK_RUNTIME_BUNDLE_H
