//===- Merge.cpp - amk-tune merge: tuning databases into one --------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "amk-tune.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::amk;
using namespace mlir::amk::tune;

/// Keeps every valid record once, in the order the inputs list them.
int tune::runMerge() {
  TuningDB merged;
  llvm::StringSet<> seen;
  std::vector<TuningRecord> unique;
  for (const std::string &input : mergeInputs) {
    if (!llvm::sys::fs::exists(input))
      return fail("no such database: '" + input + "'");
    TuningDB db;
    if (llvm::Error e = loadDB(db, input))
      return fail(llvm::toString(std::move(e)));
    for (const TuningRecord &r : db.all()) {
      std::string line;
      llvm::raw_string_ostream os(line);
      os << r.toJSON();
      if (seen.insert(line).second)
        unique.push_back(r);
    }
  }
  if (llvm::sys::fs::exists(mergeOutput))
    return fail("'" + mergeOutput + "' exists; merge writes a new database");
  if (llvm::Error e = merged.append(mergeOutput, unique))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << "merged " << unique.size() << " record(s) into "
               << mergeOutput << "\n";
  return 0;
}
