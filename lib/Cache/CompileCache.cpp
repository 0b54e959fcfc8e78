//===- CompileCache.cpp - Compiled kernels on disk ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// One file per entry, `<key>.amkc`:
//
//   offset  0  magic "AMKCACHE"
//           8  format version (u32), 12  section count (u32)
//          16  xxh3-128 checksum of bytes 32..end (low, high: u64 each)
//          32  section sizes (u64 each): key, verdict, manifest, PTX, cubin
//          72  the sections, back to back
//
// All integers little-endian. The checksum covers the sizes too, so no flip
// of any byte after the magic goes unnoticed; the key inside guards against
// a file that was renamed or copied to the wrong name.
//
// Files in the directory are opened with O_NOFOLLOW and O_NONBLOCK and must
// be regular files: a symbolic link planted under an entry's or the
// counters' name is never read or written through, and a FIFO cannot hang a
// compile.
//
// LLVM's CachePruning is not used: it only touches `llvmcache-*` files,
// reports nothing about what it removed, and speaks of ThinLTO in its
// warnings. The LRU pruning below is a sort of one directory listing.
//
//===----------------------------------------------------------------------===//

#include "AMK/Cache/CompileCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <mutex>

#include <cerrno>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace mlir::amk;
namespace endian = llvm::support::endian;

namespace {
constexpr char kMagic[] = "AMKCACHE";
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kSections = 5; // key, verdict, manifest, PTX, cubin
constexpr size_t kChecksumOffset = 16;
constexpr size_t kSizesOffset = 32;
constexpr size_t kHeaderSize = kSizesOffset + 8 * kSections;
constexpr StringLiteral kEntrySuffix = ".amkc";
constexpr StringLiteral kTempPrefix = ".tmp-";
constexpr StringLiteral kCountersName = "counters";
constexpr size_t kCountersSize = 4 * 8;
/// A temporary file this old belongs to a killed process, not a store.
constexpr std::chrono::hours kAbandonedAfter(1);
} // namespace

static Error cacheError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static sys::TimePoint<> now() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now());
}

