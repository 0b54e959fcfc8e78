"""The tuning loop's driver pieces that need no MLIR and no GPU.

    python3 -m amk.tune problems --out suite.mlir [--quick]
        the performance cases of docs/BENCH.md as one module of amk.matmul
        ops: the input of `amk-tune build`.
    python3 -m amk.tune report --out REPORT_DIR ROUND_DIR... \
            [--compare UNTUNED.json TUNED.json]
        Markdown + PNG plots from `amk-tune ingest` summaries (ingest.json):
        predicted vs measured time per candidate, achieved TFLOP/s against
        the roofline per shape, AMK vs cuBLAS per shape; with --compare, the
        untuned and the tuned plan measured in the same amk-bench run.

docs/TUNING.md describes the loop.
"""

import argparse
import json
import math
import os
import sys

from amk.suite import suite_cases


def write_problems(out, quick):
    """One module with a function per static performance case."""
    funcs = []
    for case in suite_cases(quick):
        if not case.perf or case.dynamic:
            continue
        text = case.module()
        # Drop the `module {` wrapper: all functions go into one module.
        body = text.split("\n", 1)[1].rsplit("}", 1)[0]
        funcs.append(body.rstrip())
    with open(out, "w") as f:
        f.write("module {\n" + "\n".join(funcs) + "\n}\n")
    print(f"wrote {len(funcs)} problems to {out}")


