//===- KernelSafety.cpp - The harness on GPU kernels ----------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Harness/KernelSafety.h"

#include "AMK/Analysis/Address.h"
#include "AMK/Analysis/Uniformity.h"
#include "Alignment.h"
#include "Bounds.h"
#include "BoundsRelational.h"
#include "GlobalMemory.h"
#include "GlobalProtocol.h"
#include "IntegerUB.h"
#include "MBarrier.h"
#include "NamedBarriers.h"
#include "Normalize.h"
#include "SharedMemory.h"
#include "SlotCounters.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <chrono>
#include <optional>

using namespace mlir;
using namespace mlir::amk;

std::string mlir::amk::describeOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at line " << loc.getLine();
  return s;
}

/// Dialects whose ops the harness models (every op of them is either pure
/// arithmetic, a memory access the checks understand, structured control
/// flow, or a GPU primitive).
static bool isModelled(Operation *op) {
  static const llvm::StringSet<> dialects = {
      "arith", "math", "memref", "vector", "scf", "gpu", "index", "affine",
      "ub",
      // Branches only occur in multi-block regions, reported as such.
      "cf"};
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialects.contains(dialect))
    return true;
  // A tensor map taken as a pointer (a pre-outlined gpu.func cannot take
  // !nvgpu.tensormap.descriptor arguments: docs/FACTS.md). Its global side
  // is the runtime's to encode; TMA zero-fills outside the tensor.
  // A wgmma accumulator read as the struct of registers it lowers to.
  if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
    if (cast->getNumOperands() != 1 || cast->getNumResults() != 1)
      return false;
    Type from = cast->getOperand(0).getType(),
         to = cast->getResult(0).getType();
    return (isa<LLVM::LLVMPointerType>(from) &&
            isa<nvgpu::TensorMapDescriptorType>(to)) ||
           (isa<nvgpu::WarpgroupAccumulatorType>(from) &&
            isa<LLVM::LLVMStructType>(to));
  }
  // The NVVM ops AMK's kernels use: special registers, barriers, MMAs;
  // and warp votes (convergent: checkConvergence).
  // nvgpu: the async copies, their groups and waits, ldmatrix and mma.sync;
  // mbarriers created, initialized, arrived on and waited on by parity
  // (MBarrier.cpp), with transaction bytes (`arrive.expect_tx`) that TMA
  // loads deliver; wgmma as nvgpu.warpgroup.mma on generated descriptors
  // (its operand reads in flight until a wgmma wait retires them) and the
  // warpgroup's accumulator store; not test_wait or TMA stores.
  if (dialect == "nvgpu")
    return isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
               nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp,
               nvgpu::MBarrierArriveExpectTxOp,
               nvgpu::WarpgroupGenerateDescriptorOp, nvgpu::WarpgroupMmaOp,
               nvgpu::WarpgroupMmaInitAccumulatorOp, nvgpu::WarpgroupMmaStoreOp,
               nvgpu::DeviceAsyncWaitOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp,
               nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp,
               nvgpu::MBarrierArriveOp, nvgpu::MBarrierTryWaitParityOp>(op);
  if (dialect == "nvvm")
    return isa<NVVM::Barrier0Op, NVVM::BarrierOp, NVVM::ClusterArriveOp,
               NVVM::ClusterWaitOp, NVVM::MmaOp, NVVM::ThreadIdXOp,
               NVVM::ThreadIdYOp, NVVM::ThreadIdZOp, NVVM::BlockIdXOp,
               NVVM::BlockIdYOp, NVVM::BlockIdZOp, NVVM::BlockDimXOp,
               NVVM::BlockDimYOp, NVVM::BlockDimZOp, NVVM::LaneIdOp,
               NVVM::ElectSyncOp, NVVM::FenceProxyOp, NVVM::MembarOp,
               NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
               NVVM::WgmmaWaitGroupSyncOp, NVVM::SetMaxRegisterOp,
               NVVM::GriddepcontrolOp, NVVM::VoteSyncOp, NVVM::LaneMaskLtOp,
               NVVM::LaneMaskLeOp, NVVM::LaneMaskEqOp, NVVM::LaneMaskGeOp,
               NVVM::LaneMaskGtOp, NVVM::SyncWarpOp>(op);
  // Value plumbing of the NVVM MMA results, and constants (which the range
  // analysis below reads).
  return isa<LLVM::ExtractValueOp, LLVM::InsertValueOp, LLVM::UndefOp,
             LLVM::PoisonOp, LLVM::ConstantOp>(op);
}