/// Opens a file of the cache: never through a symbolic link at the end of
/// `path`, never blocking (a FIFO), and only a regular file; `fd` is closed
/// again on failure.
static std::error_code openCacheFile(const Twine &path, int flags, int &fd) {
  SmallString<128> storage;
  StringRef p = path.toNullTerminatedStringRef(storage);
  do
    fd = ::open(p.data(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return std::error_code(errno, std::generic_category());
  struct stat st;
  std::error_code ec;
  if (::fstat(fd, &st) != 0)
    ec = std::error_code(errno, std::generic_category());
  else if (S_ISDIR(st.st_mode))
    ec = std::make_error_code(std::errc::is_a_directory);
  else if (!S_ISREG(st.st_mode))
    ec = std::make_error_code(std::errc::invalid_argument);
  if (ec) {
    ::close(fd);
    fd = -1;
  }
  return ec;
}

/// Why an entry's path is not a cache entry, from what openCacheFile said.
static std::string describeOpenFailure(std::error_code ec) {
  if (ec == std::errc::too_many_symbolic_link_levels)
    return "a symbolic link, not a cache entry (the cache never follows "
           "links)";
  if (ec == std::errc::is_a_directory)
    return "a directory, not a cache entry (remove it)";
  if (ec == std::errc::invalid_argument)
    return "not a regular file, so not a cache entry (remove it)";
  return ec.message();
}

/// Whether openCacheFile failed because something other than a regular
/// file is there (as opposed to nothing, or no permission).
static bool isForeign(std::error_code ec) {
  return ec == std::errc::too_many_symbolic_link_levels ||
         ec == std::errc::is_a_directory || ec == std::errc::invalid_argument;
}

//===----------------------------------------------------------------------===//
// Entry format
//===----------------------------------------------------------------------===//

static XXH128_hash_t checksum(StringRef blob) {
  return xxh3_128bits(arrayRefFromStringRef(blob.drop_front(kSizesOffset)));
}

static std::string encodeEntry(StringRef key, const CacheEntry &entry) {
  StringRef sections[kSections] = {key, entry.verdict, entry.manifest,
                                   entry.ptx, entry.cubin};
  size_t total = kHeaderSize;
  for (StringRef s : sections)
    total += s.size();
  std::string blob(total, '\0');
  char *p = blob.data();
  std::memcpy(p, kMagic, 8);
  endian::write32le(p + 8, kFormatVersion);
  endian::write32le(p + 12, kSections);
  size_t offset = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    endian::write64le(p + kSizesOffset + 8 * i, sections[i].size());
    if (!sections[i].empty())
      std::memcpy(p + offset, sections[i].data(), sections[i].size());
    offset += sections[i].size();
  }
  XXH128_hash_t sum = checksum(blob);
  endian::write64le(p + kChecksumOffset, sum.low64);
  endian::write64le(p + kChecksumOffset + 8, sum.high64);
  return blob;
}

/// The entry in `buffer`, or why it is corrupt.
static Expected<CacheEntry> decodeEntry(std::unique_ptr<MemoryBuffer> buffer,
                                        StringRef key) {
  StringRef blob = buffer->getBuffer();
  const char *p = blob.data();
  if (blob.size() < kHeaderSize)
    return cacheError("truncated: " + Twine(blob.size()) +
                      " bytes, shorter than the header");
  if (blob.take_front(8) != StringRef(kMagic, 8))
    return cacheError("not a cache entry (bad magic)");
  if (uint32_t version = endian::read32le(p + 8); version != kFormatVersion)
    return cacheError("format version " + Twine(version) + ", expected " +
                      Twine(kFormatVersion));
  if (endian::read32le(p + 12) != kSections)
    return cacheError("bad section count");
  uint64_t sizes[kSections];
  uint64_t total = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    sizes[i] = endian::read64le(p + kSizesOffset + 8 * i);
    // No real section comes near 1 TiB; bounded, the sum cannot overflow.
    if (sizes[i] > (uint64_t(1) << 40))
      return cacheError("bad section size " + Twine(sizes[i]));
    total += sizes[i];
  }
  if (total > blob.size())
    return cacheError("truncated: " + Twine(blob.size()) + " of " +
                      Twine(total) + " bytes");
  if (total < blob.size())
    return cacheError(Twine(blob.size() - total) +
                      " bytes past the last section");
  XXH128_hash_t sum = checksum(blob);
  if (sum.low64 != endian::read64le(p + kChecksumOffset) ||
      sum.high64 != endian::read64le(p + kChecksumOffset + 8))
    return cacheError("checksum mismatch");
  StringRef sections[kSections];
  size_t offset = kHeaderSize;
  for (size_t i = 0; i < kSections; ++i) {
    sections[i] = blob.substr(offset, sizes[i]);
    offset += sizes[i];
  }
  if (sections[0] != key)
    return cacheError("holds the entry of key '" + sections[0] + "'");
  CacheEntry entry;
  entry.verdict = sections[1];
  entry.manifest = sections[2];
  entry.ptx = sections[3];
  entry.cubin = sections[4];
  entry.storage = std::move(buffer);
  return entry;
}

/// Reads an entry file from `fd`: copied, not mapped, so a file truncated
/// underneath cannot fault the reader.
static Expected<CacheEntry> readEntry(int fd, StringRef path, StringRef key) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getOpenFile(fd, path, /*FileSize=*/-1,
                                /*RequiresNullTerminator=*/false,
                                /*IsVolatile=*/true);
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read '" + path +
                                 "': " + buffer.getError().message());
  return decodeEntry(std::move(*buffer), key);
}

//===----------------------------------------------------------------------===//
// The directory
//===----------------------------------------------------------------------===//

