//===- Bundle.cpp - Kernel bundles for the runtime ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Transforms/Bundle.h"

#include "AMK/Analysis/Harness.h"
#include "AMK/Version.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
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


static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

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
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
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
  add(attrString(kernel.config));
  add(targetToJSON(target));
  // The manifest, part of a cache entry, records the planner's prediction:
  // its exact bits, so an entry always holds what its key says.
  add(std::to_string(llvm::bit_cast<uint64_t>(kernel.predictedUs)));
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

/// A dimension of an operand's shape: the problem symbol when dynamic or
/// when the problem is static (the runtime substitutes the sizes either
/// way), so one manifest format serves both.
static llvm::json::Array operandShape(StringRef name, const GemmProblem &p) {
  llvm::json::Array shape;
  if (p.batched)
    shape.push_back("B");
  if (name == "A") {
    shape.push_back(p.transposeA ? "K" : "M");
    shape.push_back(p.transposeA ? "M" : "K");
  } else if (name == "B") {
    shape.push_back(p.transposeB ? "N" : "K");
    shape.push_back(p.transposeB ? "K" : "N");
  } else if (name == "bias") {
    shape.push_back("N");
  } else {
    shape.push_back("M");
    shape.push_back("N");
  }
  return shape;
}

static int64_t jsonSize(int64_t size) {
  return ShapedType::isDynamic(size) ? -1 : size;
}

std::string mlir::amk::getBundleManifest(const BundleKernel &kernel,
                                         const TargetSpec &target) {
  const GemmProblem &p = kernel.problem;
  llvm::json::Object problem{
      {"family", "gemm"},
      {"signature", kernel.signature},
      {"batch", jsonSize(p.batch)},
      {"m", jsonSize(p.m)},
      {"n", jsonSize(p.n)},
      {"k", jsonSize(p.k)},
      {"in_type", typeName(p.inType)},
      {"acc_type", typeName(p.accType)},
      {"out_type", typeName(p.outType)},
      {"transpose_a", p.transposeA},
      {"transpose_b", p.transposeB},
      {"precision", p.tf32 ? "tf32" : "ieee"},
      {"alpha", p.alpha},
      {"beta", p.beta},
      {"bias", p.hasBias},
      {"activation", stringifyActivation(p.activation)},
  };
  llvm::json::Array args;
  for (const std::string &name : kernel.argNames) {
    Type elem = name == "A" || name == "B" ? p.inType : p.outType;
    args.push_back(llvm::json::Object{{"name", name},
                                      {"kind", "memref"},
                                      {"elem", typeName(elem)},
                                      {"shape", operandShape(name, p)}});
  }
  // targetToJSON writes valid JSON; parsed back to nest it.
  llvm::json::Value targetJSON =
      llvm::cantFail(llvm::json::parse(targetToJSON(target)));
  llvm::json::Object manifest{
      {"schema", kBundleSchemaVersion},
      {"name", kernel.name},
      {"entry", kernel.name},
      {"cubin", kernel.name + ".cubin"},
      {"ptx", kernel.name + ".ptx"},
      {"arch", target.arch},
      {"target", std::move(targetJSON)},
      {"problem", std::move(problem)},
      {"config", attrString(kernel.config)},
      {"block", llvm::json::Array{kernel.threads, 1, 1}},
      {"grid",
       llvm::json::Array{kernel.grid[0], kernel.grid[1], kernel.grid[2]}},
      {"dynamic_smem_bytes", kernel.smemBytes},
      {"zero_output", kernel.zeroOutput},
      {"tile", llvm::json::Array{kernel.tile[0], kernel.tile[1], kernel.tile[2]}},
      {"predicted_us", kernel.predictedUs},
      {"estimated_regs_per_thread", kernel.estimatedRegs},
      {"args", std::move(args)},
      {"verdict", verdict()},
      {"flags", kernel.flags},
      {"cache_key", kernel.cacheKey},
  };

  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  return json;
}

LogicalResult mlir::amk::writeBundle(StringRef dir, StringRef name,
                                     StringRef cubin, StringRef ptx,
                                     StringRef manifest, Location loc) {
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
