//===- Harness.cpp - Static checks of planned kernels ---------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Harness/Harness.h"
#include "AMK/Harness/KernelSafety.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace mlir::amk;

std::string HarnessFinding::str() const {
  return ("[" + check + "] " + message);
}

void mlir::amk::checkLaunchResources(ArrayRef<int64_t> block, int64_t smemBytes,
                                     const TargetSpec &target, Location loc,
                                     StringRef opName,
                                     SmallVectorImpl<HarnessFinding> &findings,
                                     int64_t staticSmemBytes,
                                     ArrayRef<int64_t> grid) {
  auto add = [&](StringRef id, const Twine &message, int64_t found,
                 int64_t limit) {
    findings.push_back(HarnessFinding{id.str(), loc, opName.str(),
                                      message.str(), found, limit});
  };
  StringRef name = target.name;

  // Threads: the block's total, then each dimension.
  if (!block.empty()) {
    // Saturated: a product past int64_t is past every limit.
    int64_t threads = 1;
    for (int64_t d : block)
      threads = llvm::checkedMul(threads, d).value_or(INT64_MAX);
    const int64_t dimLimits[] = {target.max_block_dim_x, target.max_block_dim_y,
                                 target.max_block_dim_z};
    const char *axes[] = {"x", "y", "z"};
    if (threads > target.max_threads_per_block) {
      add(check::kThreads,
          llvm::formatv("{0} threads per block exceed the limit {1} of target "
                        "'{2}'",
                        printCount(threads), target.max_threads_per_block,
                        name),
          threads, target.max_threads_per_block);
    } else {
      for (auto [i, d] : llvm::enumerate(block)) {
        if (i < 3 && d > dimLimits[i]) {
          add(check::kThreads,
              llvm::formatv("{0} threads on block dimension {1} exceed the "
                            "limit {2} of target '{3}'",
                            d, axes[i], dimLimits[i], name),
              d, dimLimits[i]);
          break;
        }
      }
    }
  }

  // Shared memory: the opt-in per-block limit, and what one SM can give a
  // block next to the driver's reservation. Dynamic shared memory follows
  // the static allocations, 16-byte aligned.
  int64_t total = saturatingAdd(smemBytes, staticSmemBytes);
  if (smemBytes && staticSmemBytes)
    total = saturatingAdd(total, 15);
  std::string what =
      staticSmemBytes
          ? llvm::formatv("shared memory {0} B ({1} B static{2})",
                          printCount(total), printCount(staticSmemBytes),
                          smemBytes ? llvm::formatv(" + {0} B dynamic + up to "
                                                    "15 B alignment",
                                                    smemBytes)
                                          .str()
                                    : std::string())
                .str()
          : llvm::formatv("dynamic shared memory {0} B", total).str();
  int64_t perSMLimit =
      target.smem_per_sm_bytes - target.smem_reserved_per_block_bytes;
  if (total > target.smem_per_block_optin_bytes)
    add(check::kSmem,
        llvm::formatv("{0} exceeds the opt-in limit {1} B of target '{2}'",
                      what, target.smem_per_block_optin_bytes, name),
        total, target.smem_per_block_optin_bytes);
  else if (total > perSMLimit)
    add(check::kSmem,
        llvm::formatv("{0} exceeds the {1} B an SM of target '{2}' holds per "
                      "block ({3} B per SM, {4} B reserved per block)",
                      what, perSMLimit, name, target.smem_per_sm_bytes,
                      target.smem_reserved_per_block_bytes),
        total, perSMLimit);

  // Grid: each dimension against its limit.
  const int64_t gridLimits[] = {target.max_grid_dim_x, target.max_grid_dim_y,
                                target.max_grid_dim_z};
  static const char *const dims[] = {"x", "y", "z"};
  for (auto [i, g] : llvm::enumerate(grid)) {
    if (i >= 3 || g <= gridLimits[i])
      continue;
    add(check::kGrid,
        llvm::formatv(
            "grid {0} exceeds max_grid_dim_{1} = {2} of target "
            "'{3}'",
            llvm::join(llvm::map_range(
                           grid, [](int64_t x) { return std::to_string(x); }),
                       "x"),
            dims[i], gridLimits[i], name),
        g, gridLimits[i]);
    break;
  }
}

