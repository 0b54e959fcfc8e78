#!/usr/bin/env python3
"""Tunes two GEMMs on this machine's GPU with amk.tune, then compiles with
the database it wrote:

    python3 examples/tune.py [--out amk-tuning] [--rounds 2] [--candidates 4]

Each candidate is checked against an fp64 reference and timed against
cuBLAS in the same amk-bench run (a progress bar counts them); the report
(REPORT.md, roofline and predicted-vs-measured plots as PNG) lands in
OUT/report. Needs a GPU and the amk package (installed from the wheel, or
this repository's with its build and runtime).
"""

import argparse
import os
import sys

try:
    import amk
except ImportError:  # not installed: this repository's package
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "python"))
    import amk
from amk.ops import matmul_source


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="amk-tuning")
    parser.add_argument("--target", default=None,
                        help="an AMK target (default: this GPU's)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--candidates", type=int, default=4)
    args = parser.parse_args()
    target = args.target or amk.target.from_device()
    problems = [
        # A prefill projection, weights stored as torch's Linear ([N, K]).
        matmul_source(2048, 4096, 4096, "bf16", "bf16", transpose_b=True),
        # A skinny decode-like product.
        matmul_source(64, 14336, 4096, "bf16", "bf16", transpose_b=True),
    ]
    result = amk.tune(problems, target, out=args.out, rounds=args.rounds,
                      candidates=args.candidates)
    for signature, best in sorted(result.best.items()):
        ratio = best["cublas_us"] / best["us"] if best["us"] else 0
        print(f"{signature}: best {best['us']:.1f} us, cuBLAS "
              f"{best['cublas_us']:.1f} us ({ratio:.3f}x), {best['config']}")
    print(f"report: {result.report}; plots: {', '.join(result.plots)}")
    for source in problems:
        k = amk.compile(source, target, tuning_db=result.tuning_db)
        print(f"planned with the database: {k.name}: {k.config}")


if __name__ == "__main__":
    main()
