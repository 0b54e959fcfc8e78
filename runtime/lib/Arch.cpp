//===- Arch.cpp - Which cubins and PTX run on which GPU -------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/Arch.h"

#include <cctype>

namespace amk::runtime {

bool ArchName::parse(std::string_view text, ArchName &out) {
  if (text.substr(0, 3) != "sm_")
    return false;
  std::string_view rest = text.substr(3);
  char suffix = 0;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    suffix = rest.back();
    rest.remove_suffix(1);
  }
  // The last digit is the minor version: sm_90 -> 9.0, sm_100 -> 10.0.
  if (rest.size() < 2 || rest.size() > 4)
    return false;
  for (char c : rest)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  out.major = std::stoi(std::string(rest.substr(0, rest.size() - 1)));
  out.minor = rest.back() - '0';
  out.suffix = suffix;
  return out.major > 0;
}

std::string ArchName::base() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Status checkCubinCompatible(std::string_view arch, int ccMajor, int ccMinor) {
  ArchName name;
  if (!ArchName::parse(arch, name))
    return Status::error("unknown architecture '" + std::string(arch) + "'");
  std::string device =
      "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor);
  std::string prefix =
      "bundle built for " + std::string(arch) + ", device is " + device;
  if (name.major != ccMajor)
    return Status::error(prefix + ": a cubin runs only on devices of its own "
                                  "major version");
  if (name.suffix == 'a' && name.minor != ccMinor)
    return Status::error(prefix + ": an arch-specific ('a') cubin runs only "
                                  "on exactly that version");
  if (name.minor > ccMinor)
    return Status::error(prefix + ": the device is older than the cubin");
  return Status::success();
}

bool isPtxCompatible(std::string_view arch, int ccMajor, int ccMinor) {
  ArchName name;
  if (!ArchName::parse(arch, name))
    return false;
  if (name.suffix == 'a')
    return name.major == ccMajor && name.minor == ccMinor;
  if (name.suffix == 'f')
    return name.major == ccMajor && name.minor <= ccMinor;
  return name.major < ccMajor ||
         (name.major == ccMajor && name.minor <= ccMinor);
}

} // namespace amk::runtime
