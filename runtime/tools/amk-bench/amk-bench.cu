//===- amk-bench.cu - Check and time AMK kernel bundles against cuBLAS ----===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// Loads GEMM bundles (docs/BUNDLE.md, schema 1 or 2), checks each against an
// fp64 reference on fresh random inputs, and times it against cuBLAS in the
// same run. Every time it prints comes with the correctness verdict of that
// case; a failing case is not timed. Exits non-zero when any case fails or
// errs. See --help, and Bench.h for how a case is judged.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include "AMK/Runtime/DeviceInfo.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace amk::bench;
using namespace amk::runtime;

static const char *const kToolName = "amk-bench";

static void printHelp() {
  std::printf(
      "USAGE: %s [options] <bundle.json>...\n\n"
      "Checks each AMK kernel bundle against an fp64 reference and times it\n"
      "against cuBLAS on the same inputs.\n\n"
      "OPTIONS:\n"
      "  --sizes B,M,N,K   sizes for bundles with dynamic sizes (M,N,K means\n"
      "                    B=1); repeat to run a bundle at several sizes.\n"
      "                    Static bundles run at their own sizes.\n"
      "  --iters N         timed launches per kernel (default 100)\n"
      "  --warmup N        untimed launches first (default 10)\n"
      "  --trials N        correctness trials, each with fresh inputs "
      "(default 2)\n"
      "  --seed N          base of the random seeds (default 1)\n"
      "  --peak-tflops X   ceiling for '%% of peak' (default: the device's\n"
      "                    fp32/tf32/bf16/fp16 peak for the problem, as\n"
      "                    amk-device-info reports it)\n"
      "  --flush-mb N      L2 flush buffer written before each timed launch\n"
      "                    (default 256)\n"
      "  --json FILE       write every result as JSON\n"
      "  --device N        CUDA device (default 0)\n"
      "  --check-only      correctness only: one trial, exact-size buffers "
      "(no\n"
      "                    guard bands), no cuBLAS, no timing; for "
      "compute-sanitizer\n"
      "                    (with memcheck, add --padding 1024: otherwise a "
      "write\n"
      "                    just past C lands in the next buffer unseen)\n"
      "  --list            print the manifests and exit (needs no GPU)\n"
      "  --self-test       test the checker and the cuBLAS mapping on "
      "built-in\n"
      "                    cases (needs no bundle)\n"
      "  --help            show this help\n",
      kToolName);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static bool parseInt(const std::string &text, long long lo, long long hi,
                     long long &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  value = std::strtoll(text.c_str(), &end, 10);
  return !errno && !*end && value >= lo && value <= hi;
}

static bool parseSizes(const std::string &text, Sizes &sizes) {
  std::vector<long long> values;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    long long v;
    if (!parseInt(text.substr(start, comma - start), 1, LLONG_MAX, v))
      return false;
    values.push_back(v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (values.size() == 3)
    values.insert(values.begin(), 1);
  if (values.size() != 4)
    return false;
  sizes = gemmSizes(values[0], values[1], values[2], values[3]);
  return true;
}

/// Applies option `name` with `value` (an option that takes one).
static Status applyValue(Options &o, const std::string &name,
                         const std::string &value) {
  long long n = 0;
  auto bad = [&](const char *what) {
    return Status::error("invalid value '" + value + "' for " + name + " (" +
                         what + ")");
  };
  if (name == "--sizes") {
    Sizes sizes;
    if (!parseSizes(value, sizes))
      return bad("expected B,M,N,K or M,N,K, all positive");
    o.sizes.push_back(sizes);
  } else if (name == "--iters" || name == "--warmup" || name == "--trials") {
    long long lo = name == "--warmup" ? 0 : 1;
    if (!parseInt(value, lo, 1000000, n))
      return bad("expected an integer count");
    (name == "--iters"    ? o.iters
     : name == "--warmup" ? o.warmup
                          : o.trials) = static_cast<int>(n);
  } else if (name == "--seed") {
    if (!parseInt(value, 0, LLONG_MAX, n))
      return bad("expected a non-negative integer");
    o.seed = static_cast<uint64_t>(n);
  } else if (name == "--peak-tflops") {
    char *end = nullptr;
    o.peakTflops = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !(o.peakTflops > 0))
      return bad("expected a positive number");
  } else if (name == "--flush-mb") {
    if (!parseInt(value, 0, 1 << 20, n))
      return bad("expected MiB");
    o.flushBytes = static_cast<size_t>(n) << 20;
  } else if (name == "--device") {
    if (!parseInt(value, 0, INT_MAX, n))
      return bad("expected a device ordinal");
    o.device = static_cast<int>(n);
  } else {
    o.jsonPath = value;
  }
  return Status::success();
}

static Status parseOptions(int argc, char **argv, Options &o, bool &help) {
  static const char *const kValued[] = {
      "--sizes",       "--iters",    "--warmup", "--trials", "--seed",
      "--peak-tflops", "--flush-mb", "--device", "--json"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return Status::success();
    }
    if (arg == "--check-only" || arg == "--list" || arg == "--self-test") {
      (arg == "--check-only" ? o.checkOnly
       : arg == "--list"     ? o.list
                             : o.selfTest) = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      o.manifests.push_back(arg);
      continue;
    }
    std::string name = arg, value;
    size_t eq = arg.find('=');
    bool inline_ = eq != std::string::npos;
    if (inline_) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    bool known = false;
    for (const char *option : kValued)
      known = known || name == option;
    if (!known)
      return Status::error("unknown option '" + arg + "' (see --help)");
    if (!inline_) {
      if (i + 1 >= argc)
        return Status::error("option '" + name + "' needs a value");
      value = argv[++i];
    }
    if (Status s = applyValue(o, name, value); !s.ok())
      return s;
  }
  if (o.manifests.empty() && !o.selfTest)
    return Status::error("no bundle manifests given (see --help)");
  if (o.selfTest && o.checkOnly)
    return Status::error("--self-test compares against cuBLAS, which "
                         "--check-only leaves out");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

/// A bundle at the sizes it runs at.
struct CaseSpec {
  const Bundle *bundle;
  Sizes sizes;
};

/// "B,M,N,K" as --sizes spells them.
static std::string formatSizes(const Sizes &sizes) {
  std::string text;
  for (const char *symbol : kGemmSizeSymbols)
    text += (text.empty() ? "" : ",") + std::to_string(sizes.get(symbol));
  return text;
}

/// Expands bundles x --sizes. A static bundle runs once at its own sizes
/// (any --sizes that disagree are noted, not silently used); a dynamic one
/// runs at each --sizes, and is an error without any.
static void expandCases(const Options &options,
                        const std::vector<Bundle> &bundles,
                        std::vector<CaseSpec> &cases,
                        std::vector<CaseResult> &errors) {
  for (const Bundle &bundle : bundles) {
    Sizes sizes;
    if (!bundle.manifest().isDynamic()) {
      if (Status s = bundle.resolveSizes(nullptr, sizes); s.ok())
        cases.push_back({&bundle, sizes});
      for (const Sizes &asked : options.sizes)
        if (Status s = bundle.resolveSizes(&asked, sizes); !s.ok())
          std::printf("note: %s: --sizes %s skipped: %s\n",
                      bundle.source().c_str(), formatSizes(asked).c_str(),
                      s.message().c_str());
      continue;
    }
    std::vector<Sizes> all = options.sizes;
    if (all.empty())
      all.push_back(Sizes()); // Makes resolveSizes say why.
    for (const Sizes &asked : all) {
      Status s =
          bundle.resolveSizes(options.sizes.empty() ? nullptr : &asked, sizes);
      if (s.ok()) {
        cases.push_back({&bundle, sizes});
        continue;
      }
      CaseResult error;
      error.manifestPath = bundle.source();
      error.name = bundle.manifest().name;
      error.arch = bundle.manifest().arch;
      error.spec = GemmSpec::fromBundle(bundle, asked);
      error.error = s.message();
      errors.push_back(error);
    }
  }
}

static CaseResult loadError(const std::string &path, const Status &status) {
  CaseResult result;
  result.manifestPath = path;
  result.name = path;
  result.error = status.message();
  return result;
}

/// Loads a manifest that amk-bench can run: its reference and cuBLAS are
/// GEMMs, so a bundle of another family is refused.
static Status loadGemmBundle(const std::string &path, Bundle &bundle) {
  if (Status s = Bundle::loadManifest(path, bundle); !s.ok())
    return s;
  const std::string &family = bundle.manifest().family;
  if (family != "gemm")
    return Status::error(path +
                         ": amk-bench checks and times GEMM bundles "
                         "only; this bundle's family is '" +
                         family + "'");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

static JsonValue deviceJson(const Session &session) {
  JsonValue device;
  if (!session.device() || !parseJson(toJSON(*session.device()), device).ok())
    return JsonValue::string(session.deviceError());
  return device;
}

static JsonValue optionsJson(const Options &o) {
  JsonValue json = JsonValue::object();
  json.set("iters", JsonValue::integer(o.iters));
  json.set("warmup", JsonValue::integer(o.warmup));
  json.set("trials", JsonValue::integer(o.checkOnly ? 1 : o.trials));
  json.set("seed", JsonValue::integer(static_cast<int64_t>(o.seed)));
  json.set("l2_flush_bytes",
           JsonValue::integer(static_cast<int64_t>(o.flushBytes)));
  json.set("check_only", JsonValue::boolean(o.checkOnly));
  if (o.peakTflops > 0)
    json.set("peak_tflops", JsonValue::number(o.peakTflops));
  return json;
}

static Status writeJson(const Options &options, const Session &session,
                        const std::vector<CaseResult> &results) {
  JsonValue root = JsonValue::object();
  root.set("tool", JsonValue::string(kToolName));
  root.set("format", JsonValue::integer(1));
  root.set("device", deviceJson(session));
  root.set("options", optionsJson(options));
  JsonValue cases = JsonValue::array();
  int counts[3] = {0, 0, 0};
  for (const CaseResult &r : results) {
    cases.push(r.toJson());
    ++counts[r.status == "PASS" ? 0 : r.status == "FAIL" ? 1 : 2];
  }
  root.set("cases", cases);
  JsonValue summary = JsonValue::object();
  summary.set("cases",
              JsonValue::integer(static_cast<int64_t>(results.size())));
  summary.set("passed", JsonValue::integer(counts[0]));
  summary.set("failed", JsonValue::integer(counts[1]));
  summary.set("errors", JsonValue::integer(counts[2]));
  root.set("summary", summary);
  std::ofstream file(options.jsonPath);
  file << toJsonString(root) << "\n";
  file.close();
  if (!file)
    return Status::error("cannot write '" + options.jsonPath +
                         "': " + std::strerror(errno));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

/// A case skipped because case `culprit` left the CUDA context unusable.
static CaseResult notRun(const CaseSpec &spec, const std::string &culprit) {
  CaseResult result;
  result.manifestPath = spec.bundle->source();
  result.name = spec.bundle->manifest().name;
  result.arch = spec.bundle->manifest().arch;
  result.spec = GemmSpec::fromBundle(*spec.bundle, spec.sizes);
  result.notRun = true;
  result.error = "not run: the CUDA context is unusable after the error in " +
                 culprit +
                 " (CUDA cannot recover within a process; run the "
                 "remaining bundles in a new amk-bench)";
  return result;
}

/// Runs every case up to the first sticky CUDA error; the cases after it are
/// reported as not run.
static std::vector<CaseResult> runAll(Session &session, const Options &options,
                                      const std::vector<CaseSpec> &cases) {
  std::vector<CaseResult> results;
  std::string culprit; // The case whose error broke the context.
  for (size_t i = 0; i < cases.size(); ++i) {
    if (culprit.empty())
      results.push_back(runCase(session, options, *cases[i].bundle,
                                cases[i].sizes, static_cast<int>(i)));
    else
      results.push_back(notRun(cases[i], culprit));
    printCaseLine(results.back(), static_cast<int>(i),
                  static_cast<int>(cases.size()));
    if (results.back().hung)
      break; // A running kernel cannot be stopped; give up.
    if (results.back().stickyError && culprit.empty())
      culprit = results.back().name;
  }
  return results;
}

int main(int argc, char **argv) {
  Options options;
  bool help = false;
  if (Status s = parseOptions(argc, argv, options, help); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", kToolName, s.message().c_str());
    return 2;
  }
  if (help) {
    printHelp();
    return 0;
  }
  if (options.list)
    return listManifests(options);

  Session session;
  if (Status s = session.init(options); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", kToolName, s.message().c_str());
    return 1;
  }
  if (options.selfTest && runSelfTest(session, options) != 0)
    return 1;

  std::vector<Bundle> loaded;
  std::vector<CaseResult> results;
  std::vector<CaseSpec> cases;
  loaded.reserve(options.manifests.size()); // CaseSpecs point into it.
  for (const std::string &path : options.manifests) {
    Bundle bundle;
    if (Status s = loadGemmBundle(path, bundle); s.ok())
      loaded.push_back(std::move(bundle));
    else
      results.push_back(loadError(path, s));
  }
  expandCases(options, loaded, cases, results);
  for (size_t i = 0; i < results.size(); ++i)
    printCaseLine(results[i], static_cast<int>(i),
                  static_cast<int>(results.size()));

  std::vector<CaseResult> ran = runAll(session, options, cases);
  results.insert(results.end(), ran.begin(), ran.end());
  if (!results.empty())
    printTable(results);
  if (!options.jsonPath.empty())
    if (Status s = writeJson(options, session, results); !s.ok())
      std::fprintf(stderr, "%s: %s\n", kToolName, s.message().c_str());
  if (!ran.empty() && ran.back().hung) {
    std::fflush(stdout);
    std::_Exit(1); // Tearing down a context with a running kernel can block.
  }
  bool allPass =
      ran.size() == cases.size() &&
      std::all_of(results.begin(), results.end(),
                  [](const CaseResult &r) { return r.status == "PASS"; });
  return allPass ? 0 : 1;
}
