//===- CompileCache.h - Compiled kernels on disk ----------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The compile cache keeps what `--amk-lower` produced for a kernel (cubin,
// PTX, bundle manifest, harness verdict) in a directory, under a key that
// digests everything the binary depends on (docs/CACHE.md). It uses LLVM
// Support only, so tools without MLIR (amk-cache) use it too.
//
// Many processes and threads may share one directory: an entry is written to
// a unique temporary file beside it and renamed into place, so readers see a
// whole entry or none; each entry carries a checksum, and one that fails it
// (a flipped byte, a truncated file) is a miss, removed and rebuilt.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_CACHE_COMPILECACHE_H
#define AMK_CACHE_COMPILECACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::amk {

/// One compiled kernel. The fields view the entry's own storage when it came
/// from the cache, or the caller's strings when it is about to be stored.
struct CacheEntry {
  llvm::StringRef cubin, ptx, manifest, verdict;
  std::unique_ptr<llvm::MemoryBuffer> storage;
};

struct CacheOptions {
  /// store() prunes least-recently-used entries beyond this many bytes.
  uint64_t maxBytes = uint64_t(1) << 30;
  /// Create the directory when it is missing (amk-cache only looks).
  bool create = true;
};

/// Counters of all processes that used the directory since it was cleared.
struct CacheCounters {
  uint64_t hits = 0, misses = 0, corrupt = 0, stores = 0;
};

struct CacheStats {
  uint64_t entries = 0, bytes = 0;
  /// Temporary files of stores in flight (or of killed processes).
  uint64_t tempFiles = 0;
  CacheCounters counters;
};

/// An entry as the directory lists it.
struct CacheEntryInfo {
  std::string key;
  uint64_t bytes = 0;
  /// Least-recently-used order: set on store and on every hit.
  llvm::sys::TimePoint<> lastUse;
};

struct CachePruneResult {
  /// What this call removed (not what another process removed meanwhile).
  uint64_t removedEntries = 0, removedBytes = 0;
  uint64_t keptEntries = 0, keptBytes = 0;
  /// Entries it tried to remove and could not (a read-only directory), and
  /// why the first of them could not go.
  uint64_t failedEntries = 0, failedBytes = 0;
  std::string failure;
};

/// A corrupt entry that verify() found: a file that fails its checks, or
/// something else under an entry's name (a directory, a symbolic link, which
/// the cache never follows).
struct CacheProblem {
  std::string key, reason;
};

struct CacheVerifyResult {
  uint64_t checked = 0;
  std::vector<CacheProblem> corrupt;
};

class CompileCache {
public:
  /// The cache in `dir`. Fails (with a message that names the directory)
  /// when it is missing and cannot be created, or is not a directory. A
  /// read-only directory opens: lookups work, stores fail.
  static llvm::Expected<CompileCache> open(llvm::StringRef dir,
                                           CacheOptions options = {});

  /// $AMK_CACHE_DIR, else $XDG_CACHE_HOME/amk, else ~/.cache/amk; empty when
  /// none of them can be determined. A variable that is empty counts as
  /// unset, and so do a relative XDG_CACHE_HOME or HOME (as the XDG base
  /// directory specification says), so the cache never lands in whatever
  /// the current directory is.
  static std::string getDefaultDirectory();

  /// Keys name files: 1 to 128 characters of [0-9A-Za-z_-] (AMK's are
  /// SHA-256 digests in hex).
  static bool isValidKey(llvm::StringRef key);

  /// Parses a size such as `1048576`, `500K`, `64M` or `1G` (powers of 1024).
  static std::optional<uint64_t> parseSize(llvm::StringRef text);

  llvm::StringRef getDirectory() const { return dir; }
  const CacheOptions &getOptions() const { return options; }

  /// The entry under `key`, marked as just used; std::nullopt on a miss. A
  /// corrupt entry is a miss too: it is removed, counted, and described in
  /// `*corruption` when given.
  std::optional<CacheEntry> lookup(llvm::StringRef key,
                                   std::string *corruption = nullptr);

  /// Stores `entry` under `key` atomically (replacing any entry there), then
  /// prunes the directory to `maxBytes`. Fails with a message that names the
  /// directory when it cannot be written (read-only, full).
  llvm::Error store(llvm::StringRef key, const CacheEntry &entry);

  /// The entry under `key` without counting or touching it; an error says
  /// whether it is missing or how it is corrupt.
  llvm::Expected<CacheEntry> read(llvm::StringRef key) const;

  /// Every entry, least recently used first.
  llvm::Expected<std::vector<CacheEntryInfo>> list() const;

  llvm::Expected<CacheStats> stats() const;

  /// Checks every entry's checksum; removes nothing.
  llvm::Expected<CacheVerifyResult> verify() const;

  /// Removes least-recently-used entries until at most `maxBytes` remain,
  /// and temporary files abandoned for over an hour. Entries that cannot be
  /// removed are counted as failed, not as removed.
  llvm::Expected<CachePruneResult> prune(uint64_t maxBytes);

  /// Removes every entry, temporary file and counter, and returns how many
  /// entries there were; files that are not the cache's are left alone.
  llvm::Expected<uint64_t> clear();

private:
  CompileCache(std::string dir, CacheOptions options)
      : dir(std::move(dir)), options(options) {}

  std::string getEntryPath(llvm::StringRef key) const;
  void count(const CacheCounters &delta);
  CacheCounters readCounters() const;

  std::string dir;
  CacheOptions options;
};

} // namespace mlir::amk

#endif // AMK_CACHE_COMPILECACHE_H
