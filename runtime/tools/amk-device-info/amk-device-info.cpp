//===- amk-device-info.cpp - Write a CUDA device's target description -----===//
//
// Queries one CUDA device through the driver API and writes the JSON target
// description that `#amk.target` loads. Builds with the CUDA toolkit alone.
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/DeviceInfo.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace amk::runtime;

static const char *const kToolName = "amk-device-info";

static int fail(const std::string &message) {
  std::fprintf(stderr, "%s: %s\n", kToolName, message.c_str());
  return 1;
}

static void printHelp() {
  std::printf("USAGE: %s [--device N] [-o FILE]\n\n"
              "Queries a CUDA device and writes its AMK target description "
              "as JSON.\n\n"
              "OPTIONS:\n"
              "  --device N   CUDA device ordinal (default 0)\n"
              "  -o FILE      output file (default stdout; '-' is stdout)\n"
              "  --help       show this help\n",
              kToolName);
}

static bool parseDevice(const std::string &text, int &device) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (errno || *end || value < 0 || value > INT_MAX)
    return false;
  device = static_cast<int>(value);
  return true;
}

int main(int argc, char **argv) {
  int device = 0;
  std::string outPath = "-";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp();
      return 0;
    }
    std::string value;
    bool isDevice = arg == "--device" || arg.rfind("--device=", 0) == 0;
    if (arg == "--device" || arg == "-o") {
      if (i + 1 >= argc)
        return fail("option '" + arg + "' needs a value");
      value = argv[++i];
    } else if (isDevice) {
      value = arg.substr(std::strlen("--device="));
    } else {
      return fail("unknown option '" + arg + "' (see --help)");
    }
    if (isDevice) {
      if (!parseDevice(value, device))
        return fail("invalid device ordinal '" + value + "'");
    } else {
      outPath = value;
    }
  }

  DeviceInfo info;
  std::string error;
  if (!queryDevice(device, info, error))
    return fail(error);
  for (const std::string &warning : info.warnings)
    std::fprintf(stderr, "%s: warning: %s\n", kToolName, warning.c_str());

  std::string json = toJSON(info);
  bool toStdout = outPath == "-";
  std::FILE *file = toStdout ? stdout : std::fopen(outPath.c_str(), "w");
  if (!file)
    return fail("cannot open '" + outPath + "': " + std::strerror(errno));
  bool ok = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  ok = (toStdout ? std::fflush(file) : std::fclose(file)) == 0 && ok;
  if (!ok)
    return fail("cannot write '" + outPath + "'");
  return 0;
}