def geomean(values):
    values = [v for v in values if v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def load_bench(path):
    """amk-bench --json results: signature-free, keyed by the case name."""
    with open(path) as f:
        data = json.load(f)
    cases = {}
    for c in data["cases"]:
        timing = c.get("timing", {})
        cases[c["name"]] = {
            "status": c["status"],
            "amk_us": timing.get("amk", {}).get("median_us", 0),
            "ref_us": timing.get("cublas", {}).get("median_us", 0),
            "speed": timing.get("speed", 0),
        }
    return cases


def plots(out, rounds, compare):
    """The PNG plots; returns their file names (empty without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plots", file=sys.stderr)
        return []
    files = []
    # Predicted vs measured, every candidate of every round.
    fig, ax = plt.subplots(figsize=(6, 6))
    for name, data in rounds:
        pts = [(c["predicted_us"], c["time_us"]) for c in data["candidates"]
               if c["status"] == "PASS" and c["time_us"] > 0]
        if pts:
            ax.scatter([p for p, _ in pts], [m for _, m in pts], s=10,
                       label=name, alpha=0.7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = ax.get_xlim()
    ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8, label="measured = predicted")
    ax.set_xlabel("predicted (us)")
    ax.set_ylabel("measured on the GPU (us)")
    ax.set_title("Cost model: predicted vs measured, per candidate")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "predicted-vs-measured.png"), dpi=110)
    plt.close(fig)
    files.append("predicted-vs-measured.png")

    # TFLOP/s of the best candidate per shape, against the roofline peak.
    name, data = rounds[-1]
    rows = sorted(data["problems"], key=lambda p: p["signature"])
    flops = {c["signature"]: c["flops"] for c in data["candidates"]}
    labels = [r["signature"].replace("gemm_", "")[:34] for r in rows]
    best = [flops[r["signature"]] / r["best_us"] / 1e6 if r.get("best_us")
            else 0 for r in rows]
    ref = [flops[r["signature"]] / r["ref_us"] / 1e6 if r.get("ref_us")
           else 0 for r in rows]
    fig, ax = plt.subplots(figsize=(10, max(4, 0.25 * len(rows))))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], best, height=0.4, label="AMK (tuned best)")
    ax.barh([i - 0.2 for i in y], ref, height=0.4, label="cuBLASLt")
    for i, r in enumerate(rows):
        peak = r.get("peak_tflops")
        if peak:
            ax.plot([peak, peak], [i - 0.45, i + 0.45], "k-", linewidth=1)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_xlabel("TFLOP/s (black tick: roofline peak of the math path)")
    ax.set_title(f"Achieved TFLOP/s per shape ({name})")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tflops-per-shape.png"), dpi=110)
    plt.close(fig)
    files.append("tflops-per-shape.png")

    # AMK vs cuBLAS per shape: the plan (rung 0) and the tuned best.
    fig, ax = plt.subplots(figsize=(10, max(4, 0.25 * len(rows))))
    if compare:
        untuned, tuned = compare
        keys = sorted(set(untuned) & set(tuned))
        plan = [untuned[k]["speed"] for k in keys]
        best = [tuned[k]["speed"] for k in keys]
        labels = [k.replace("gemm_", "")[:34] for k in keys]
        title = "AMK / cuBLAS speed per shape (same amk-bench run)"
    else:
        plan = [r["ref_us"] / r["plan_us"] if r.get("plan_us") else 0
                for r in rows]
        best = [r["ref_us"] / r["best_us"] if r.get("best_us") else 0
                for r in rows]
        title = f"AMK / cuBLAS speed per shape ({name})"
    y = range(len(labels))
    ax.barh([i - 0.2 for i in y], plan, height=0.4, label="untuned plan")
    ax.barh([i + 0.2 for i in y], best, height=0.4, label="tuned")
    ax.axvline(1.0, color="k", linewidth=0.8)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_xlabel("cuBLAS time / AMK time (> 1: AMK faster)")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "amk-vs-cublas.png"), dpi=110)
    plt.close(fig)
    files.append("amk-vs-cublas.png")
    return files


def report(out, round_dirs, compare_paths):
    os.makedirs(out, exist_ok=True)
    rounds = []
    for d in round_dirs:
        with open(os.path.join(d, "ingest.json")) as f:
            rounds.append((os.path.basename(os.path.normpath(d)), json.load(f)))
    compare = None
    if compare_paths:
        compare = tuple(load_bench(p) for p in compare_paths)
    lines = ["# AMK tuning report", ""]
    name, last = rounds[-1]
    lines.append(f"Target `{last['target']}`, {last['date']}.")
    lines.append("")
    for name, data in rounds:
        cands = data["candidates"]
        passed = sum(c["status"] == "PASS" for c in cands)
        classes = {}
        for c in cands:
            if c["status"] != "PASS":
                classes[c["class"] or c["status"]] = classes.get(
                    c["class"] or c["status"], 0) + 1
        cal = data.get("calibration", {})
        lines.append(f"## Round `{name}`: {len(cands)} candidates, "
                     f"{passed} correct and timed")
        lines.append("")
        if classes:
            lines.append("Failures by class: " + ", ".join(
                f"{k} {v}" for k, v in sorted(classes.items())) + ".")
            lines.append("")
        plan_ratio = geomean([p["ref_us"] / p["plan_us"]
                              for p in data["problems"] if p.get("plan_us")])
        best_ratio = geomean([p["ref_us"] / p["best_us"]
                              for p in data["problems"] if p.get("best_us")])
        lines.append(f"Geomean AMK/cuBLAS speed over {len(data['problems'])} "
                     f"problems: plan (rung 0) {plan_ratio:.3f}x, best "
                     f"candidate {best_ratio:.3f}x.")
        lines.append("")
        # One entry per family (older ingests: one unnamed entry).
        per_family = (cal if cal and all(isinstance(v, dict)
                                         for v in cal.values())
                      else {"": cal} if cal else {})
        for family, fit in per_family.items():
            label = f" ({family})" if family else ""
            if fit.get("skipped"):
                lines.append(f"No calibration{label}: {fit['skipped']}.")
                lines.append("")
                continue
            sb, sa = fit.get("spearman_before"), fit.get("spearman_after")
            fmt = lambda v: "n/a" if v is None else f"{v:.3f}"
            lines.append(
                f"Cost model{label} over {fit['points']} measurements "
                f"({fit['ladders']} ladders of >= 3): Spearman rank "
                f"correlation predicted vs measured {fmt(sb)} before, "
                f"{fmt(sa)} after calibration; rms log error "
                f"{fit['rms_log_error_before']:.3f} -> "
                f"{fit['rms_log_error_after']:.3f}.")
            lines.append("")
        if data["repairs"]:
            lines.append("Repair rules (reflector):")
            lines.append("")
            for r in data["repairs"]:
                lines.append(f"- `{r['rule']}` for `{r['scope']}` "
                             f"(value {r['value']}): {r['reason']}")
            lines.append("")
        if data["harness_gaps"]:
            lines.append("Harness gaps (wrong only on partial tiles, yet "
                         "verified):")
            lines.append("")
            for g in data["harness_gaps"]:
                lines.append(f"- {g}")
            lines.append("")
        lines.append("| problem | plan us | best us | cuBLAS us | plan x | "
                     "best x | best config |")
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        for p in sorted(data["problems"], key=lambda p: p["signature"]):
            plan_us, best_us, ref = (p.get("plan_us", 0), p.get("best_us", 0),
                                     p.get("ref_us", 0))
            lines.append(
                f"| {p['signature']} | {plan_us:.1f} | {best_us:.1f} | "
                f"{ref:.1f} | {ref / plan_us if plan_us else 0:.3f} | "
                f"{ref / best_us if best_us else 0:.3f} | "
                f"`{p.get('best_config', '-')}` |")
        lines.append("")
    if compare:
        untuned, tuned = compare
        keys = sorted(set(untuned) & set(tuned))
        ok_u = all(untuned[k]["status"] == "PASS" for k in keys)
        ok_t = all(tuned[k]["status"] == "PASS" for k in keys)
        gu = geomean([untuned[k]["speed"] for k in keys])
        gt = geomean([tuned[k]["speed"] for k in keys])
        lines.append("## Tuned vs untuned plan, measured in the same run")
        lines.append("")
        lines.append(f"{len(keys)} problems. Untuned plan: geomean "
                     f"{gu:.3f}x cuBLAS, all correct: {ok_u}. Tuned plan: "
                     f"geomean {gt:.3f}x cuBLAS, all correct: {ok_t}. "
                     f"Tuned / untuned: {gt / gu:.3f}x.")
        lines.append("")
        lines.append("| problem | untuned x | tuned x | verdicts |")
        lines.append("|---|---:|---:|---|")
        for k in keys:
            lines.append(f"| {k} | {untuned[k]['speed']:.3f} | "
                         f"{tuned[k]['speed']:.3f} | {untuned[k]['status']}/"
                         f"{tuned[k]['status']} |")
        lines.append("")
    images = plots(out, rounds, compare)
    for image in images:
        lines.append(f"![{image}]({image})")
    path = os.path.join(out, "REPORT.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path} and {len(images)} plot(s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("problems", help="the suite as amk-tune input")
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true")
    r = sub.add_parser("report", help="Markdown + PNG from ingest.json")
    r.add_argument("--out", required=True)
    r.add_argument("rounds", nargs="+", help="build dirs with ingest.json")
    r.add_argument("--compare", nargs=2, metavar=("UNTUNED", "TUNED"),
                   help="amk-bench results of the untuned and tuned plans")
    args = parser.parse_args()
    if args.command == "problems":
        write_problems(args.out, args.quick)
    else:
        report(args.out, args.rounds, args.compare)


if __name__ == "__main__":
    main()