LogicalResult mlir::amk::checkKernelResources(
    const ProblemModel &model, KernelConfigAttrInterface config,
    const TargetSpec &target, Location loc, StringRef opName,
    SmallVectorImpl<HarnessFinding> &findings) {
  size_t before = findings.size();
  auto add = [&](StringRef id, const Twine &message, int64_t found,
                 int64_t limit) {
    findings.push_back(HarnessFinding{id.str(), loc, opName.str(),
                                      message.str(), found, limit});
  };
  StringRef name = target.name;

  FailureOr<KernelResources> resources = model.getResources(config);
  if (failed(resources)) {
    add(check::kSynthUnsupported,
        "config " + llvm::to_string(config) + " is not of the problem's family",
        0, 0);
    return failure();
  }
  const KernelResources &r = *resources;

  // What the synthesizer can generate at all.
  std::string whyNot;
  if (failed(model.checkLowerable(config, whyNot)))
    add(check::kSynthUnsupported,
        "the synthesizer cannot generate this config: " + whyNot, 0, 0);

  // Threads and shared memory: the checks every lowered kernel gets too.
  checkLaunchResources(r.block, r.dynamicSmemBytes + r.staticSmemBytes, target,
                       loc, opName, findings);

  // Registers (estimated, with margin).
  bool regsFail = false;
  if (r.regsPerThread > target.regs_per_thread) {
    regsFail = true;
    add(check::kRegs,
        llvm::formatv("estimated {0} registers per thread exceed the limit {1} "
                      "of target '{2}'",
                      r.regsPerThread, target.regs_per_thread, name),
        r.regsPerThread, target.regs_per_thread);
  } else if (r.regsPerThread * r.threadsPerBlock > target.regs_per_block) {
    regsFail = true;
    add(check::kRegs,
        llvm::formatv("estimated {0} registers per thread x {1} threads = {2} "
                      "registers exceed the {3} per block of target '{4}'",
                      r.regsPerThread, r.threadsPerBlock,
                      r.regsPerThread * r.threadsPerBlock,
                      target.regs_per_block, name),
        r.regsPerThread * r.threadsPerBlock, target.regs_per_block);
  }

  // Occupancy: only worth a finding of its own when every per-block limit
  // holds and still no block fits.
  bool perBlockFail =
      findings.size() != before &&
      llvm::any_of(llvm::drop_begin(findings, before),
                   [](const HarnessFinding &f) {
                     return f.check != check::kSynthUnsupported &&
                            f.check != check::kGrid;
                   });
  if (!perBlockFail && !regsFail && r.blocksPerSM == 0) {
    std::string detail;
    if (r.blocksPerSMByRegs == 0)
      detail = llvm::formatv(
          "the hardware assumes {0} registers per block ({1} per warp x {2} "
          "warps rounded up to {3} sub-partitions), more than its {4}",
          r.regsAssumedPerBlock, r.regsPerWarp, r.warpsPerBlock, 4,
          target.regs_per_block);
    else
      detail = ("limited by " + r.getOccupancyLimiter()).str();
    add(check::kOccupancy,
        llvm::formatv("no block of {0} threads fits on an SM of target '{1}': "
                      "{2}",
                      r.threadsPerBlock, name, detail),
        0, 1);
  }

  // Grid, for the dimensions the problem's static sizes fix.
  std::array<int64_t, 3> limits = {target.max_grid_dim_x, target.max_grid_dim_y,
                                   target.max_grid_dim_z};
  static const char *const dims[] = {"x", "y", "z"};
  bool allStatic = llvm::all_of(r.grid, [](auto g) { return g.has_value(); });
  for (int i = 0; i < 3; ++i) {
    if (!r.grid[i] || *r.grid[i] <= limits[i])
      continue;
    if (allStatic)
      add(check::kGrid,
          llvm::formatv("grid {0}x{1}x{2} exceeds max_grid_dim_{3} = {4} of "
                        "target '{5}'",
                        *r.grid[0], *r.grid[1], *r.grid[2], dims[i], limits[i],
                        name),
          *r.grid[i], limits[i]);
    else
      add(check::kGrid,
          llvm::formatv("grid dimension {0} = {1} exceeds max_grid_dim_{0} = "
                        "{2} of target '{3}'",
                        dims[i], *r.grid[i], limits[i], name),
          *r.grid[i], limits[i]);
  }
  return success(findings.size() == before);
}