/// A dimension of a dense buffer (identity layout) whose element size is
/// known: its bytes, the product of its sizes and the element's, fit in
/// int64 as every allocation's do, so the dimension is at most INT64_MAX
/// over the element bytes and the other dimensions' static sizes (rows *
/// 64 of a memref<?x64xf32> cannot wrap).
static std::optional<ConstantIntRanges> getDenseDimRange(memref::DimOp op) {
  auto type = dyn_cast<MemRefType>(op.getSource().getType());
  std::optional<int64_t> index = op.getConstantIndex();
  if (!type || !index || *index < 0 || *index >= type.getRank() ||
      !type.isDynamicDim(*index) || !type.getLayout().isIdentity())
    return std::nullopt;
  Type elem = type.getElementType();
  int64_t bytes =
      elem.isIndex() ? 8
      : elem.isIntOrFloat()
          ? int64_t(llvm::divideCeil(elem.getIntOrFloatBitWidth(), 8))
          : 0;
  if (bytes == 0)
    return std::nullopt;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (int64_t(d) != *index && !ShapedType::isDynamic(size) && size > 0 &&
        llvm::MulOverflow(bytes, size, bytes))
      return std::nullopt;
  unsigned width = ConstantIntRanges::getStorageBitwidth(op.getType());
  return ConstantIntRanges::fromSigned(
      APInt(width, 0),
      APInt(width, std::numeric_limits<int64_t>::max() / bytes));
}

/// The range CUDA itself gives a thread index or block dimension (a block
/// is at most 1024 x 1024 x 64 threads on every architecture), for an op
/// upstream's range interface knows no bound of: no `upper_bound`, no
/// known_block_size on its function.
static std::optional<ConstantIntRanges> getArchitecturalRange(Operation *op) {
  if (auto dimOp = dyn_cast<memref::DimOp>(op))
    return getDenseDimRange(dimOp);
  std::optional<int> dim;
  bool isSize = false;
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
    if (!tid.getUpperBound())
      dim = int(tid.getDimension());
  } else if (auto bdim = dyn_cast<gpu::BlockDimOp>(op)) {
    if (!bdim.getUpperBound())
      dim = int(bdim.getDimension());
    isSize = true;
  } else if (!op->hasAttr("range")) {
    if (isa<NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp>(op))
      dim = isa<NVVM::ThreadIdXOp>(op) ? 0 : isa<NVVM::ThreadIdYOp>(op) ? 1 : 2;
    if (isa<NVVM::BlockDimXOp, NVVM::BlockDimYOp, NVVM::BlockDimZOp>(op)) {
      dim = isa<NVVM::BlockDimXOp>(op) ? 0 : isa<NVVM::BlockDimYOp>(op) ? 1 : 2;
      isSize = true;
    }
  }
  if (!dim || op->getNumResults() != 1)
    return std::nullopt;
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func || func.getKnownBlockSizeAttr() ||
      op->getParentOfType<gpu::LaunchOp>())
    return std::nullopt;
  unsigned width =
      ConstantIntRanges::getStorageBitwidth(op->getResult(0).getType());
  if (width < 32)
    return std::nullopt;
  int64_t lo = isSize ? 1 : 0, hi = kMaxBlockDims[*dim] - (isSize ? 0 : 1);
  return ConstantIntRanges::fromUnsigned(APInt(width, lo), APInt(width, hi));
}

namespace {
/// Upstream's integer range analysis, which also knows an integer
/// llvm.mlir.constant (that op has no range interface) and CUDA's limits on
/// a block's dimensions.
class KernelRangeAnalysis : public dataflow::IntegerRangeAnalysis {
public:
  KernelRangeAnalysis(DataFlowSolver &solver, Operation *kernel)
      : IntegerRangeAnalysis(solver), slots(kernel) {}

  LogicalResult visitOperation(
      Operation *op,
      ArrayRef<const dataflow::IntegerValueRangeLattice *> operands,
      ArrayRef<dataflow::IntegerValueRangeLattice *> results) override {
    std::optional<ConstantIntRanges> known = getArchitecturalRange(op);
    if (auto constant = dyn_cast<LLVM::ConstantOp>(op))
      if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
        known = ConstantIntRanges::constant(value.getValue());
    // A slot of a counter the launch zeroes: below the launch's adds.
    if (std::optional<std::pair<int64_t, int64_t>> slot = slots.getRange(op)) {
      unsigned width =
          ConstantIntRanges::getStorageBitwidth(op->getResult(0).getType());
      known = ConstantIntRanges::fromSigned(
          APInt(width, slot->first, /*isSigned=*/true),
          APInt(width, slot->second, /*isSigned=*/true));
    }
    if (known) {
      dataflow::IntegerValueRangeLattice *result = results.front();
      propagateIfChanged(result, result->join(IntegerValueRange(*known)));
      return success();
    }
    return IntegerRangeAnalysis::visitOperation(op, operands, results);
  }

