//===- Harness.h - Static checks of planned kernels -------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The harness's resource part: a planned kernel against its target. Every
// finding carries a stable check id so that a program (or an agent) can act
// on it:
//
//   AMK-NO-TARGET          the module has no #amk.target
//   AMK-RES-THREADS        threads per block > max_threads_per_block or
//                          > max_block_dim_x (blocks are 1-D)
//   AMK-RES-SMEM           dynamic shared memory > smem_per_block_optin_bytes,
//                          or > smem_per_sm_bytes -
//                          smem_reserved_per_block_bytes
//   AMK-RES-REGS           estimated registers/thread > regs_per_thread, or
//                          registers/thread x threads > regs_per_block
//   AMK-RES-OCCUPANCY      no block fits on an SM although each per-block limit
//                          holds (e.g. the register file's 4 sub-partitions)
//   AMK-RES-GRID           a static grid dimension exceeds max_grid_dim_x/y/z
//   AMK-SYNTH-UNSUPPORTED  the synthesizer cannot generate the config
//                          (the family's ProblemModel::checkLowerable)
//
// The numbers come from the config's family (Family.h: ProblemModel); the
// checks are the same for every family. The planner filters its candidates
// with checkKernelResources, the function
// `--amk-verify` runs, so plan never proposes what verify rejects. The checks
// of lowered kernels (AMK-UNPROVABLE, AMK-OOB, AMK-MISALIGNED, ...; one
// warning, AMK-UNCOALESCED) are listed in KernelSafety.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_HARNESS_HARNESS_H
#define AMK_HARNESS_HARNESS_H

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Family/Family.h"
#include "AMK/Target/TargetSpec.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::amk {

/// Stable check ids.
namespace check {
inline constexpr llvm::StringLiteral kNoTarget = "AMK-NO-TARGET";
inline constexpr llvm::StringLiteral kThreads = "AMK-RES-THREADS";
inline constexpr llvm::StringLiteral kSmem = "AMK-RES-SMEM";
inline constexpr llvm::StringLiteral kRegs = "AMK-RES-REGS";
inline constexpr llvm::StringLiteral kOccupancy = "AMK-RES-OCCUPANCY";
inline constexpr llvm::StringLiteral kGrid = "AMK-RES-GRID";
inline constexpr llvm::StringLiteral kSynthUnsupported =
    "AMK-SYNTH-UNSUPPORTED";
inline constexpr llvm::StringLiteral kUnprovable = "AMK-UNPROVABLE";
inline constexpr llvm::StringLiteral kOOB = "AMK-OOB";
/// Integer arithmetic LLVM leaves undefined: a division by zero, a shift by
/// the bit width or more.
inline constexpr llvm::StringLiteral kIntegerUB = "AMK-INT-UB";
inline constexpr llvm::StringLiteral kBarrierDivergent =
    "AMK-BARRIER-DIVERGENT";
/// A warp- or warpgroup-level collective (shuffle, vote, warp reduction,
/// mma.sync, ldmatrix, wgmma) that some threads of its group may not reach.
inline constexpr llvm::StringLiteral kConvergence = "AMK-CONVERGENCE";
inline constexpr llvm::StringLiteral kSmemRace = "AMK-SMEM-RACE";
/// Two blocks of a launch touch one element of a global buffer, one writing
/// it plainly.
inline constexpr llvm::StringLiteral kGlobalRace = "AMK-GLOBAL-RACE";
/// A counter protocol between blocks that can deadlock or order nothing: a
/// wait for a count its signals do not add up to, or for a signal that
/// comes after it; a signal or poll without its fence; a counter touched
/// otherwise; blocks that need not all be resident at once.
inline constexpr llvm::StringLiteral kGlobalSync = "AMK-GLOBAL-SYNC";
inline constexpr llvm::StringLiteral kAsyncUnwaited = "AMK-ASYNC-UNWAITED";
inline constexpr llvm::StringLiteral kMisaligned = "AMK-MISALIGNED";
inline constexpr llvm::StringLiteral kUncoalesced = "AMK-UNCOALESCED";
inline constexpr llvm::StringLiteral kMBarrierPhase = "AMK-MBARRIER-PHASE";
} // namespace check

