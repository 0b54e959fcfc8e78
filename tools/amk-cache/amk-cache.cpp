//===- amk-cache.cpp - Inspect and maintain the compile cache -------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
//   amk-cache stats | list | inspect <key> | verify | prune --max-size=<size>
//             | clear   [--cache-dir=<dir>]
//
// Exit status: 0 done; 1 the cache (or the entry) is missing or unreadable,
// prune could not remove what it had to, or bad usage; 2 verify found
// corrupt entries (or something else under an entry's name).
//
//===----------------------------------------------------------------------===//

#include "AMK/Cache/CompileCache.h"
#include "AMK/Target/JSONDepth.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir::amk;

static cl::SubCommand statsCommand("stats",
                                   "Entries, bytes and hit/miss counters");
static cl::SubCommand listCommand(
    "list", "Every entry (key, bytes, last use, kernel), least recent first");
static cl::SubCommand
    inspectCommand("inspect",
                   "One entry: sizes, harness verdict and bundle manifest");
static cl::SubCommand
    verifyCommand("verify",
                  "Check every entry's checksum and report the corrupt ones");
static cl::SubCommand
    pruneCommand("prune", "Remove least-recently-used entries beyond a size");
static cl::SubCommand clearCommand("clear", "Remove every entry");

static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("the cache (default: $AMK_CACHE_DIR, else $XDG_CACHE_HOME/amk, "
             "else ~/.cache/amk)"),
    cl::sub(statsCommand), cl::sub(listCommand), cl::sub(inspectCommand),
    cl::sub(verifyCommand), cl::sub(pruneCommand), cl::sub(clearCommand));
static cl::opt<std::string> inspectKey(cl::Positional, cl::Required,
                                       cl::desc("<key>"),
                                       cl::sub(inspectCommand));
static cl::opt<std::string>
    maxSize("max-size", cl::Required,
            cl::desc("keep at most this much: bytes, or with K, M, G, T"),
            cl::sub(pruneCommand));

static int fail(const Twine &message) {
  WithColor::error(errs(), "amk-cache") << message << "\n";
  return 1;
}

static std::string humanBytes(uint64_t bytes) {
  if (bytes < 1024)
    return formatv("{0} B", bytes);
  if (bytes < (1 << 20))
    return formatv("{0:f1} KiB", bytes / 1024.0);
  if (bytes < (1 << 30))
    return formatv("{0:f1} MiB", bytes / double(1 << 20));
  return formatv("{0:f2} GiB", bytes / double(1 << 30));
}

/// The kernel a manifest describes, for listings.
static std::string kernelName(StringRef manifest) {
  // Anyone who can write the directory can plant an entry: parseJSON bounds
  // the parser's recursion.
  Expected<json::Value> json = parseJSON(manifest);
  if (!json) {
    consumeError(json.takeError());
    return "?";
  }
  if (const json::Object *o = json->getAsObject())
    if (std::optional<StringRef> name = o->getString("name"))
      return name->str();
  return "?";
}

static int stats(CompileCache &cache) {
  Expected<CacheStats> stats = cache.stats();
  if (!stats)
    return fail(toString(stats.takeError()));
  outs() << "cache: " << cache.getDirectory() << "\n"
         << "entries: " << stats->entries << "\n"
         << "bytes: " << stats->bytes << " (" << humanBytes(stats->bytes)
         << ")\n"
         << "temporary files: " << stats->tempFiles << "\n"
         << "hits: " << stats->counters.hits << "\n"
         << "misses: " << stats->counters.misses << "\n"
         << "corrupt: " << stats->counters.corrupt << "\n"
         << "stores: " << stats->counters.stores << "\n";
  return 0;
}

