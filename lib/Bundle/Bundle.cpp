//===- Bundle.cpp - Kernel bundles for the runtime ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Bundle/Bundle.h"

#include "AMK/Dialect/AMK/IR/AMKOps.h"
#include "AMK/Harness/Harness.h"
#include "AMK/Target/JSONDepth.h"
#include "AMK/Target/TargetSpec.h"
#include "AMK/Version.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/bit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::amk;


static std::string attrString(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << attr;
  return s;
}

/// The CUDA version of the toolkit ptxas comes from (its version.json).
static std::string toolkitVersion(StringRef toolkit) {
  SmallString<128> path(toolkit);
  llvm::sys::path::append(path, "version.json");
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return "unknown";
  llvm::Expected<llvm::json::Value> json = parseJSON((*file)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return "unknown";
  }
  if (const llvm::json::Object *o = json->getAsObject())
    if (const llvm::json::Object *nvcc = o->getObject("cuda_nvcc"))
      if (std::optional<StringRef> v = nvcc->getString("version"))
        return v->str();
  return "unknown";
}

/// The toolkit's ptxas: its CUDA version and the size and time of the
/// binary, which also tell apart toolkits without a version.json.
static std::string toolkitIdentity(StringRef toolkit) {
  SmallString<128> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(ptxas, status))
    return toolkitVersion(toolkit) + " no ptxas";
  return llvm::formatv(
      "{0} ptxas {1} {2}", toolkitVersion(toolkit), status.getSize(),
      status.getLastModificationTime().time_since_epoch().count());
}

/// The build of AMK that compiles: the running executable's size and time
/// (AMK's libraries are linked into it), as ccache identifies a compiler.
/// The version alone would not do: every development build is 0.1.0.
static const std::string &buildIdentity() {
  static const std::string identity = [] {
    std::string exe = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&toolkitVersion));
    llvm::sys::fs::file_status status;
    if (exe.empty() || llvm::sys::fs::status(exe, status))
      return std::string("unknown");
    return llvm::formatv(
               "{0} {1}", status.getSize(),
               status.getLastModificationTime().time_since_epoch().count())
        .str();
  }();
  return identity;
}

