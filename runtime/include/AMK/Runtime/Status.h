//===- Status.h - Success or an error message -------------------*- C++ -*-===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//
//
// The runtime reports every failure (a missing file, a malformed manifest, a
// wrong architecture, a failed launch) as a value, never by aborting: a
// benchmark over many bundles must be able to say what went wrong with one and
// go on with the next. Header-only and free of CUDA, so the manifest code and
// its tests build without a driver.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_STATUS_H
#define AMK_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace amk::runtime {

/// The outcome of a runtime call: success, or failure with a message meant
/// for a person (lowercase, no trailing period, naming the failing call and
/// the values involved).
class [[nodiscard]] Status {
public:
  /// A success.
  Status() = default;

  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool ok() const { return !failed; }
  bool failure() const { return failed; }
  /// The error message; empty on success.
  const std::string &message() const { return text; }

  /// Returns this status with "<context>: " put before a failure's message,
  /// so that callers can say where an error happened (e.g. which file).
  Status withContext(const std::string &context) const {
    return failed ? error(context + ": " + text) : *this;
  }

private:
  bool failed = false;
  std::string text;
};

} // namespace amk::runtime

#endif // AMK_RUNTIME_STATUS_H