namespace {
struct Listing {
  std::vector<CacheEntryInfo> entries; // least recently used first
  std::vector<std::pair<std::string, sys::TimePoint<>>> temps;
  /// Entry names that are not regular files (directories, links, ...):
  /// never used, never removed, reported by verify.
  std::vector<CacheProblem> foreign;
};
} // namespace

static StringRef describeFileType(sys::fs::file_type type) {
  switch (type) {
  case sys::fs::file_type::directory_file:
    return "a directory, not a cache entry (remove it)";
  case sys::fs::file_type::symlink_file:
    return "a symbolic link, not a cache entry (the cache never follows "
           "links)";
  default:
    return "not a regular file, so not a cache entry (remove it)";
  }
}

/// The cache's files in `dir`: entries and temporary files; anything else
/// is not the cache's and is never touched. Links are not followed.
static Expected<Listing> scan(StringRef dir) {
  Listing listing;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    bool temp = name.starts_with(kTempPrefix);
    StringRef key = name;
    if (!temp &&
        !(key.consume_back(kEntrySuffix) && CompileCache::isValidKey(key)))
      continue;
    // Gone since the listing (a concurrent prune): not there.
    ErrorOr<sys::fs::basic_file_status> status = it->status();
    if (!status)
      continue;
    if (status->type() != sys::fs::file_type::regular_file) {
      if (!temp)
        listing.foreign.push_back(
            {key.str(), describeFileType(status->type()).str()});
      continue;
    }
    if (temp) {
      listing.temps.emplace_back(it->path(), status->getLastModificationTime());
      continue;
    }
    listing.entries.push_back(
        {key.str(), status->getSize(), status->getLastModificationTime()});
  }
  if (ec)
    return createStringError(ec, "cannot read the compile cache '" + dir +
                                     "': " + ec.message());
  llvm::sort(listing.entries,
             [](const CacheEntryInfo &a, const CacheEntryInfo &b) {
               return std::tie(a.lastUse, a.key) < std::tie(b.lastUse, b.key);
             });
  return listing;
}

Expected<CompileCache> CompileCache::open(StringRef dir, CacheOptions options) {
  if (dir.empty())
    return cacheError("no compile cache directory (set AMK_CACHE_DIR)");
  sys::fs::file_status status;
  std::error_code ec = sys::fs::status(dir, status);
  if (ec == errc::no_such_file_or_directory && options.create)
    ec = sys::fs::create_directories(dir);
  else if (!ec && !sys::fs::is_directory(status))
    return cacheError("compile cache '" + dir + "' is not a directory");
  if (ec == errc::no_such_file_or_directory)
    return createStringError(ec, "no compile cache at '" + dir + "'");
  if (ec)
    return createStringError(ec, "cannot use the compile cache directory '" +
                                     dir + "': " + ec.message());
  return CompileCache(dir.str(), options);
}

std::string CompileCache::getDefaultDirectory() {
  // Empty means unset; so does a relative XDG_CACHE_HOME or HOME (the XDG
  // base directory specification), which would put the cache wherever the
  // compiler happens to run. (sys::path::cache_directory takes both as is.)
  if (std::optional<std::string> env = sys::Process::GetEnv("AMK_CACHE_DIR"))
    if (!env->empty())
      return *env;
  auto absolute = [](const char *name) -> std::optional<std::string> {
    std::optional<std::string> value = sys::Process::GetEnv(name);
    if (value && !value->empty() && sys::path::is_absolute(*value))
      return value;
    return std::nullopt;
  };
  SmallString<128> path;
  if (std::optional<std::string> xdg = absolute("XDG_CACHE_HOME")) {
    path = *xdg;
  } else {
    std::optional<std::string> home = absolute("HOME");
    if (!home) {
      // The password database, as the shell would.
      if (const struct passwd *pw = ::getpwuid(::getuid()))
        if (pw->pw_dir && sys::path::is_absolute(pw->pw_dir))
          home = std::string(pw->pw_dir);
    }
    if (!home)
      return "";
    path = *home;
    sys::path::append(path, ".cache");
  }
  sys::path::append(path, "amk");
  return std::string(path);
}

