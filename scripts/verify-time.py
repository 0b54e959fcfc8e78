#!/usr/bin/env python3
"""Times the harness (`--amk-verify`) on every kernel of the benchmark suite.

    PYTHONPATH=python python3 scripts/verify-time.py [--amk-opt build/bin/amk-opt]
        [--target h200] [--out /tmp/verify-time] [--repeat 3] [--quick]

Each suite case (python/amk/suite.py) is planned and lowered to its gpu.func
(`--amk-pipeline=... stop-at=gpu`, printed generically: an
`nvgpu.device_async_create_group` without tokens does not parse back in
its custom form); then `amk-opt --amk-verify -mlir-timing`
runs on that output `--repeat` times, and the fastest wall time of the
AMKVerifyPass (the kernel checks on the one gpu.func, plus its launch's
resources) is the kernel's figure: the minimum rejects the noise of a shared
machine. Prints one line per kernel and the median and maximum; exits 1 if a
kernel fails to lower or to verify.
"""

import argparse
import os
import re
import subprocess
import sys

from amk.suite import suite_cases

TIMING = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+AMKVerifyPass\s*$")


def verify_ms(amk_opt, path):
    proc = subprocess.run(
        [amk_opt, path, "--amk-verify", "-mlir-timing",
         "-mlir-timing-display=list", "-o", os.devnull],
        capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[:2000])
    for line in proc.stderr.splitlines():
        m = TIMING.match(line)
        if m:
            return float(m.group(1)) * 1000
    raise RuntimeError("no AMKVerifyPass line in -mlir-timing output")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", default="build/bin/amk-opt")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--out", default="/tmp/verify-time")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    times, failures = [], 0
    for case in suite_cases(args.quick):
        src = os.path.join(args.out, case.name + ".mlir")
        gpu = os.path.join(args.out, case.name + ".gpu.mlir")
        with open(src, "w") as f:
            f.write(case.module())
        proc = subprocess.run(
            [args.amk_opt, src, "-o", gpu, "--mlir-print-op-generic",
             f"--amk-pipeline=target={args.target} stop-at=gpu"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            failures += 1
            print(f"FAIL {case.name}: {proc.stderr.strip()[:2000]}",
                  file=sys.stderr)
            continue
        try:
            ms = min(verify_ms(args.amk_opt, gpu) for _ in range(args.repeat))
        except RuntimeError as e:
            failures += 1
            print(f"FAIL {case.name}: {e}", file=sys.stderr)
            continue
        times.append((ms, case.name))
        print(f"{case.name:32s} {ms:8.1f} ms")
    if times:
        times.sort()
        median = times[len(times) // 2][0]
        print(f"verify per kernel: median {median:.1f} ms, max "
              f"{times[-1][0]:.1f} ms ({times[-1][1]}) over {len(times)} "
              f"kernels")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