  /// Upstream bounds a loop's induction variable by [lb, ub - 1]; with a
  /// constant lb and step it takes only lb + step * t, so its largest value
  /// is the last of those below ub (a loop `for i = 0 to 32 step 8` indexes
  /// rows w + i of a 32-row tile with w < 8).
  void visitNonControlFlowArguments(
      Operation *op, const RegionSuccessor &successor,
      ArrayRef<dataflow::IntegerValueRangeLattice *> argLattices,
      unsigned firstIndex) override {
    auto loop = dyn_cast<scf::ForOp>(op);
    std::optional<int64_t> lb, step;
    if (loop) {
      lb = getConstantIntValue(loop.getLowerBound());
      step = getConstantIntValue(loop.getStep());
    }
    const dataflow::IntegerValueRangeLattice *ub =
        lb && step && *step > 1 && !loop.getUnsignedCmp()
            ? getLatticeElementFor(getProgramPointBefore(loop.getBody()),
                                   loop.getUpperBound())
            : nullptr;
    int64_t last;
    if (!ub || ub->getValue().isUninitialized() ||
        !tryLastValue(*lb, *step, ub->getValue().getValue().smax(), last))
      return IntegerRangeAnalysis::visitNonControlFlowArguments(
          op, successor, argLattices, firstIndex);
    unsigned width =
        ConstantIntRanges::getStorageBitwidth(loop.getInductionVar().getType());
    dataflow::IntegerValueRangeLattice *iv =
        getLatticeElement(loop.getInductionVar());
    propagateIfChanged(iv,
                       iv->join(IntegerValueRange(ConstantIntRanges::fromSigned(
                           APInt(width, *lb, /*isSigned=*/true),
                           APInt(width, last, /*isSigned=*/true)))));
  }

private:
  SlotCounters slots;

  /// The last of lb, lb + step, ... below `ub` (signed), when the loop runs
  /// at least once and nothing overflows.
  static bool tryLastValue(int64_t lb, int64_t step, const APInt &ub,
                           int64_t &last) {
    if (ub.getSignificantBits() > 64)
      return false;
    int64_t span;
    if (llvm::SubOverflow(ub.getSExtValue(), lb, span) || span < 1)
      return false;
    last = lb + (span - 1) / step * step;
    return true;
  }
};
} // namespace

static bool isBarrier(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op);
}

bool mlir::amk::isClusterBarrier(Operation *op) {
  if (!isa<NVVM::ClusterWaitOp>(op))
    return false;
  Operation *arrive = op->getPrevNode();
  return arrive && isa<NVVM::ClusterArriveOp>(arrive);
}

bool mlir::amk::isBlockBarrier(Operation *op) {
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op) || isClusterBarrier(op))
    return true;
  auto bar = dyn_cast<NVVM::BarrierOp>(op);
  if (!bar)
    return false;
  if (!bar.getNumberOfThreads())
    return true;
  std::optional<int64_t> count = getConstantIntValue(bar.getNumberOfThreads());
  // The block's size: a kernel's known_block_size, or a launch's constant
  // block operands.
  std::optional<int64_t> threads = 1;
  if (auto launch = op->getParentOfType<gpu::LaunchOp>()) {
    for (Value d : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                    launch.getBlockSizeZ()}) {
      std::optional<int64_t> size = getConstantIntValue(d);
      threads = size && threads ? std::optional<int64_t>(*threads * *size)
                                : std::nullopt;
    }
  } else if (auto func = op->getParentOfType<gpu::GPUFuncOp>();
             func && func.getKnownBlockSizeAttr()) {
    for (int32_t d : func.getKnownBlockSizeAttr().asArrayRef())
      *threads *= d;
  } else {
    threads = std::nullopt;
  }
  return count && threads && *count == *threads;
}

/// `v` when integer arithmetic on constants computes it.
static std::optional<int64_t> foldConstant(Value v) {
  return evaluateInteger(
      v,
      [](Value x) -> std::optional<int64_t> {
        APInt c;
        if (matchPattern(x, m_ConstantInt(&c)))
          return c.getSExtValue();
        return std::nullopt;
      },
      /*maxDepth=*/17);
}

/// The grid of the kernel's launches in its module, when there are some
/// and the module uses the kernel for nothing else: per dimension the
/// largest size, or 0 when some launch's is not a constant (empty: none).
/// The gpu.launch_func ops of `func` in its outermost module; `whole` says
/// whether they are all its uses (no other reference launches it in ways
/// not seen here).
static SmallVector<gpu::LaunchFuncOp> getLaunches(gpu::GPUFuncOp func,
                                                  bool &whole) {
  SmallVector<gpu::LaunchFuncOp> launches;
  whole = false;
  Operation *top = func->getParentOp();
  while (top && top->getParentOp())
    top = top->getParentOp();
  auto module = dyn_cast_or_null<gpu::GPUModuleOp>(func->getParentOp());
  if (!top || !module)
    return launches;
  whole = true;
  top->walk([&](Operation *op) {
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch) {
      for (NamedAttribute attr : op->getAttrs())
        if (auto ref = dyn_cast<SymbolRefAttr>(attr.getValue()))
          if (ref.getLeafReference() == func.getNameAttr() &&
              ref.getRootReference() == module.getSymNameAttr())
            whole = false;
      return;
    }
    if (launch.getKernelModuleName() == module.getSymNameAttr() &&
        launch.getKernelName() == func.getNameAttr())
      launches.push_back(launch);
  });
  return launches;
}

static SmallVector<int64_t, 3> getLaunchGrid(gpu::GPUFuncOp func) {
  bool whole;
  SmallVector<gpu::LaunchFuncOp> launches = getLaunches(func, whole);
  if (!whole)
    return {};
  SmallVector<int64_t, 3> grid;
  for (gpu::LaunchFuncOp launch : launches) {
    gpu::KernelDim3 size = launch.getGridSizeOperandValues();
    Value dims[] = {size.x, size.y, size.z};
    bool first = grid.empty();
    grid.resize(3, 0);
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> c = foldConstant(dims[d]);
      grid[d] =
          c && *c > 0 && (first || grid[d] > 0) ? std::max(grid[d], *c) : 0;
    }
  }
  return grid;
}

