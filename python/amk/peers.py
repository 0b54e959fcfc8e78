"""AMK against Triton: join amk-bench results with scripts/triton-ref.py's.

    python3 -m amk.peers SUITE.json TRITON.json [--markdown OUT.md]

Each process times cuBLAS on the same shape next to its own kernel, so two
ratios come from the same run: AMK/cuBLAS (amk-bench) and Triton/cuBLAS
(triton-ref). AMK's ratio to Triton is their quotient, anchored on cuBLAS;
the direct quotient of the two processes' times is shown beside it. The
geomean is over the shapes both ran, with AMK's correctness verdict.
"""

import argparse
import json
import math
import sys

TYPES = {"bf16": "bf16", "fp16": "f16"}


def join(suite, triton):
    rows = []
    for t in triton["results"]:
        for case in suite["cases"]:
            s = case.get("sizes", {})
            if (case.get("problem", {}).get("in_type") == TYPES[t["dtype"]]
                    and (s.get("M"), s.get("N"), s.get("K"))
                    == (t["m"], t["n"], t["k"])
                    and s.get("B", 1) == 1 and "timing" in case):
                timing = case["timing"]
                amk_us = timing["amk"]["median_us"]
                amk_speed = timing["speed"]  # cuBLAS time / AMK time
                triton_speed = t["triton_over_cublas"]
                rows.append({
                    "dtype": t["dtype"], "shape": f"{t['m']}x{t['n']}x{t['k']}",
                    "amk_us": amk_us, "cublas_us_amk_run": timing["cublas"]["median_us"],
                    "triton_us": t["triton_us"],
                    "cublas_us_triton_run": t["cublas_us"],
                    "amk_over_cublas": amk_speed,
                    "triton_over_cublas": triton_speed,
                    "amk_over_triton": amk_speed / triton_speed,
                    "amk_over_triton_direct": t["triton_us"] / amk_us,
                    "amk_status": case["status"],
                    "triton_correct": t["correct"]})
    return rows


def table(rows):
    lines = ["| dtype | shape | AMK us | Triton us | AMK/cuBLAS | Triton/cuBLAS "
             "| AMK/Triton (anchored) | AMK/Triton (direct) | AMK verdict |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {r['dtype']} | {r['shape']} | {r['amk_us']:.1f} | "
            f"{r['triton_us']:.1f} | {r['amk_over_cublas']:.3f} | "
            f"{r['triton_over_cublas']:.3f} | {r['amk_over_triton']:.3f} | "
            f"{r['amk_over_triton_direct']:.3f} | {r['amk_status']} |")
    if rows:
        geo = lambda key: math.exp(sum(math.log(r[key]) for r in rows) /
                                   len(rows))
        lines.append(
            f"| geomean | {len(rows)} shapes | | | {geo('amk_over_cublas'):.3f} "
            f"| {geo('triton_over_cublas'):.3f} | {geo('amk_over_triton'):.3f} "
            f"| {geo('amk_over_triton_direct'):.3f} | "
            f"{sum(r['amk_status'] == 'PASS' for r in rows)}/{len(rows)} PASS |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("triton")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    with open(args.suite) as f:
        suite = json.load(f)
    with open(args.triton) as f:
        triton = json.load(f)
    rows = join(suite, triton)
    text = table(rows)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