bool CompileCache::isValidKey(StringRef key) {
  return !key.empty() && key.size() <= 128 && llvm::all_of(key, [](char c) {
    return isAlnum(c) || c == '_' || c == '-';
  });
}

std::optional<uint64_t> CompileCache::parseSize(StringRef text) {
  uint64_t value;
  StringRef digits = text.take_while(isDigit);
  StringRef unit = text.drop_front(digits.size());
  if (digits.empty() || digits.getAsInteger(10, value))
    return std::nullopt;
  unsigned shift = StringSwitch<unsigned>(unit.lower())
                       .Case("", 0)
                       .Case("k", 10)
                       .Case("m", 20)
                       .Case("g", 30)
                       .Case("t", 40)
                       .Default(~0u);
  if (shift == ~0u || (shift && value > (UINT64_MAX >> shift)))
    return std::nullopt;
  return value << shift;
}

std::string CompileCache::getEntryPath(StringRef key) const {
  SmallString<128> path(dir);
  sys::path::append(path, key + kEntrySuffix);
  return std::string(path);
}

//===----------------------------------------------------------------------===//
// Counters
//===----------------------------------------------------------------------===//

// flock/fcntl locks do not order the threads of one process.
static std::mutex countersMutex;

static CacheCounters readCountersFrom(int fd) {
  char buf[kCountersSize];
  CacheCounters c;
  Expected<size_t> n = sys::fs::readNativeFileSlice(fd, buf, 0);
  if (!n || *n != kCountersSize) {
    consumeError(n.takeError());
    return c;
  }
  c.hits = endian::read64le(buf);
  c.misses = endian::read64le(buf + 8);
  c.corrupt = endian::read64le(buf + 16);
  c.stores = endian::read64le(buf + 24);
  return c;
}

/// Adds `delta` to the directory's counters under an exclusive file lock.
/// Best effort: a read-only directory, or a lock not had within a second,
/// leaves them as they are.
void CompileCache::count(const CacheCounters &delta) {
  SmallString<128> path(dir);
  sys::path::append(path, kCountersName);
  std::lock_guard<std::mutex> guard(countersMutex);
  int fd;
  if (openCacheFile(path, O_RDWR | O_CREAT, fd))
    return;
  scope_exit closeFd([&] { sys::fs::closeFile(fd); });
  if (sys::fs::tryLockFile(fd, std::chrono::seconds(1)))
    return;
  CacheCounters c = readCountersFrom(fd);
  char buf[kCountersSize];
  endian::write64le(buf, c.hits + delta.hits);
  endian::write64le(buf + 8, c.misses + delta.misses);
  endian::write64le(buf + 16, c.corrupt + delta.corrupt);
  endian::write64le(buf + 24, c.stores + delta.stores);
  {
    raw_fd_ostream os(fd, /*shouldClose=*/false);
    os.seek(0);
    os.write(buf, kCountersSize);
    os.flush();
    os.clear_error();
  }
  (void)sys::fs::unlockFile(fd);
}

CacheCounters CompileCache::readCounters() const {
  SmallString<128> path(dir);
  sys::path::append(path, kCountersName);
  std::lock_guard<std::mutex> guard(countersMutex);
  int fd;
  if (openCacheFile(path, O_RDONLY, fd))
    return {};
  scope_exit closeFd([&] { sys::fs::closeFile(fd); });
  if (sys::fs::tryLockFile(fd, std::chrono::seconds(1),
                           sys::fs::LockKind::Shared))
    return {};
  CacheCounters c = readCountersFrom(fd);
  (void)sys::fs::unlockFile(fd);
  return c;
}