LogicalResult
mlir::amk::verifyKernelResources(KernelOp kernel, const TargetSpec &target,
                                 SmallVectorImpl<HarnessFinding> &findings) {
  auto unsupported = [&](const Twine &message) {
    findings.push_back(
        HarnessFinding{check::kSynthUnsupported.str(), kernel.getLoc(),
                       kernel.getSymName().str(), message.str(), 0, 0});
    return failure();
  };
  ProblemOpInterface problem = kernel.getProblem();
  StringRef family = kernel.getConfig().getProblemFamily();
  const KernelFamily *impl = lookupFamily(family);
  if (!problem || !impl)
    return unsupported("no family '" + family +
                       "' is registered (known: " + listFamilyNames() + ")");
  std::string whyNot;
  FailureOr<SmallVector<DispatchEntry>> dispatch =
      getDispatchEntries(kernel, whyNot);
  if (failed(dispatch))
    return unsupported(whyNot);
  // The kernel's own config and every dispatch variant's: all are emitted.
  std::unique_ptr<ProblemModel> model = impl->getModel(problem, target);
  bool ok = succeeded(checkKernelResources(*model, kernel.getConfig(), target,
                                           kernel.getLoc(), kernel.getSymName(),
                                           findings));
  for (const DispatchEntry &entry : *dispatch)
    ok &= succeeded(checkKernelResources(*model, entry.config, target,
                                         kernel.getLoc(), kernel.getSymName(),
                                         findings));
  return success(ok);
}

std::string mlir::amk::harnessFindingsToJSON(
    ArrayRef<HarnessFinding> findings, int64_t kernels, int64_t verified,
    const SmallVectorImpl<KernelCheckTime> *times) {
  llvm::json::Array array;
  for (const HarnessFinding &f : findings) {
    llvm::json::Object obj;
    std::string file;
    int64_t line = 0, col = 0;
    if (auto fileLoc = f.loc->findInstanceOf<FileLineColRange>()) {
      file = fileLoc.getFilename().str();
      line = fileLoc.getStartLine();
      col = fileLoc.getStartColumn();
    }
    obj["file"] = file;
    obj["line"] = line;
    obj["col"] = col;
    obj["check"] = f.check;
    obj["op"] = f.op;
    obj["message"] = f.message;
    obj["found"] = f.found;
    obj["limit"] = f.limit;
    obj["severity"] = f.isError() ? "error" : "warning";
    for (const auto &detail : f.details)
      obj[detail.first] = detail.second;
    array.push_back(std::move(obj));
  }
  llvm::json::Object root;
  root["kernels"] = kernels;
  root["verified"] = verified;
  root["findings"] = std::move(array);
  if (times) {
    llvm::json::Array perKernel;
    double total = 0;
    for (const KernelCheckTime &t : *times) {
      llvm::json::Object phases;
      for (const auto &[phase, ms] : t.phases)
        phases[phase] = ms;
      perKernel.push_back(llvm::json::Object{{"kernel", t.kernel},
                                             {"total_ms", t.totalMs()},
                                             {"phases", std::move(phases)}});
      total += t.totalMs();
    }
    root["timing"] = llvm::json::Object{{"total_ms", total},
                                        {"kernels", std::move(perKernel)}};
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return out;
}
