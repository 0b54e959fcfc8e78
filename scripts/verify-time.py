#!/usr/bin/env python3
"""Times the harness (`--amk-verify`) on every kernel of the benchmark suites.

    PYTHONPATH=python python3 scripts/verify-time.py [--amk-opt build/bin/amk-opt]
        [--target h200] [--out /tmp/verify-time] [--repeat 3] [--quick]
        [--families gemm,rows,graph]

The kernels are those the GPU benchmarks build: the GEMM suite
(python/amk/suite.py), the row family's suite and cluster cases
(python/amk/rowsuite.py) and the megakernels (scripts/graph-bundles.py).
Each case is planned and lowered to its gpu.funcs
(`--amk-pipeline=... stop-at=gpu`, printed generically: an
`nvgpu.device_async_create_group` without tokens does not parse back in
its custom form); then `amk-opt --amk-verify=time` runs on that output
`--repeat` times. Each kernel's figure is the fastest of its "harness time"
remarks (every check on that gpu.func): the minimum rejects the noise of a
shared machine, and a case planned as several variants (a small-M kernel
beside the general one) counts each kernel on its own. Prints one line per
kernel and the median and maximum; exits 1 if a kernel fails to lower or to
verify.
"""

import argparse
import importlib.util
import os
import re
import subprocess
import sys

from amk.rowsuite import cluster_cases, row_cases
from amk.suite import suite_cases

TIMING = re.compile(r"remark: harness time of (\S+): ([0-9.]+) ms")


def verify_ms(amk_opt, path):
    """The harness time of each kernel in `path`, by name."""
    proc = subprocess.run(
        [amk_opt, path, "--amk-verify=time", "-o", os.devnull],
        capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[:2000])
    times = {m.group(1): float(m.group(2))
             for m in TIMING.finditer(proc.stderr)}
    if not times:
        raise RuntimeError("no 'harness time' remark in the output")
    return times


def graph_cases():
    """(name, module) of each megakernel that scripts/graph-bundles.py builds."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "graph-bundles.py")
    spec = importlib.util.spec_from_file_location("graph_bundles", path)
    bundles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bundles)
    for text in bundles.cases(sweep=False, sms=132):
        yield text.split("@")[1].split("(")[0], text


def family_cases(family, quick):
    """(name, module) of each case of one family's benchmark."""
    if family == "gemm":
        return [(c.name, c.module()) for c in suite_cases(quick)]
    if family == "rows":
        cases = row_cases() + ([] if quick else cluster_cases())
        return [(c.name, c.module()) for c in cases]
    if family == "graph":
        return list(graph_cases())
    raise SystemExit(f"verify-time: unknown family '{family}'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", default="build/bin/amk-opt")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--out", default="/tmp/verify-time")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--families", default="gemm,rows,graph")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    times, failures = [], 0
    cases = [case for family in args.families.split(",")
             for case in family_cases(family, args.quick)]
    for name, module in cases:
        src = os.path.join(args.out, name + ".mlir")
        gpu = os.path.join(args.out, name + ".gpu.mlir")
        with open(src, "w") as f:
            f.write(module)
        proc = subprocess.run(
            [args.amk_opt, src, "-o", gpu, "--mlir-print-op-generic",
             f"--amk-pipeline=target={args.target} stop-at=gpu cache=false"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            failures += 1
            print(f"FAIL {name}: {proc.stderr.strip()[:2000]}",
                  file=sys.stderr)
            continue
        try:
            runs = [verify_ms(args.amk_opt, gpu) for _ in range(args.repeat)]
        except RuntimeError as e:
            failures += 1
            print(f"FAIL {name}: {e}", file=sys.stderr)
            continue
        for kernel in runs[0]:
            ms = min(run[kernel] for run in runs)
            times.append((ms, kernel))
            print(f"{kernel:48s} {ms:8.1f} ms")
    if times:
        times.sort()
        median = times[len(times) // 2][0]
        print(f"verify per kernel: median {median:.1f} ms, max "
              f"{times[-1][0]:.1f} ms ({times[-1][1]}) over {len(times)} "
              f"kernels")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
