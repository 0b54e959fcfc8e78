//===- Passes.td - AMK passes ------------------------------*- tablegen -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_PASSES_TD
#define AMK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Keep alphabetical.

def AMKFormGraphPass : Pass<"amk-form-graph", "::mlir::ModuleOp"> {
  let summary = "Make a function of several graph steps one amk.graph (a megakernel)";
  let description = [{
    A function whose body is only steps an `amk.graph` takes (`amk.matmul`,
    `amk.row_reduce`, `amk.decode_attention`, the elementwise `linalg.add`,
    `sub`, `mul`, `div`, `max`, `min`), at least two of them, on its
    arguments and on buffers it allocates (`memref.alloc`, static, used only
    by the steps and `memref.dealloc`), becomes one graph: arguments no step
    writes are its inputs, those a step writes its outputs, and the
    allocated buffers `amk.graph_buffer`s inside it (the launch's
    workspace). Planning then makes it one persistent kernel. As for any
    `amk.graph`, the arguments must not overlap in memory: the steps run
    at once on different blocks. `--amk-pipeline="form-graph=true ..."`
    runs this pass first.

    Upstream ops are imported first, as `--amk-import-linalg` does but
    without its warnings (planning imports again and says what stays), so
    a function of `linalg.matmul`s (each after the zero `linalg.fill` of
    its output) and elementwise linalg ops becomes a graph too. Ops without
    uses or effects (a constant the import left behind) do not count.

    A function with any other op, or whose steps break a graph's rules (an
    argument read before a step writes it, a buffer written twice, shapes a
    step cannot take), is left as it was with a remark that says why; its
    ops are planned one by one.
  }];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

