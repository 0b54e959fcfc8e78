//===- Manifest.h - The contents of a bundle manifest -----------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// A parsed manifest (docs/BUNDLE.md), family-neutral: the runtime launches a
// bundle of any family from its sizes, buffers, kernels and variants alone.
// The family's problem is kept as JSON; a family that needs more (GEMM: the
// problem's fields, argument checks) reads it in its own file
// (GemmProblem.h).
//
// Schema 1 (one GEMM kernel, what the compiler writes today) reads into the
// same model as schema 2: sizes B, M, N, K from the problem, one kernel named
// after the manifest, one variant without a condition whose steps are the
// kernel, preceded by a zero step of C when the manifest says zero_output.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_MANIFEST_H
#define AMK_RUNTIME_MANIFEST_H

#include "AMK/Runtime/Json.h"
#include "AMK/Runtime/ScalarType.h"
#include "AMK/Runtime/Sizes.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace amk::runtime {

/// The target description the bundle was planned for (`#amk.target` as
/// JSON): the fields of TargetFields.def plus the target's name.
struct TargetDesc {
  std::string name;
#define AMK_TARGET_INT(key, limit, doc) int64_t key = 0;
#define AMK_TARGET_STR(key, doc) std::string key;
#include "AMK/Target/TargetFields.def"
};

/// One dimension of a buffer's shape: a size symbol or, when `symbol` is
/// empty, the fixed `extent`.
struct ShapeDim {
  std::string symbol;
  int64_t extent = 0;
};

/// A buffer: an argument the caller passes ("args") or one the runtime
/// allocates ("workspace"). Both are contiguous row-major memrefs.
struct BufferSpec {
  std::string name;
  std::string kind = "memref";
  ScalarType elem = ScalarType::F32;
  std::vector<ShapeDim> shape;
  /// Whether the kernels write it ("written"; without the key, as bundles
  /// before it had, any argument may be written).
  bool written = true;
  /// Workspace only ("kept_zero"): the runtime zeroes it when it allocates
  /// it, and every launch leaves it zeroed again, so no launch zeroes it.
  bool keptZero = false;

  /// The extents of the shape at `sizes` (every symbol of the shape given).
  std::vector<int64_t> extents(const Sizes &sizes) const;
  /// Row-major contiguous strides for `extents` (the last stride is 1).
  static std::vector<int64_t>
  contiguousStrides(const std::vector<int64_t> &extents);
  /// The buffer's bytes at `sizes`; fails when an extent is not positive or
  /// the size overflows int64.
  Status bytes(const Sizes &sizes, int64_t &out) const;
};

/// Schema 1 called the buffers "args"; the name stays for its users.
using ArgSpec = BufferSpec;

/// A TMA tensor map a kernel takes (schema 2 "tensor_maps"): the launcher
/// encodes it from `buffer` at the launch's sizes (the buffer's dimensions,
/// innermost first; out-of-bounds elements read as zero) and passes a
/// pointer to the 128-byte map in device memory.
struct TensorMapSpec {
  std::string name;
  std::string buffer;
  /// Box extents in elements, innermost first, one per buffer dimension.
  std::vector<int64_t> box;
  /// 0 (none), 32, 64 or 128.
  int64_t swizzleBytes = 0;
};

/// One kernel of the bundle: a function in a cubin (and its PTX) with its
/// launch configuration and the buffers it takes, in parameter order.
struct KernelSpec {
  std::string name;  ///< The name steps use.
  std::string entry; ///< The function in the cubin.
  std::string cubin; ///< File name, relative to the bundle directory.
  std::string ptx;   ///< File name, relative to the bundle directory.
  std::string config;
  std::array<int64_t, 3> block = {1, 1, 1};
  std::array<std::string, 3> grid; ///< Size expressions.
  int64_t dynamicSmemBytes = 0;
  int64_t estimatedRegsPerThread = 0; ///< 0: unknown.
  /// Its blocks wait for each other (a counter protocol): every block must
  /// be resident at once, so it is launched cooperatively.
  bool cooperative = false;
  /// It begins by waiting for the kernel before it on the stream
  /// (griddepcontrol.wait), so it may be launched while that one still runs
  /// (programmatic dependent launch).
  bool programmatic = false;
  /// Buffer names (args or workspace), one memref parameter group each, or
  /// tensor map names, one pointer each.
  std::vector<std::string> params;
  std::vector<TensorMapSpec> tensorMaps;
  /// The block tile (M, N, K); zeros when the manifest does not say.
  std::array<int64_t, 3> tile = {0, 0, 0};
  /// The planner's predicted time, us (0: unknown).
  double predictedUs = 0;
  std::string cacheKey;
  std::string verdictStatus; ///< Empty when the kernel has no own verdict.
  JsonValue verdict;

  /// The index in `tensorMaps` of the map called `name`, or -1.
  int findTensorMap(std::string_view name) const;
};

/// One step of a launch: a kernel, or zeroing all bytes of a buffer.
struct StepSpec {
  enum class Kind { Kernel, Zero };

  std::string id; ///< Empty when nothing refers to the step.
  Kind kind = Kind::Kernel;
  std::string kernel;             ///< Kind::Kernel: the kernel's name.
  std::string buffer;             ///< Kind::Zero: the buffer's name.
  std::vector<std::string> after; ///< Ids of steps that run first.

  /// "'id'" or, for a step without id, "kernel 'main'" / "zero 'C'".
  std::string describe() const;
};

/// A way to run the bundle, launched when `when` holds (the first such).
struct VariantSpec {
  std::string when; ///< A condition; empty: always.
  std::vector<StepSpec> steps;
  /// Indices into `steps` in the order they run (consistent with `after`,
  /// listed order breaking ties); computed when the manifest is read.
  std::vector<size_t> order;
};

/// A parsed manifest of schema 1 or 2 (see docs/BUNDLE.md for each field).
struct Manifest {
  int64_t schema = 0;
  std::string name;
  std::string family; ///< e.g. "gemm".
  std::string arch;   ///< e.g. "sm_90a".
  TargetDesc target;
  /// The "problem" object as written; its family's file reads it.
  JsonValue problem;
  std::string signature; ///< "problem"."signature".
  /// The declared size symbols with their values (kDynamicSize: chosen at
  /// launch), in declaration order.
  Sizes sizes;
  std::vector<BufferSpec> args;      ///< What a launch is given, in order.
  std::vector<BufferSpec> workspace; ///< What the runtime allocates.
  std::vector<KernelSpec> kernels;
  std::vector<VariantSpec> variants;
  std::string flags;
  std::string verdictStatus; ///< "verdict"."status", e.g. "verified".
  JsonValue verdict;         ///< The whole "verdict" object, as written.

  /// Whether any declared size is dynamic.
  bool isDynamic() const;
  /// The buffer called `name`: args first, then workspace (index
  /// args.size() + i); -1 when there is none.
  int findBuffer(std::string_view name) const;
  /// Buffer `index` in that numbering.
  const BufferSpec &buffer(size_t index) const;
  size_t bufferCount() const { return args.size() + workspace.size(); }
  /// The index in `kernels` of the kernel called `name`, or -1.
  int findKernel(std::string_view name) const;
};

} // namespace amk::runtime

#endif // AMK_RUNTIME_MANIFEST_H