/// What the kernel states about its launches holds for every launch of it
/// in the module: the dynamic shared memory it was checked against
/// (amk.dynamic_smem_bytes) is provided, and a known_grid_size is the
/// launch's grid. A launch whose value is not a constant cannot be compared.
static void checkLaunchesMatch(
    gpu::GPUFuncOp func,
    llvm::function_ref<void(StringRef, Operation *, const Twine &)> report) {
  auto smem = func->getAttrOfType<IntegerAttr>(kDynamicSmemAttrName);
  DenseI32ArrayAttr knownGrid = func.getKnownGridSizeAttr();
  if (!smem && !knownGrid)
    return;
  bool whole;
  for (gpu::LaunchFuncOp launch : getLaunches(func, whole)) {
    if (smem) {
      Value size = launch.getDynamicSharedMemorySize();
      std::optional<int64_t> given = size ? foldConstant(size) : 0;
      if (!given)
        report(check::kUnprovable, launch,
               llvm::formatv("the kernel was checked against {0} bytes of "
                             "dynamic shared memory ({1}), but this launch's "
                             "size is not a constant",
                             smem.getInt(), kDynamicSmemAttrName)
                   .str());
      else if (*given < smem.getInt())
        report(check::kSmem, launch,
               llvm::formatv("the kernel was checked against {0} bytes of "
                             "dynamic shared memory ({1}), but this launch "
                             "provides {2}: its accesses past them are out "
                             "of bounds",
                             smem.getInt(), kDynamicSmemAttrName, *given)
                   .str());
    }
    if (knownGrid && knownGrid.size() == 3) {
      gpu::KernelDim3 dims = launch.getGridSizeOperandValues();
      Value values[] = {dims.x, dims.y, dims.z};
      for (int d = 0; d < 3; ++d) {
        std::optional<int64_t> c = foldConstant(values[d]);
        if (c && *c == knownGrid[d])
          continue;
        report(c ? check::kGrid : check::kUnprovable, launch,
               llvm::formatv("the kernel states known_grid_size {0} in "
                             "dimension {1}, but this launch's grid there is "
                             "{2}: the checks assumed the stated grid",
                             knownGrid[d], d,
                             c ? std::to_string(*c) : "not a constant")
                   .str());
        break;
      }
    }
  }
}

/// Bytes of a static shared allocation of `type` aligned to `align`; 0 and a
/// reason when its size is not static.
static int64_t staticBytes(MemRefType type, std::string &whyNot) {
  if (!type.hasStaticShape() || !elementBytes(type.getElementType())) {
    whyNot =
        llvm::formatv("a shared allocation of {0} has no static size", type)
            .str();
    return 0;
  }
  return getStaticSizeInBytes(type).value_or(INT64_MAX);
}

/// An alignment as stated (1 if none), saturated to int64_t.
static int64_t clampAlignment(std::optional<uint64_t> align) {
  return int64_t(std::min<uint64_t>(align.value_or(1), INT64_MAX));
}

FailureOr<int64_t> mlir::amk::getStaticSharedMemory(
    Operation *kernel,
    llvm::function_ref<void(Operation *, const Twine &)> unprovable) {
  // Every allocation at its alignment: after the first, each may be padded
  // by up to its alignment - 1 bytes, wherever ptxas places it.
  // Sums saturate (saturatingAdd): the resource check reports them.
  int64_t total = 0, padding = 0, minPad = INT64_MAX;
  bool failedOne = false;
  auto add = [&](Operation *at, MemRefType type, int64_t align) {
    std::string whyNot;
    int64_t bytes = staticBytes(type, whyNot);
    if (!whyNot.empty()) {
      unprovable(at, whyNot);
      failedOne = true;
      return;
    }
    align =
        std::max(align, naturalAlignment(elementBytes(type.getElementType())));
    total = saturatingAdd(total, bytes);
    padding = saturatingAdd(padding, align - 1);
    minPad = std::min(minPad, align - 1);
  };
  StringRef alignName = LLVM::LLVMDialect::getAlignAttrName();
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
    for (auto [i, arg] : llvm::enumerate(func.getWorkgroupAttributions()))
      if (auto type = dyn_cast<MemRefType>(arg.getType())) {
        auto align = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, alignName));
        add(func, type, align ? align.getInt() : 1);
      }
  llvm::SmallPtrSet<Operation *, 4> globals;
  kernel->walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!isWorkgroupMemRef(type))
        return;
      std::optional<uint64_t> align =
          isa<memref::AllocOp>(op) ? cast<memref::AllocOp>(op).getAlignment()
                                   : cast<memref::AllocaOp>(op).getAlignment();
      add(op, type, clampAlignment(align));
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      if (!isWorkgroupMemRef(get.getType()))
        return;
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          op, get.getNameAttr());
      if (!global) {
        unprovable(op, "a shared global the harness cannot find");
        failedOne = true;
        return;
      }
      if (globals.insert(global).second)
        add(op, global.getType(), clampAlignment(global.getAlignment()));
    } else if (auto group = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      // A shared array of 8-byte barriers.
      unsigned count = group.getBarriers().getType().getNumBarriers();
      add(op,
          MemRefType::get({int64_t(count)},
                          IntegerType::get(op->getContext(), 64)),
          8);
    }
  });
  if (failedOne)
    return failure();
  int64_t bytes = total ? saturatingAdd(total, padding - minPad) : 0;
  // Dynamic shared memory aligned past 16 bytes starts at the next multiple
  // of its alignment after the static bytes.
  if (auto align =
          kernel->getAttrOfType<IntegerAttr>(kDynamicSmemAlignAttrName);
      bytes && align && align.getInt() > 16 && align.getInt() <= (1 << 20))
    bytes = saturatingAdd(bytes, align.getInt() - 1) / align.getInt() *
            align.getInt();
  return bytes;
}