std::string mlir::amk::computeBundleCacheKey(const BundleKernel &kernel,
                                             const TargetSpec &target) {
  llvm::SHA256 hash;
  auto add = [&](StringRef field) {
    hash.update(field);
    hash.update(StringRef("\0", 1)); // separator: fields cannot run together
  };
  add(kAMKVersion);
  add(std::to_string(kBundleSchemaVersion));
  add(buildIdentity());
  add(LLVM_VERSION_STRING);
  add(toolkitIdentity(kernel.toolkit));
  add(kernel.flags);
  add(kernel.name);
  add(kernel.signature);
  add(kernel.problemIdentity);
  add(targetToJSON(target));
  for (const BundleEntry &entry : kernel.entries) {
    add(entry.entry);
    add(attrString(entry.config));
    add(entry.bucket ? entry.bucket->getCondition() : "");
    // The manifest, part of a cache entry, records the planner's
    // prediction: its exact bits, so an entry always holds what its key
    // says.
    add(std::to_string(llvm::bit_cast<uint64_t>(entry.predictedUs)));
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

static llvm::json::Object verdict() {
  return llvm::json::Object{
      {"status", "verified"},
      {"harness", "amk-verify"},
      // The checks this kernel passed before it was emitted.
      {"checks", llvm::json::Array{check::kThreads, check::kSmem, check::kRegs,
                                   check::kOccupancy, check::kGrid,
                                   check::kSynthUnsupported}}};
}

std::string mlir::amk::getBundleVerdict() {
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(verdict());
  return json;
}

/// A buffer of the manifest (an argument or workspace).
static llvm::json::Object bufferToJSON(StringRef name, MemRefType type,
                                       llvm::json::Array shape) {
  return llvm::json::Object{{"name", name},
                            {"kind", "memref"},
                            {"elem", getTypeName(type.getElementType())},
                            {"shape", std::move(shape)}};
}

/// Each dimension as its problem symbol, static or not: the runtime
/// substitutes the sizes either way, so one format serves both.
static llvm::json::Object argToJSON(const LaunchArg &arg) {
  llvm::json::Array shape;
  for (const std::string &symbol : arg.shape)
    shape.push_back(symbol);
  llvm::json::Object json =
      bufferToJSON(arg.name, arg.kernelType, std::move(shape));
  json["written"] = arg.written;
  return json;
}

/// A workspace buffer: its extents as symbols or integers.
static llvm::json::Object workspaceToJSON(const WorkspaceBuffer &buffer) {
  auto noSymbols = [](StringRef) -> std::optional<int64_t> {
    return std::nullopt;
  };
  llvm::json::Array shape;
  for (const SizeExpr &extent : buffer.shape) {
    if (std::optional<int64_t> constant = extent.evaluate(noSymbols))
      shape.push_back(*constant);
    else
      shape.push_back(extent.str());
  }
  llvm::json::Object json =
      bufferToJSON(buffer.name, buffer.kernelType, std::move(shape));
  if (buffer.keptZero)
    json["kept_zero"] = true;
  return json;
}

/// The manifest's entry for one kernel of an entry's launch: its binaries
/// (one cubin holds every kernel of the bundle), launch and verdict.
static llvm::json::Object kernelToJSON(const BundleKernel &kernel,
                                       const BundleEntry &entry,
                                       const LaunchKernel &launch) {
  std::string name = entry.entry + launch.suffix;
  llvm::json::Array params;
  for (const std::string &param : launch.params)
    params.push_back(param);
  llvm::json::Object json{
      {"name", name},
      {"entry", name},
      {"cubin", kernel.name + ".cubin"},
      {"ptx", kernel.name + ".ptx"},
      {"config", attrString(entry.config)},
      {"block",
       llvm::json::Array{launch.block[0], launch.block[1], launch.block[2]}},
      {"grid", llvm::json::Array{launch.grid[0].str(), launch.grid[1].str(),
                                 launch.grid[2].str()}},
      {"dynamic_smem_bytes", launch.dynamicSmemBytes},
      {"estimated_regs_per_thread", launch.estimatedRegs},
      {"params", std::move(params)},
      {"cache_key", kernel.cacheKey},
      {"verdict", verdict()},
  };
  if (launch.cooperative)
    json["cooperative"] = true;
  if (launch.dependent)
    json["programmatic"] = true;
  // The prediction and the family's fields describe the whole launch: they
  // go with its first kernel.
  if (!launch.tensorMaps.empty()) {
    llvm::json::Array maps;
    for (const TensorMapParam &map : launch.tensorMaps)
      maps.push_back(llvm::json::Object{{"name", map.name},
                                        {"buffer", map.buffer},
                                        {"box", llvm::json::Array(map.box)},
                                        {"swizzle_bytes", map.swizzleBytes}});
    json["tensor_maps"] = std::move(maps);
  }
  if (&launch == &entry.launch.kernels.front()) {
    json["predicted_us"] = entry.predictedUs;
    for (const auto &[key, value] : entry.launch.manifestFields)
      json[key] = value;
  }
  return json;
}

/// The launch sequence of one entry: zero what it accumulates into, then
/// run its kernels, each after the step before it.
static llvm::json::Array getSteps(const BundleEntry &entry) {
  llvm::json::Array steps, zeroIds;
  for (const std::string &buffer : entry.launch.zeroed) {
    std::string id = "zero_" + buffer;
    steps.push_back(llvm::json::Object{{"id", id}, {"zero", buffer}});
    zeroIds.push_back(id);
  }
  std::string previous;
  for (const LaunchKernel &launch : entry.launch.kernels) {
    std::string id = "run" + launch.suffix;
    llvm::json::Object run{{"id", id}, {"kernel", entry.entry + launch.suffix}};
    if (!previous.empty())
      run["after"] = llvm::json::Array{previous};
    else if (!zeroIds.empty())
      run["after"] = std::move(zeroIds);
    steps.push_back(std::move(run));
    previous = id;
  }
  return steps;
}

std::string mlir::amk::getBundleManifest(const BundleKernel &kernel,
                                         const TargetSpec &target) {
  // Every entry computes the same problem: one set of sizes and buffers.
  const KernelLaunch &launch = kernel.entries.back().launch;
  llvm::json::Array kernels, variants;
  for (const BundleEntry &entry : kernel.entries) {
    for (const LaunchKernel &launchKernel : entry.launch.kernels)
      kernels.push_back(kernelToJSON(kernel, entry, launchKernel));
    llvm::json::Object variant{{"steps", getSteps(entry)}};
    if (entry.bucket)
      variant["when"] = entry.bucket->getCondition();
    variants.push_back(std::move(variant));
  }
  llvm::json::Object problem(kernel.problem);
  problem["family"] = kernel.family;
  problem["signature"] = kernel.signature;
  llvm::json::Object sizes;
  for (const SizeSymbol &symbol : launch.symbols)
    sizes[symbol.name] =
        ShapedType::isDynamic(symbol.value) ? int64_t(-1) : symbol.value;
  llvm::json::Array args;
  for (const LaunchArg &arg : launch.args)
    args.push_back(argToJSON(arg));
  // Every entry's workspace, once by name (entries that share a name share
  // the buffer: the runtime sizes it for the variant it runs).
  llvm::json::Array workspace;
  llvm::StringSet<> seen;
  for (const BundleEntry &entry : kernel.entries)
    for (const WorkspaceBuffer &buffer : entry.launch.workspace)
      if (seen.insert(buffer.name).second)
        workspace.push_back(workspaceToJSON(buffer));
  // targetToJSON writes valid JSON; parsed back to nest it.
  llvm::json::Value targetJSON =
      llvm::cantFail(parseJSON(targetToJSON(target)));
  llvm::json::Object manifest{
      {"schema", kBundleSchemaVersion},
      {"name", kernel.name},
      {"family", kernel.family},
      {"arch", target.arch},
      {"target", std::move(targetJSON)},
      {"problem", std::move(problem)},
      {"sizes", std::move(sizes)},
      {"args", std::move(args)},
      {"kernels", std::move(kernels)},
      {"variants", std::move(variants)},
      {"verdict", verdict()},
      {"flags", kernel.flags},
  };
  if (!workspace.empty())
    manifest["workspace"] = std::move(workspace);

  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return json;
}

LogicalResult mlir::amk::writeBundle(StringRef dir, StringRef name,
                                     StringRef cubin, StringRef ptx,
                                     StringRef manifest, Location loc) {
  // The amk.kernel verifier admits only such names; anything else could
  // name a file outside `dir` or a hidden one.
  if (!KernelOp::isValidName(name))
    return emitError(loc, "cannot write a bundle for kernel name '")
           << name << "': not an identifier";
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return emitError(loc, "cannot create bundle directory '")
           << dir << "': " << ec.message();
  auto write = [&](StringRef ext, StringRef contents) -> LogicalResult {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name + ext);
    std::string error;
    auto file = mlir::openOutputFile(path, &error);
    if (!file)
      return emitError(loc, "cannot write bundle file: ") << error;
    file->os() << contents;
    file->keep();
    return success();
  };
  return success(succeeded(write(".cubin", cubin)) &&
                 succeeded(write(".ptx", ptx)) &&
                 succeeded(write(".json", manifest)));
}