def AMKImportLinalgPass : Pass<"amk-import-linalg"> {
  let summary = "Raise upstream ops the families take to AMK problem ops";
  let description = [{
    Rewrites every upstream op a family imports into that family's problem
    op, so that other MLIR compilers can feed AMK without learning its ops.
    GEMM: `linalg.matmul` and `linalg.batch_matmul` on memrefs, including
    their transposed forms (`indexing_maps` that transpose A or B), into
    `amk.matmul`. linalg's semantics accumulate into C (`beta = 1`); a zero
    `linalg.fill` of C right before the product is folded away (`beta = 0`).
    Matmuls AMK cannot take (tensors, broadcasts, integer types) are left
    alone with a warning.
  }];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

def AMKLowerPass : Pass<"amk-lower", "::mlir::ModuleOp"> {
  let summary = "Synthesize GPU code for verified amk.kernel ops";
  let description = [{
    The synthesizer. Replaces every `amk.kernel` (which `--amk-verify` must
    have marked `amk.verified`) with a `gpu.module` holding the generated
    `gpu.func` and a `gpu.launch_func` at the kernel's place, then (unless
    stopped earlier) lowers the kernel modules through upstream NVVM
    conversion to `gpu.binary` ops holding the cubin (ptxas) and the PTX for
    the module target's arch. The harness re-checks every generated kernel
    against the target before anything is emitted. With `bundle-dir`, one
    bundle per kernel (cubin, PTX, JSON manifest: docs/BUNDLE.md) is written.

    Binaries come from the on-disk compile cache (docs/CACHE.md) when it
    holds the kernel: its key digests the kernel name, problem, config,
    target, flags and the AMK, LLVM and CUDA versions, so a hit skips
    synthesis, the re-check, NVVM lowering and ptxas. A miss stores what the
    harness accepted. The directory is `cache-dir`, else `$AMK_CACHE_DIR`,
    else `$XDG_CACHE_HOME/amk`, else `~/.cache/amk`; one that cannot be
    written is warned about and the kernels compile without it.
  }];
  let options = [
    Option<"stopAt", "stop-at", "std::string", /*default=*/"\"binary\"",
           "gpu (generated gpu.func), nvvm (lowered to NVVM), or binary">,
    Option<"bundleDir", "bundle-dir", "std::string", /*default=*/"",
           "write one bundle per kernel into this directory">,
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"",
           "CUDA toolkit with ptxas (default: $CUDA_HOME, else /usr/local/cuda)">,
    Option<"optLevel", "opt-level", "int", /*default=*/"3",
           "LLVM and ptxas optimization level">,
    Option<"cache", "cache", "bool", /*default=*/"true",
           "use the compile cache (stop-at=binary only)">,
    Option<"cacheDir", "cache-dir", "std::string", /*default=*/"",
           "compile cache directory (default: $AMK_CACHE_DIR, else "
           "$XDG_CACHE_HOME/amk, else ~/.cache/amk)">,
    Option<"cacheMaxSize", "cache-max-size", "std::string", /*default=*/"",
           "prune the cache to this size after a store, least recently used "
           "first (such as 512M or 2G; default 1G)">,
    Option<"cacheRemarks", "cache-remarks", "bool", /*default=*/"false",
           "remark on every compile cache hit and miss">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AMKPlanPass : Pass<"amk-plan", "::mlir::ModuleOp"> {
  let summary = "Plan a kernel design for every problem (the agent)";
  let description = [{
    Rewrites every problem op (`amk.matmul`, ...) that is not yet inside an
    `amk.kernel` (and every upstream op a family takes, imported first as
    `--amk-import-linalg` does) into `amk.kernel "<name>" config(<best>)
    ladder [<top-k candidates with predicted times>] { <the problem> }`.
    The name is the problem signature with every character outside
    `[A-Za-z0-9_]` replaced (`?` by `D`, `.` by `p`, others by `_`), made
    unique in the module with a `_<n>` suffix.

    The planner (`AMK/Planner/Planner.h`) asks the problem's family
    (`AMK/Family/Family.h`; GEMM: `AMK/Family/Gemm/GemmFamily.h`) for the
    configs its synthesizer can generate, drops what the target cannot hold
    with the same check `--amk-verify` runs, applies the family's heuristics
    and ranks the rest with its analytic cost model. GEMM plans dynamic
    sizes for 4096.

    With a tuning database (`tuning-db=<file.jsonl>`, default
    `$AMK_TUNING_DB`; docs/TUNING.md), measurements for the module's target
    come first: a measured best of the same problem heads the ladder, the
    best configs of nearby problems of the same family seed it, repair rules
    and failed measurements drop candidates, and a calibration refits the
    cost model. Records of other targets never apply; malformed lines are
    skipped with a warning.

    Options: `target` (a preset or JSON file; sets the module target like
    `--amk-target`; without it the module must already have one),
    `ladder-size`, `rung` (make rung N of the ladder, counted from 0, the
    kernel's config: what `amk-tune build` compiles each candidate with),
    `tuning-db` and `explain` (a remark per planned op with the ladder, where
    each rung came from, and the rejections counted by reason). Bare words
    work:
    `--amk-plan=explain`, `--amk-plan="target=h200 explain ladder-size=3"`,
    `--amk-plan=h200`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"",
           "a preset name or a JSON file (sets the module's target)">,
    Option<"ladderSize", "ladder-size", "int64_t", /*default=*/"4",
           "candidates kept in each kernel's ladder, the winner included">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "emit a remark explaining each decision">,
    Option<"diverse", "diverse", "bool", /*default=*/"false",
           "fill the ladder with the best config of each block and warp "
           "tile before variants of one tile (what a tuner measures)">,
    Option<"explore", "explore", "bool", /*default=*/"false",
           "a tuning round: one measured rung, then only configs not yet "
           "measured on the problem">,
    Option<"rung", "rung", "int64_t", /*default=*/"0",
           "the ladder rung (from 0) that becomes the kernel's config">,
    Option<"tuningDB", "tuning-db", "std::string", /*default=*/"",
           "tuning database to consult (JSON lines; default $AMK_TUNING_DB)">,
  ];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

def AMKSetTargetPass : Pass<"amk-target", "::mlir::ModuleOp"> {
  let summary = "Attach the #amk.target the kernels are planned for";
  let description = [{
    Sets the module's `amk.target` attribute from a preset name or a JSON
    file written by `amk-device-info`: `--amk-target=h200` or
    `--amk-target=path/to/gpu.json` (the long form
    `--amk-target="target=h200"` works too). An unknown preset or bad JSON is
    an error that lists the presets.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"",
           "a preset name or a JSON file">,
  ];
  let dependentDialects = ["::mlir::amk::AMKDialect"];
}

def AMKVerifyPass : Pass<"amk-verify", "::mlir::ModuleOp"> {
  let summary = "Check every planned kernel against the module's target (the harness)";
  let description = [{
    Checks each `amk.kernel` against the module's `#amk.target`: threads per
    block, shared memory (opt-in and per-SM limits), estimated registers,
    occupancy, the grid of static sizes, and whether the synthesizer can
    generate the config. Each finding is an error at the kernel, prefixed with
    a stable check id: `[AMK-NO-TARGET]`, `[AMK-RES-THREADS]`,
    `[AMK-RES-SMEM]`, `[AMK-RES-REGS]`, `[AMK-RES-OCCUPANCY]`,
    `[AMK-RES-GRID]`, `[AMK-SYNTH-UNSUPPORTED]` (see
    `AMK/Harness/Harness.h`).

    Every `gpu.func` kernel (generated or hand-written) gets the kernel
    checks of `AMK/Harness/KernelSafety.h`, with findings at the offending
    op: `[AMK-UNPROVABLE]`, `[AMK-BARRIER-DIVERGENT]`, `[AMK-OOB]`,
    `[AMK-SMEM-RACE]`, `[AMK-GLOBAL-RACE]`, `[AMK-ASYNC-UNWAITED]`,
    `[AMK-MBARRIER-PHASE]`, `[AMK-MISALIGNED]` (errors) and `[AMK-UNCOALESCED]` (a warning); with a
    target also `[AMK-RES-THREADS]`, `[AMK-RES-SMEM]` (dynamic plus static
    shared memory) and `[AMK-RES-GRID]` (`known_grid_size`). The pass fails if there is any
    error; warnings do not fail it.

    It changes nothing but one discardable unit attribute: every kernel that
    passes gets `amk.verified` (and one that fails loses it); `--amk-lower`
    lowers only verified kernels.

    `json=<path>` (`-` for stdout; a bare `--amk-verify=json` means stdout)
    also writes the findings as JSON, even when there are none: an object
    with `kernels` (checked), `verified` (accepted) and `findings`, an array
    of objects with `file`, `line`, `col`, `check`, `severity` (`error` or
    `warning`), `op` (the kernel's name), `message`, `found` and `limit`,
    and what the kernel checks found: `range` and `bound` (AMK-OOB),
    `alignment` (AMK-MISALIGNED), `stride` and `sectors` (AMK-UNCOALESCED).
  }];
  let options = [
    Option<"allowUnprovable", "allow-unprovable", "bool", /*default=*/"false",
           "report what the analyses cannot model (AMK-UNPROVABLE) as "
           "warnings instead of errors">,
    Option<"json", "json", "std::string", /*default=*/"",
           "write the findings as JSON to this file ('-': stdout)">,
    Option<"time", "time", "bool", /*default=*/"false",
           "report the harness's time per lowered kernel and phase (a "
           "remark each; `timing` in the JSON)">,
  ];
  // Kernels with branch graphs or n-D vector accesses are checked as
  // rewritten to scf and 1-D vectors (AMK/Harness/KernelSafety.h).
  let dependentDialects = [
    "::mlir::amk::AMKDialect", "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::ub::UBDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // AMK_TRANSFORMS_PASSES_TD