namespace {
/// How the steps below report: a finding of `check` at `at`.
using Report = llvm::function_ref<void(StringRef, Operation *, const Twine &)>;
} // namespace

/// Whether every dimension of known_block_size, known_grid_size and
/// known_cluster_size is at least 1 and, for a block without a target
/// (whose limits the resource check applies), at most what any GPU
/// launches: 1024 threads (16 blocks for a cluster). Every check below sizes
/// threads and blocks by these attributes: a dimension below 1 (which the
/// GPU dialect accepts) is no launch at all and would size their tables
/// negatively; one past what a GPU launches would have them enumerate
/// billions of threads.
static bool checkLaunchDimensions(gpu::GPUFuncOp func, bool hasTarget,
                                  Report report) {
  static const char *const dims[] = {"x", "y", "z"};
  bool bad = false;
  for (auto [attr, what, id, limit] :
       {std::make_tuple(func.getKnownBlockSizeAttr(), "known_block_size",
                        check::kThreads, int64_t(hasTarget ? INT32_MAX : 1024)),
        std::make_tuple(func.getKnownGridSizeAttr(), "known_grid_size",
                        check::kGrid, int64_t(INT32_MAX)),
        // (No GPU makes clusters of more than 16 blocks.)
        std::make_tuple(func.getKnownClusterSizeAttr(), "known_cluster_size",
                        check::kGrid, int64_t(16))}) {
    if (!attr)
      continue;
    for (auto [i, size] : llvm::enumerate(attr.asArrayRef()))
      if ((size < 1 || size > limit) && i < 3) {
        report(id, func,
               llvm::formatv("{0} gives dimension {1} the size {2}: every "
                             "dimension of a launch is in [1, {3}]",
                             what, dims[i], size, limit));
        bad = true;
      }
  }
  return !bad;
}

/// The grid: known_grid_size, else the one every launch of the kernel in
/// its module agrees on (bounds block ids for the bounds check).
static SmallVector<int64_t, 3> getGrid(gpu::GPUFuncOp func) {
  SmallVector<int64_t, 3> grid;
  if (func) {
    if (DenseI32ArrayAttr size = func.getKnownGridSizeAttr())
      grid.assign(size.asArrayRef().begin(), size.asArrayRef().end());
    else
      grid = getLaunchGrid(func);
  }
  return grid;
}

/// A cooperative kernel's blocks wait for each other, so all of them must
/// be resident at once: its known grid against the blocks per SM the
/// occupancy model gives its block, shared memory and registers
/// (`nvvm.maxnreg`; without it, the most a thread of the block may take).
/// The cooperative launch refuses a grid that does not fit; a kernel the
/// harness accepts never meets that refusal.
static void checkCoResidency(gpu::GPUFuncOp func, ArrayRef<int64_t> block,
                             int64_t smem, int64_t staticSmem,
                             ArrayRef<int64_t> grid, const TargetSpec &target,
                             Report report) {
  if (block.size() != 3 || grid.size() != 3) {
    report(check::kUnprovable, func,
           "a cooperative kernel needs known_block_size and known_grid_size: "
           "its blocks must all be resident at once, which the harness "
           "checks against the target");
    return;
  }
  KernelResources r;
  r.threadsPerBlock = block[0] * block[1] * block[2];
  r.block = {block[0], block[1], block[2]};
  r.dynamicSmemBytes = smem;
  r.staticSmemBytes = staticSmem;
  auto maxnreg = func->getAttrOfType<IntegerAttr>("nvvm.maxnreg");
  r.regsPerThread = maxnreg
                        ? maxnreg.getInt()
                        : std::min(target.regs_per_thread,
                                   target.regs_per_block /
                                       std::max<int64_t>(r.threadsPerBlock, 1));
  computeOccupancy(r, target);
  int64_t blocks = grid[0] * grid[1] * grid[2];
  int64_t resident = r.blocksPerSM * target.sm_count;
  if (blocks <= resident)
    return;
  report(
      maxnreg ? check::kOccupancy : check::kUnprovable, func,
      llvm::formatv("the cooperative kernel's {0} blocks must all be "
                    "resident at once, but '{1}' holds {2} ({3} per SM of "
                    "{4} threads, {5} registers per thread{6}, limited by "
                    "{7})",
                    blocks, target.name, resident, r.blocksPerSM,
                    r.threadsPerBlock, r.regsPerThread,
                    maxnreg ? "" : " at most: set nvvm.maxnreg to prove less",
                    r.getOccupancyLimiter()));
}