// `--amk-verify` sets the discardable unit attribute
// AMKDialect::kVerifiedAttrName (`amk.verified`) on every kernel it accepted;
// `--amk-lower` only lowers kernels that carry it, and a kernel that fails a
// later verification (e.g. against another target) loses it.

/// One harness finding.
struct HarnessFinding {
  /// Errors reject the kernel; warnings (AMK-UNCOALESCED) inform only.
  enum class Severity { Error, Warning };

  /// Stable check id (namespace `check`).
  std::string check;
  Location loc;
  /// The kernel's name (`amk.kernel "<name>"`, the gpu.func's symbol), or ""
  /// when not yet in a kernel (planner candidates).
  std::string op;
  /// What is wrong, without the check id.
  std::string message;
  /// The value found and the limit it breaks (units in the message).
  int64_t found = 0, limit = 0;
  Severity severity = Severity::Error;
  /// Check-specific facts for tools, merged into the finding's JSON object:
  /// AMK-OOB "range" {min, max} of the indices (or bytes) touched, "bound",
  /// "unit", "dimension"; AMK-MISALIGNED "alignment" {required, proven,
  /// residue} and "bytes"; AMK-UNCOALESCED "stride" {bytes, elements[,
  /// expr]}, "sectors", "idealSectors", "warp", "accesses".
  llvm::json::Object details = llvm::json::Object();

  bool isError() const { return severity == Severity::Error; }
  /// "[AMK-RES-SMEM] <message>".
  std::string str() const;
};

/// Checks a launch against `target`: threads per block and per block
/// dimension (`block` = [x, y, z]; empty when unknown) and shared memory per
/// block (the opt-in limit, and what an SM holds next to the driver's
/// reservation). Appends one finding per broken limit at `loc`. Planned
/// kernels and lowered kernels share this check.
void checkLaunchResources(llvm::ArrayRef<int64_t> block, int64_t smemBytes,
                          const TargetSpec &target, Location loc,
                          llvm::StringRef opName,
                          llvm::SmallVectorImpl<HarnessFinding> &findings,
                          int64_t staticSmemBytes = 0,
                          llvm::ArrayRef<int64_t> grid = {});

/// Checks `config` for the problem `model` describes on `target`: the
/// synthesizer's limits and every resource limit (threads, shared memory,
/// registers, occupancy, the static grid dimensions), appending one finding
/// per broken limit at `loc`. Returns success iff nothing was appended.
LogicalResult
checkKernelResources(const ProblemModel &model,
                     KernelConfigAttrInterface config, const TargetSpec &target,
                     Location loc, llvm::StringRef opName,
                     llvm::SmallVectorImpl<HarnessFinding> &findings);

/// Checks one planned kernel against `target` through its family,
/// appending findings at the kernel's location.
LogicalResult
verifyKernelResources(KernelOp kernel, const TargetSpec &target,
                      llvm::SmallVectorImpl<HarnessFinding> &findings);

/// `a + b` for non-negative counts and byte sizes, saturated at INT64_MAX:
/// a sum past int64_t is past every limit.
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/// A count or byte size that saturates at INT64_MAX, printed as such rather
/// than as a number it is not.
inline std::string printCount(int64_t value) {
  return value == INT64_MAX ? "more than 2^63" : std::to_string(value);
}

struct KernelCheckTime;

/// The JSON report of `--amk-verify`:
/// {"kernels": N, "verified": V, "findings": [{file, line, col, check,
/// severity, op, message, found, limit, <details>}, ...]}, and with
/// `times`, "timing": {"total_ms": T, "kernels": [{"kernel", "total_ms",
/// "phases": {phase: ms}}]}.
std::string harnessFindingsToJSON(
    llvm::ArrayRef<HarnessFinding> findings, int64_t kernels, int64_t verified,
    const llvm::SmallVectorImpl<KernelCheckTime> *times = nullptr);

} // namespace mlir::amk

#endif // AMK_HARNESS_HARNESS_H