static CacheCounters counted(uint64_t hits, uint64_t misses, uint64_t corrupt,
                             uint64_t stores) {
  CacheCounters c;
  c.hits = hits;
  c.misses = misses;
  c.corrupt = corrupt;
  c.stores = stores;
  return c;
}

//===----------------------------------------------------------------------===//
// Lookup and store
//===----------------------------------------------------------------------===//

std::optional<CacheEntry> CompileCache::lookup(StringRef key,
                                               std::string *corruption) {
  int fd;
  std::string path = getEntryPath(key);
  if (!isValidKey(key)) {
    count(counted(0, 1, 0, 0));
    return std::nullopt;
  }
  if (std::error_code ec = openCacheFile(path, O_RDONLY, fd)) {
    // A directory or link under the entry's name is a broken entry, said
    // so; it is not the cache's to remove.
    bool foreign = isForeign(ec);
    count(counted(0, 1, foreign, 0));
    if (foreign && corruption)
      *corruption = "'" + path + "' is " + describeOpenFailure(ec);
    return std::nullopt;
  }
  scope_exit closeFd([&] { sys::fs::closeFile(fd); });
  Expected<CacheEntry> entry = readEntry(fd, path, key);
  if (!entry) {
    std::string why = toString(entry.takeError());
    // Removed, unless a concurrent store has already replaced it.
    sys::fs::file_status opened, current;
    if (!sys::fs::status(fd, opened) &&
        !sys::fs::status(path, current, /*follow=*/false) &&
        opened.getUniqueID() == current.getUniqueID())
      (void)sys::fs::remove(path);
    count(counted(0, 1, 1, 0));
    if (corruption)
      *corruption = std::move(why);
    return std::nullopt;
  }
  // The modification time is the last use (atime is unreliable: noatime,
  // relatime). Best effort: a read-only directory keeps the old time.
  (void)sys::fs::setLastAccessAndModificationTime(fd, now());
  count(counted(1, 0, 0, 0));
  return std::move(*entry);
}

Error CompileCache::store(StringRef key, const CacheEntry &entry) {
  if (!isValidKey(key))
    return cacheError("invalid compile cache key '" + key + "'");
  auto cannotWrite = [&](const Twine &why) {
    return cacheError("cannot write to the compile cache '" + dir +
                      "': " + why);
  };
  // rename() replaces a file or a link, never a directory: say what is in
  // the way rather than leave a permanent miss with a puzzling error.
  sys::fs::file_status existing;
  if (!sys::fs::status(getEntryPath(key), existing, /*follow=*/false) &&
      existing.type() == sys::fs::file_type::directory_file)
    return cannotWrite("'" + getEntryPath(key) +
                       "' is a directory, not a cache entry: remove it");
  std::string blob = encodeEntry(key, entry);
  // A unique file beside the entry, renamed over it once complete: readers
  // see the old entry or the new one, never a part; a store that fails
  // (disk full) or is killed leaves only a temporary file.
  SmallString<128> model(dir);
  sys::path::append(model, kTempPrefix + key.take_front(16) + "-%%%%%%%%");
  Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(model);
  if (!temp)
    return cannotWrite(toString(temp.takeError()));
  std::error_code ec;
  {
    raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    os << blob;
    os.flush();
    ec = os.error();
    os.clear_error();
  }
  if (ec) {
    consumeError(temp->discard());
    return cannotWrite(ec.message());
  }
  if (Error error = temp->keep(getEntryPath(key)))
    return cannotWrite(toString(std::move(error)));
  count(counted(0, 0, 0, 1));
  // Pruning is housekeeping: the entry is stored whatever it finds.
  if (Expected<CachePruneResult> pruned = prune(options.maxBytes); !pruned)
    consumeError(pruned.takeError());
  return Error::success();
}