/// Launch resources against the target: the block from known_block_size,
/// shared memory from what the launch provides plus the static allocations.
static void checkResources(Operation *kernel, gpu::GPUFuncOp func,
                           const TargetSpec &target, StringRef name,
                           SmallVectorImpl<HarnessFinding> &findings,
                           Report report) {
  SmallVector<int64_t, 3> block;
  if (func)
    if (DenseI32ArrayAttr size = func.getKnownBlockSizeAttr())
      block.assign(size.asArrayRef().begin(), size.asArrayRef().end());
  int64_t smem = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kDynamicSmemAttrName))
    smem = attr.getInt();
  FailureOr<int64_t> staticSmem =
      getStaticSharedMemory(kernel, [&](Operation *at, const Twine &why) {
        report(check::kUnprovable, at, why);
      });
  SmallVector<int64_t, 3> knownGrid;
  if (func)
    if (DenseI32ArrayAttr size = func.getKnownGridSizeAttr())
      knownGrid.assign(size.asArrayRef().begin(), size.asArrayRef().end());
  checkLaunchResources(block, smem, target, kernel->getLoc(), name, findings,
                       succeeded(staticSmem) ? *staticSmem : 0, knownGrid);
  if (func && func->hasAttr("amk.cooperative"))
    checkCoResidency(func, block, smem, succeeded(staticSmem) ? *staticSmem : 0,
                     knownGrid, target, report);
}

/// Structure first: the analyses below need structured control flow and
/// known ops; anything else is unprovable, not accepted. Whether every
/// region has one block (calls and ops the harness does not model are
/// reported, and the checks still run).
static bool checkStructure(Operation *kernel, Report report) {
  bool structured = true;
  kernel->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      if (!region.empty() && !region.hasOneBlock()) {
        report(check::kUnprovable, op,
               "unstructured control flow (a region of " + describeOp(op) +
                   " has " +
                   Twine(std::distance(region.begin(), region.end())) +
                   " blocks): lower to scf to let the harness analyse it");
        structured = false;
      }
    if (op == kernel)
      return;
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      std::string callee = "an indirect callee";
      if (auto sym =
              dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee()))
        callee = "'" + sym.getLeafReference().str() + "'";
      report(check::kUnprovable, op,
             "calls " + callee + ": the harness does not analyse calls");
      return;
    }
    // (What lifting branches to scf makes of loops and switches.)
    // (A poll on a counter is the one scf.while GlobalProtocol.cpp models.)
    if (auto loop = dyn_cast<scf::WhileOp>(op); loop && !getPollRead(loop)) {
      report(check::kUnprovable, op,
             "a loop that is not an scf.for (" + describeOp(op) +
                 ", or branches with a back edge) is not modelled: the "
                 "harness analyses loops as scf.for, and scf.while only as "
                 "a poll (an atomic read of a counter compared with a "
                 "threshold)");
      return;
    }
    // A cluster barrier as one step: its arrive right before its wait.
    if ((isa<NVVM::ClusterArriveOp>(op) &&
         !(op->getNextNode() && isClusterBarrier(op->getNextNode()))) ||
        (isa<NVVM::ClusterWaitOp>(op) && !isClusterBarrier(op))) {
      report(check::kUnprovable, op,
             "a cluster barrier whose arrive and wait are apart (" +
                 describeOp(op) +
                 ") is not modelled: put the wait right after the arrive");
      return;
    }
    if (isa<scf::IndexSwitchOp>(op)) {
      report(check::kUnprovable, op,
             "a multi-way branch (" + describeOp(op) +
                 ", or a cf.switch) is not modelled: the harness analyses "
                 "branches as scf.if");
      return;
    }
    if (!isModelled(op))
      report(check::kUnprovable, op,
             "op " + describeOp(op) + " is not modelled by the harness");
  });
  return structured;
}

std::optional<ThreadScope> mlir::amk::getConvergenceScope(Operation *op) {
  if (isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp,
          NVVM::ClusterWaitOp>(op))
    return ThreadScope::Cluster;
  if (isBarrier(op) || isa<gpu::AllReduceOp>(op))
    return ThreadScope::Block;
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("nvvm.wgmma") || name.starts_with("nvgpu.warpgroup.") ||
      isa<NVVM::SetMaxRegisterOp>(op))
    return ThreadScope::Warpgroup;
  if (isa<gpu::ShuffleOp, gpu::SubgroupReduceOp, gpu::SubgroupMmaLoadMatrixOp,
          gpu::SubgroupMmaStoreMatrixOp, gpu::SubgroupMmaComputeOp>(op) ||
      llvm::is_contained({"nvvm.shfl.sync", "nvvm.vote.sync", "nvvm.match.sync",
                          "nvvm.bar.warp.sync", "nvvm.elect.sync",
                          "nvvm.redux.sync", "nvvm.mma.sync", "nvvm.ldmatrix",
                          "nvvm.stmatrix", "nvgpu.mma.sync",
                          "nvgpu.mma.sp.sync", "nvgpu.ldmatrix"},
                         name) ||
      name.starts_with("nvvm.wmma."))
    return ThreadScope::Warp;
  return std::nullopt;
}

