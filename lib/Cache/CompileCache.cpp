//===- CompileCache.cpp - Compiled kernels on disk ------------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The cache's directory, keys and counters, and its lookups and stores. An
// entry's bytes are CacheEntryFormat.cpp's; the maintenance of the directory
// as a whole (list, stats, verify, prune, clear) is CacheMaintenance.cpp's.
//
// Files in the directory are opened with O_NOFOLLOW and O_NONBLOCK and must
// be regular files: a symbolic link planted under an entry's or the
// counters' name is never read or written through, and a FIFO cannot hang a
// compile.
//
//===----------------------------------------------------------------------===//

#include "CacheFiles.h"

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

#include <mutex>

#include <cerrno>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace mlir::amk;
using namespace mlir::amk::cache;
namespace endian = llvm::support::endian;

static constexpr size_t kCountersSize = 4 * 8;

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
// The directory
//===----------------------------------------------------------------------===//

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