Expected<CacheEntry> CompileCache::read(StringRef key) const {
  if (!isValidKey(key))
    return cacheError("invalid compile cache key '" + key + "'");
  int fd;
  std::string path = getEntryPath(key);
  if (std::error_code ec = openCacheFile(path, O_RDONLY, fd)) {
    if (isForeign(ec))
      return createStringError(ec,
                               "'" + path + "' is " + describeOpenFailure(ec));
    return createStringError(ec, "no entry '" + key + "' in '" + dir +
                                     "': " + ec.message());
  }
  scope_exit closeFd([&] { sys::fs::closeFile(fd); });
  return readEntry(fd, path, key);
}

//===----------------------------------------------------------------------===//
// Maintenance
//===----------------------------------------------------------------------===//

Expected<std::vector<CacheEntryInfo>> CompileCache::list() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  return std::move(listing->entries);
}

Expected<CacheStats> CompileCache::stats() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  CacheStats stats;
  stats.entries = listing->entries.size();
  for (const CacheEntryInfo &e : listing->entries)
    stats.bytes += e.bytes;
  stats.tempFiles = listing->temps.size();
  stats.counters = readCounters();
  return stats;
}

Expected<CacheVerifyResult> CompileCache::verify() const {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  CacheVerifyResult result;
  for (const CacheEntryInfo &e : listing->entries) {
    Expected<CacheEntry> entry = read(e.key);
    if (entry) {
      ++result.checked;
      continue;
    }
    std::string reason;
    std::error_code ec;
    handleAllErrors(entry.takeError(), [&](const ErrorInfoBase &error) {
      reason = error.message();
      ec = error.convertToErrorCode();
    });
    // Pruned or replaced since the listing: nothing to check.
    if (ec == errc::no_such_file_or_directory)
      continue;
    ++result.checked;
    result.corrupt.push_back({e.key, std::move(reason)});
  }
  for (CacheProblem &p : listing->foreign) {
    ++result.checked;
    result.corrupt.push_back(std::move(p));
  }
  return result;
}

Expected<CachePruneResult> CompileCache::prune(uint64_t maxBytes) {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  uint64_t total = 0;
  for (const CacheEntryInfo &e : listing->entries)
    total += e.bytes;
  CachePruneResult result;
  for (const CacheEntryInfo &e : listing->entries) {
    if (total <= maxBytes) {
      ++result.keptEntries;
      result.keptBytes += e.bytes;
      continue;
    }
    // Another process may prune the same entry: gone either way, but not
    // this call's doing. One that cannot go (read-only) still takes space.
    std::error_code ec = sys::fs::remove(getEntryPath(e.key));
    if (ec && ec != errc::no_such_file_or_directory) {
      ++result.failedEntries;
      result.failedBytes += e.bytes;
      if (result.failure.empty())
        result.failure =
            "cannot remove '" + getEntryPath(e.key) + "': " + ec.message();
      continue;
    }
    total -= e.bytes;
    if (!ec) {
      ++result.removedEntries;
      result.removedBytes += e.bytes;
    }
  }
  sys::TimePoint<> abandoned = now() - kAbandonedAfter;
  for (const auto &[path, time] : listing->temps)
    if (time < abandoned)
      (void)sys::fs::remove(path);
  return result;
}

Expected<uint64_t> CompileCache::clear() {
  Expected<Listing> listing = scan(dir);
  if (!listing)
    return listing.takeError();
  auto remove = [&](StringRef path) -> Error {
    std::error_code ec = sys::fs::remove(path);
    if (ec && ec != errc::no_such_file_or_directory)
      return createStringError(ec,
                               "cannot remove '" + path + "': " + ec.message());
    return Error::success();
  };
  for (const CacheEntryInfo &e : listing->entries)
    if (Error error = remove(getEntryPath(e.key)))
      return std::move(error);
  for (const auto &temp : listing->temps)
    if (Error error = remove(temp.first))
      return std::move(error);
  SmallString<128> counters(dir);
  sys::path::append(counters, kCountersName);
  if (Error error = remove(counters))
    return std::move(error);
  return listing->entries.size();
}