/// Collectives that some threads of the group they need may not reach:
/// barriers and block reductions (AMK-BARRIER-DIVERGENT) would hang or
/// read garbage, warp-level ops (AMK-CONVERGENCE) have undefined results.
static void checkConvergence(Operation *kernel,
                             const UniformityInfo &uniformity,
                             const NamedBarriers &named, Report report) {
  kernel->walk([&](Operation *op) {
    std::optional<ThreadScope> scope = getConvergenceScope(op);
    // A barrier of some of the block's threads: NamedBarriers checks that
    // they are the ones it counts.
    if (!scope || named.isPartial(op))
      return;
    Operation *branch = uniformity.getDivergentAncestor(op, *scope);
    if (!branch)
      return;
    if (*scope == ThreadScope::Cluster) {
      report(check::kBarrierDivergent, op,
             "cluster barrier " + describeOp(op) +
                 " is under control that can differ between the threads of "
                 "a cluster: " +
                 describeOp(branch) +
                 " decides by a value the cluster's blocks and threads may "
                 "not share whether (or how often) it runs, so they can "
                 "wait forever");
      return;
    }
    if (*scope == ThreadScope::Block) {
      report(check::kBarrierDivergent, op,
             (isBarrier(op) ? "barrier " : "block-wide collective ") +
                 describeOp(op) +
                 " is under thread-dependent control: " + describeOp(branch) +
                 " decides by a value derived from the thread id whether (or "
                 "how often) it runs, so threads of the block can wait "
                 "forever");
      return;
    }
    StringRef group = *scope == ThreadScope::Warp ? "warp" : "warpgroup";
    report(check::kConvergence, op,
           llvm::formatv("{0}-level {1} is under control that can differ "
                         "within a {0}: {2} decides by a value the threads "
                         "of one {0} may not share whether (or how often) it "
                         "runs; every thread of the {0} must execute it "
                         "together",
                         group, describeOp(op), describeOp(branch))
               .str());
  });
}

/// The memory checks, on one integer range analysis: bounds, alignment,
/// races and async ordering, coalescing. `before` is where the kernel's
/// findings start.
namespace {
/// Times the harness's phases into a KernelCheckTime (or nothing).
class PhaseTimer {
public:
  explicit PhaseTimer(KernelCheckTime *time) : time(time) {}
  template <typename Fn> auto operator()(StringRef phase, Fn &&fn) {
    auto start = std::chrono::steady_clock::now();
    llvm::scope_exit record([&] {
      if (time)
        time->phases.push_back(
            {phase.str(), std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count()});
    });
    return fn();
  }

private:
  KernelCheckTime *time;
};
} // namespace

LogicalResult mlir::amk::runKernelRangeAnalysis(DataFlowSolver &solver,
                                                Operation *kernel) {
  dataflow::loadBaselineAnalyses(solver);
  solver.load<KernelRangeAnalysis>(kernel);
  return solver.initializeAndRun(kernel);
}