static int list(CompileCache &cache) {
  Expected<std::vector<CacheEntryInfo>> entries = cache.list();
  if (!entries)
    return fail(toString(entries.takeError()));
  for (const CacheEntryInfo &e : *entries) {
    Expected<CacheEntry> entry = cache.read(e.key);
    std::string name = "(corrupt)";
    if (entry)
      name = kernelName(entry->manifest);
    else
      consumeError(entry.takeError());
    outs() << formatv("{0}  {1,10}  {2:%Y-%m-%d %H:%M:%S}  {3}\n", e.key,
                      e.bytes, e.lastUse, name);
  }
  return 0;
}

static int inspect(CompileCache &cache) {
  Expected<CacheEntry> entry = cache.read(inspectKey);
  if (!entry)
    return fail(toString(entry.takeError()));
  outs() << "key: " << inspectKey << "\n"
         << "kernel: " << kernelName(entry->manifest) << "\n"
         << "bytes: " << entry->storage->getBufferSize() << "\n"
         << "cubin: " << entry->cubin.size() << " bytes\n"
         << "ptx: " << entry->ptx.size() << " bytes\n"
         << "verdict: " << entry->verdict << "\n"
         << "manifest:\n"
         << entry->manifest;
  if (!entry->manifest.ends_with("\n"))
    outs() << "\n";
  return 0;
}

static int verify(CompileCache &cache) {
  Expected<CacheVerifyResult> result = cache.verify();
  if (!result)
    return fail(toString(result.takeError()));
  for (const CacheProblem &p : result->corrupt)
    outs() << "corrupt " << p.key << ": " << p.reason << "\n";
  outs() << "verified " << result->checked
         << " entries: " << result->corrupt.size() << " corrupt\n";
  return result->corrupt.empty() ? 0 : 2;
}

static int prune(CompileCache &cache) {
  std::optional<uint64_t> bytes = CompileCache::parseSize(maxSize);
  if (!bytes)
    return fail("--max-size must be a size such as 1048576, 512M or 2G, not '" +
                maxSize + "'");
  Expected<CachePruneResult> result = cache.prune(*bytes);
  if (!result)
    return fail(toString(result.takeError()));
  outs() << "removed " << result->removedEntries << " entries ("
         << humanBytes(result->removedBytes) << "); kept "
         << result->keptEntries << " (" << humanBytes(result->keptBytes)
         << ")\n";
  // What could not be removed is said, and is not success.
  if (result->failedEntries)
    return fail(formatv("could not remove {0} entries ({1}): {2}",
                        result->failedEntries, humanBytes(result->failedBytes),
                        result->failure));
  return 0;
}

static int clear(CompileCache &cache) {
  Expected<uint64_t> removed = cache.clear();
  if (!removed)
    return fail(toString(removed.takeError()));
  outs() << "removed " << *removed << " entries from " << cache.getDirectory()
         << "\n";
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "amk-cache: inspect and maintain AMK's compile "
                              "cache\n");
  bool mutating = pruneCommand || clearCommand;
  if (!statsCommand && !listCommand && !inspectCommand && !verifyCommand &&
      !mutating)
    return fail("name a command: stats, list, inspect, verify, prune or clear "
                "(--help for more)");

  std::string dir =
      cacheDir.empty() ? CompileCache::getDefaultDirectory() : cacheDir;
  if (dir.empty())
    return fail("no cache directory: set AMK_CACHE_DIR or use --cache-dir");
  // Looking never creates the directory; emptying a missing one is done.
  CacheOptions options;
  options.create = false;
  Expected<CompileCache> cache = CompileCache::open(dir, options);
  if (!cache) {
    std::string message = toString(cache.takeError());
    if (mutating && !sys::fs::exists(dir)) {
      outs() << "no compile cache at " << dir << ": nothing to do\n";
      return 0;
    }
    return fail(message);
  }
  if (statsCommand)
    return stats(*cache);
  if (listCommand)
    return list(*cache);
  if (inspectCommand)
    return inspect(*cache);
  if (verifyCommand)
    return verify(*cache);
  if (pruneCommand)
    return prune(*cache);
  return clear(*cache);
}
