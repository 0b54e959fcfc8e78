//===- LaunchPlan.cpp - Variant selection and step order ------------------===//
//
// Part of AMK (AutoMegaKernel).
//
//===----------------------------------------------------------------------===//

#include "AMK/Runtime/LaunchPlan.h"

#include <utility>

namespace amk::runtime {

//===----------------------------------------------------------------------===//
// Step order
//===----------------------------------------------------------------------===//

namespace {

/// For each step, the indices of the steps its `after` names.
Status resolveAfter(const std::vector<StepSpec> &steps,
                    std::vector<std::vector<size_t>> &deps) {
  deps.assign(steps.size(), {});
  for (size_t i = 0; i < steps.size(); ++i)
    for (const std::string &id : steps[i].after) {
      size_t j = 0;
      while (j < steps.size() && steps[j].id != id)
        ++j;
      if (j == steps.size())
        return Status::error("step " + steps[i].describe() +
                             ": 'after' names no step '" + id + "'");
      deps[i].push_back(j);
    }
  return Status::success();
}

/// Spells out a cycle among the steps not `done`: each of them waits for
/// another such step, so following those waits must come back.
std::string describeCycle(const std::vector<StepSpec> &steps,
                          const std::vector<std::vector<size_t>> &deps,
                          const std::vector<bool> &done) {
  size_t current = 0;
  while (done[current])
    ++current;
  std::vector<size_t> path;
  while (true) {
    for (size_t k = 0; k < path.size(); ++k)
      if (path[k] == current) {
        std::string text;
        for (size_t m = k; m < path.size(); ++m)
          text += steps[path[m]].describe() + " -> ";
        return text + steps[current].describe();
      }
    path.push_back(current);
    for (size_t dep : deps[current])
      if (!done[dep]) {
        current = dep;
        break;
      }
  }
}

} // namespace

Status orderSteps(const std::vector<StepSpec> &steps,
                  std::vector<size_t> &order) {
  order.clear();
  std::vector<std::vector<size_t>> deps;
  if (Status s = resolveAfter(steps, deps); !s.ok())
    return s;
  std::vector<bool> done(steps.size(), false);
  // Each round takes the first listed step whose dependencies have run.
  while (order.size() < steps.size()) {
    size_t next = 0;
    for (; next < steps.size(); ++next) {
      bool ready = !done[next];
      for (size_t dep : deps[next])
        ready = ready && done[dep];
      if (ready)
        break;
    }
    if (next == steps.size())
      return Status::error("the steps' 'after' lists form a cycle: " +
                           describeCycle(steps, deps, done));
    done[next] = true;
    order.push_back(next);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Variants
//===----------------------------------------------------------------------===//

int64_t addressAlignment(CUdeviceptr address) {
  int64_t alignment = 1;
  while (alignment < 256 && address % (2 * alignment) == 0)
    alignment *= 2;
  return alignment;
}

static Status checkArgCount(const Manifest &m,
                            const std::vector<CUdeviceptr> &args) {
  if (args.size() == m.args.size())
    return Status::success();
  return Status::error("bundle '" + m.name + "' takes " +
                       std::to_string(m.args.size()) + " arguments, got " +
                       std::to_string(args.size()) + " buffers");
}

Status selectVariant(const Bundle &bundle, const Sizes &sizes,
                     const std::vector<CUdeviceptr> &args, size_t &variant) {
  const Manifest &m = bundle.manifest();
  if (Status s = checkArgCount(m, args); !s.ok())
    return s;
  AlignmentOf alignment = [&](std::string_view name, int64_t &bytes) {
    int index = m.findBuffer(name);
    if (index < 0)
      return false;
    // cuMemAlloc aligns the workspace to at least 256 bytes.
    bytes = static_cast<size_t>(index) < args.size()
                ? addressAlignment(args[index])
                : 256;
    return true;
  };
  std::string falseOnes;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const std::string &when = m.variants[i].when;
    bool holds = true;
    if (!when.empty())
      if (Status s = evalCondition(when, sizes, alignment, holds); !s.ok())
        return s.withContext(bundle.source() + ": variants[" +
                             std::to_string(i) + "].when");
    if (holds) {
      variant = i;
      return Status::success();
    }
    falseOnes += "; variants[" + std::to_string(i) + "]: '" + when + "'";
  }
  return Status::error("no variant of bundle '" + m.name + "' applies at " +
                       sizes.toString() + " (false" + falseOnes + ")");
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// A kernel reads its inputs while it writes its outputs: a written buffer
/// that overlaps any other argument would race (the compiler refuses views
/// of one buffer; distinct arguments are only known here).
static Status checkDisjoint(const Manifest &m,
                            const std::vector<CUdeviceptr> &args,
                            const std::vector<int64_t> &bytes) {
  // [a, a + n) and [b, b + k) overlap iff the later start is inside the
  // earlier range (differences, so pointers near 2^64 cannot wrap).
  auto overlap = [&](size_t i, size_t j) {
    if (args[i] < args[j])
      std::swap(i, j);
    return args[i] - args[j] < static_cast<uint64_t>(bytes[j]);
  };
  for (size_t i = 0; i < args.size(); ++i)
    for (size_t j = 0; j < args.size(); ++j)
      if (i != j && m.args[i].written && overlap(i, j))
        return Status::error("buffer '" + m.args[i].name +
                             "', which the kernel writes, overlaps buffer '" +
                             m.args[j].name + "' of bundle '" + m.name +
                             "': the kernel would race");
  return Status::success();
}

Status planLaunch(const Bundle &bundle, const Sizes &sizes,
                  const std::vector<CUdeviceptr> &args, LaunchPlan &plan) {
  const Manifest &m = bundle.manifest();
  plan = LaunchPlan();
  if (Status s = selectVariant(bundle, sizes, args, plan.variant); !s.ok())
    return s;
  // Every buffer's size fits int64 (so its strides do), whether or not the
  // caller resolved the sizes first.
  std::vector<int64_t> argBytes;
  for (size_t i = 0; i < m.bufferCount(); ++i) {
    int64_t bytes;
    if (Status s = m.buffer(i).bytes(sizes, bytes); !s.ok())
      return s;
    (i < m.args.size() ? argBytes : plan.workspaceBytes).push_back(bytes);
  }
  if (Status s = checkDisjoint(m, args, argBytes); !s.ok())
    return s;
  const VariantSpec &variant = m.variants[plan.variant];
  for (size_t index : variant.order) {
    const StepSpec &step = variant.steps[index];
    PlannedStep planned;
    planned.kind = step.kind;
    if (step.kind == StepSpec::Kind::Kernel) {
      int kernel = m.findKernel(step.kernel);
      if (kernel < 0)
        return Status::error("step " + step.describe() +
                             " names no kernel of bundle '" + m.name + "'");
      planned.kernel = static_cast<size_t>(kernel);
      if (Status s = bundle.evalGrid(planned.kernel, sizes, planned.grid);
          !s.ok())
        return s;
    } else {
      int buffer = m.findBuffer(step.buffer);
      if (buffer < 0)
        return Status::error("step " + step.describe() +
                             " names no buffer of bundle '" + m.name + "'");
      planned.buffer = static_cast<size_t>(buffer);
      if (Status s = m.buffer(planned.buffer).bytes(sizes, planned.bytes);
          !s.ok())
        return s;
    }
    plan.steps.push_back(planned);
  }
  return Status::success();
}

} // namespace amk::runtime