std::optional<ConstantIntRanges>
mlir::amk::getIntegerRanges(const DataFlowSolver &solver, Value v) {
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

double KernelCheckTime::totalMs() const {
  double total = 0;
  for (const auto &phase : phases)
    total += phase.second;
  return total;
}

std::string KernelCheckTime::str() const {
  std::string parts;
  for (const auto &[phase, ms] : phases)
    parts += (parts.empty() ? "" : ", ") +
             llvm::formatv("{0} {1:f1}", phase, ms).str();
  return llvm::formatv("{0:f1} ms ({1})", totalMs(), parts).str();
}

static LogicalResult
checkMemoryAccesses(Operation *kernel, const UniformityInfo &uniformity,
                    const MBarrierPhases &phases, const NamedBarriers &named,
                    ArrayRef<int64_t> grid, const std::string &name,
                    size_t before, SmallVectorImpl<HarnessFinding> &findings,
                    Report report, PhaseTimer &timed) {
  // One integer range analysis for every check: thread ids bounded by
  // known_block_size, loop variables by their bounds.
  DataFlowSolver solver;
  if (failed(timed("ranges",
                   [&] { return runKernelRangeAnalysis(solver, kernel); }))) {
    report(check::kUnprovable, kernel, "integer range analysis failed");
    return failure();
  }

  // Ops the bounds check cannot model are not asked about again.
  llvm::DenseSet<Operation *> unprovable;
  timed("bounds", [&] {
    std::optional<bounds::RelationalBounds> relational;
    auto proveWithin = [&](Operation *at, Value v, int64_t lo, int64_t hi) {
      if (!relational)
        relational.emplace(kernel, uniformity, solver, phases, grid);
      return relational->proveWithin(at, v, lo, hi);
    };
    checkIntegerArithmetic(kernel, solver, proveWithin, report);
    checkKernelBounds(kernel, uniformity, solver, phases, grid,
                      [&](StringRef check, Operation *at, const Twine &message,
                          int64_t found, int64_t limit,
                          llvm::json::Object details) {
                        if (check == check::kUnprovable)
                          unprovable.insert(at);
                        HarnessFinding f{check.str(),   at->getLoc(), name,
                                         message.str(), found,        limit};
                        f.details = std::move(details);
                        findings.push_back(std::move(f));
                      });
  });

  auto add = [&](HarnessFinding f) {
    f.op = name;
    findings.push_back(std::move(f));
  };
  AddressModel addresses;
  timed("alignment", [&] {
    checkKernelAlignment(kernel, solver, addresses, unprovable, add);
  });

  // Races and async ordering assume barriers every thread reaches.
  if (llvm::none_of(llvm::drop_begin(findings, before),
                    [](const HarnessFinding &f) {
                      return f.check == check::kBarrierDivergent;
                    }))
    timed("races", [&] {
      checkSharedMemory(kernel, uniformity, solver, phases, named, report);
    });

  timed("global races", [&] {
    checkGlobalMemory(kernel, uniformity, solver, phases, named, grid, report);
  });

  // Performance, not safety: warnings.
  timed("coalescing",
        [&] { checkKernelCoalescing(kernel, uniformity, addresses, add); });
  return success();
}

/// Drops the findings after `before` that repeat an earlier one's check,
/// location and message up to its last parenthesis (the witness).
static void collapseCopies(SmallVectorImpl<HarnessFinding> &findings,
                           size_t before) {
  llvm::StringSet<> seen;
  auto *kept = findings.begin() + before;
  for (HarnessFinding &f : llvm::drop_begin(findings, before)) {
    StringRef message = f.message;
    if (message.ends_with(")"))
      message = message.rsplit(" (").first;
    std::string key;
    llvm::raw_string_ostream os(key);
    os << f.check << '\0' << f.loc << '\0' << message;
    if (!seen.insert(key).second)
      continue;
    if (kept != &f)
      *kept = std::move(f);
    ++kept;
  }
  findings.erase(kept, findings.end());
}

LogicalResult
mlir::amk::checkKernelSafety(Operation *kernel, const TargetSpec *target,
                             SmallVectorImpl<HarnessFinding> &findings,
                             KernelCheckTime *time) {
  size_t before = findings.size();
  std::string name;
  if (auto sym = SymbolTable::getSymbolName(kernel))
    name = sym.str();
  if (time)
    *time = KernelCheckTime{name, {}};
  PhaseTimer timed(time);
  auto report = [&](StringRef check, Operation *at, const Twine &message) {
    findings.push_back(
        HarnessFinding{check.str(), at->getLoc(), name, message.str(), 0, 0});
  };
  auto errors = [&] {
    return llvm::count_if(llvm::drop_begin(findings, before),
                          [](const HarnessFinding &f) { return f.isError(); });
  };

  auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
  if (func && !checkLaunchDimensions(func, target, report))
    return failure();
  if (func)
    checkLaunchesMatch(func, report);
  SmallVector<int64_t, 3> grid = getGrid(func);
  // Branch graphs and n-D vector accesses are checked as the exact
  // structured, 1-D rewrite of the kernel (Normalize.h).
  OwningOpRef<gpu::GPUFuncOp> normalized;
  if (func && (normalized = normalizeForChecks(func)))
    kernel = func = *normalized;
  // An unrolled loop's copies share their ops' locations: one finding per
  // op and fault, not one per copy (the witnesses differ).
  auto collapse = llvm::make_scope_exit([&] {
    if (normalized && (*normalized)->hasAttr(kUnrolledAttrName))
      collapseCopies(findings, before);
  });
  if (target) {
    timed("resources", [&] {
      checkResources(kernel, func, *target, name, findings, report);
    });
    // A launch the target cannot make is not analysed further (its threads
    // would be enumerated).
    if (llvm::any_of(
            llvm::drop_begin(findings, before), [](const HarnessFinding &f) {
              return f.check == check::kThreads || f.check == check::kGrid;
            }))
      return failure();
  }
  if (!timed("structure", [&] { return checkStructure(kernel, report); }))
    return failure();

  std::optional<UniformityInfo> uniformity;
  timed("uniformity", [&] { uniformity.emplace(kernel); });
  NamedBarriers named;
  timed("convergence", [&] {
    named = NamedBarriers(kernel, *uniformity, report);
    checkConvergence(kernel, *uniformity, named, report);
    checkRegisterSplit(kernel, report);
  });
  MBarrierPhases phases = timed(
      "mbarriers", [&] { return checkMBarriers(kernel, *uniformity, report); });
  if (failed(checkMemoryAccesses(kernel, *uniformity, phases, named, grid, name,
                                 before, findings, report, timed)))
    return failure();
  return success(errors() == 0);
}
