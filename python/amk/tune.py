"""The tuning loop from Python, and its pieces that need no MLIR and no GPU.

    result = amk.tune(problems, target="h200", out="tuning")   # on a GPU
    amk.compile(source, target="h200", tuning_db=result.tuning_db)

amk.tune runs rounds of evaluate -> reflect -> repair on this machine's GPU:
`amk-tune build` plans and compiles N candidates per problem, amk-bench
checks each against the fp64 reference and times it against cuBLAS in its
own process (a progress bar counts them; a crash costs one candidate),
`amk-tune ingest` records the results, derives repair rules and refits the
cost model; later rounds try only configs not measured yet. The report
(REPORT.md and its PNG plots) is written at the end.

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
import subprocess
import sys
import types

from amk import native


def write_problems(out, quick):
    """One module with a function per static performance case."""
    from amk.suite import suite_cases

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
        # The case's own ceiling: math at the peak or bytes at the HBM
        # bandwidth, whichever takes longer (older ingests: the math peak).
        ceiling = (flops[r["signature"]] / r["roofline_us"] / 1e6
                   if r.get("roofline_us") else r.get("peak_tflops"))
        if ceiling:
            ax.plot([ceiling, ceiling], [i - 0.45, i + 0.45], "k-",
                    linewidth=1.5)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_xlabel("TFLOP/s (black tick: the case's roofline, the lower of "
                  "the math peak and HBM bandwidth x intensity)")
    ax.set_title(f"Achieved TFLOP/s per shape against its roofline ({name})")
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
    return path, [os.path.join(out, image) for image in images]


class TuneError(RuntimeError):
    """A stage of the tuning loop failed (the tool's output says why)."""


class TuneResult:
    """What amk.tune did: the database the planner consults next time
    (compile(..., tuning_db=)), the round directories, the report, and the
    best measured candidate per problem."""

    def __init__(self, tuning_db, rounds, report_path, plots, best):
        self.tuning_db = tuning_db
        self.rounds = rounds
        self.report = report_path
        self.plots = plots
        self.best = best

    def __repr__(self):
        return (f"<amk.TuneResult {len(self.rounds)} round(s), "
                f"{len(self.best)} problem(s), db {self.tuning_db}>")


def _tool(name, env):
    path = native.find_tool(name, env)
    if path is None:
        raise TuneError(f"{name} not found: set ${env}, install the wheel "
                        f"(scripts/build-wheel.sh) or build the repository")
    return path


class _Progress:
    """A progress bar on stderr: tqdm's when it is installed, else one line
    redrawn in place."""

    def __init__(self, total, label, enabled):
        self.total, self.done, self.label = total, 0, label
        self.enabled = enabled
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc=label, file=sys.stderr)
            except ImportError:
                pass

    def step(self, note):
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(note)
            self.bar.update(1)
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        sys.stderr.write(f"\r{self.label} [{'#' * filled}"
                         f"{'.' * (width - filled)}] {self.done}/"
                         f"{self.total} {note[:40]:<40}")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _problem_files(problems, out):
    """`problems` (MLIR text, a path to a .mlir file, or a list of either)
    as files amk-tune build reads."""
    if isinstance(problems, (str, os.PathLike)):
        problems = [problems]
    files = []
    for i, p in enumerate(problems):
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"amk.tune: a problem is MLIR text or a path, got "
                            f"{type(p).__name__}")
        if os.path.isfile(p):
            files.append(os.fspath(p))
            continue
        if "func.func" not in p:
            raise ValueError(f"amk.tune: problem {i} is neither a file nor "
                             f"MLIR text with a func.func")
        path = os.path.join(out, f"problem-{i}.mlir")
        with open(path, "w") as f:
            f.write(p)
        files.append(path)
    if not files:
        raise ValueError("amk.tune: no problems")
    return files


def _run(cmd, what, quiet):
    proc = subprocess.run(cmd, capture_output=quiet, text=True)
    if proc.returncode != 0:
        detail = (proc.stderr or "").strip()[-2000:] if quiet else ""
        raise TuneError(f"{what} failed (exit {proc.returncode})"
                        + (f":\n{detail}" if detail else ""))
    return proc


def _bench_candidate(runner, manifest, results, iters):
    """One candidate in its own runner process; its status and speed (or
    why the process died before writing a result)."""
    # A result left by an earlier run into the same directory is not this
    # candidate's.
    if os.path.exists(results):
        os.remove(results)
    proc = subprocess.run(runner + ["--json", results, "--iters", str(iters),
                                    "--trials", "1", manifest],
                          capture_output=True, text=True)
    try:
        with open(results) as f:
            case = json.load(f)["cases"][0]
        return case.get("status", "?"), case.get("timing", {}).get("speed", 0)
    except (OSError, ValueError, KeyError, IndexError):
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-1:]
        return f"crashed ({tail[0] if tail else proc.returncode})", 0


def tune(problems, target="h200", *, out="amk-tuning", rounds=3,
         candidates=6, tuning_db=None, iters=30, progress=True,
         report_plots=True, runner=None):
    """Tunes `problems` (MLIR text, a .mlir path, or a list of them) for
    `target` on this machine's GPU: up to `rounds` rounds of `candidates`
    candidates per problem, until no config is left to try. Records into
    `tuning_db` (default OUT/tuning.jsonl) and writes OUT/report. `runner`
    (a command as a list) replaces amk-bench: it takes amk-bench's command
    line and writes its --json results. Returns a TuneResult; raises
    TuneError when a stage fails."""
    if rounds < 1 or candidates < 1 or iters < 1:
        raise ValueError("amk.tune: rounds, candidates and iters must be >= 1")
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    tuner = _tool("amk-tune", "AMK_TUNE")
    runner = list(runner) if runner else [_tool("amk-bench", "AMK_BENCH")]
    db = os.path.abspath(tuning_db or os.path.join(out, "tuning.jsonl"))
    inputs = _problem_files(problems, out)
    done = []
    for round_ in range(1, rounds + 1):
        d = os.path.join(out, f"r{round_}")
        cmd = [tuner, "build", f"-target={target}",
               f"-candidates={candidates}", "-o", d]
        if round_ > 1:
            cmd += ["-explore", f"-tuning-db={db}"]
        if not progress:
            cmd.append("-progress=false")
        _run(cmd + inputs, f"amk-tune build (round {round_})", not progress)
        with open(os.path.join(d, "build.json")) as f:
            built = [c for c in json.load(f)["candidates"]
                     if c["status"] == "ok"]
        fresh = [c for c in built if c.get("source") != "measured"]
        if round_ > 1 and not fresh:
            if progress:
                print(f"converged: no config left to try after "
                      f"{round_ - 1} round(s)", file=sys.stderr)
            break
        bar = _Progress(len(built), f"round {round_}", progress)
        results = []
        for i, c in enumerate(built):
            path = os.path.join(d, f"result-{i}.json")
            status, speed = _bench_candidate(
                runner, os.path.join(d, c["manifest"]), path, iters)
            if os.path.isfile(path):
                results.append(path)
            bar.step(f"{status} {speed:.2f}x cuBLAS" if speed else status)
        bar.close()
        if not results:
            raise TuneError(f"round {round_}: no candidate ran ("
                            f"{' '.join(runner)})")
        _run([tuner, "ingest", d, f"-tuning-db={db}"] + results,
             f"amk-tune ingest (round {round_})", True)
        done.append(d)
    if not done:
        raise TuneError("amk.tune: no round ran")
    report_path, images = None, []
    if report_plots:
        report_path, images = report(os.path.join(out, "report"), done, None)
    with open(os.path.join(done[-1], "ingest.json")) as f:
        summary = json.load(f)
    best = {p["signature"]: {"config": p.get("best_config"),
                             "us": p.get("best_us", 0),
                             "cublas_us": p.get("ref_us", 0)}
            for p in summary["problems"]}
    return TuneResult(db, done, report_path, images, best)


class _CallableModule(types.ModuleType):
    """`amk.tune(...)` calls tune() while `python3 -m amk.tune` and
    `amk.tune.report` stay this module."""

    def __call__(self, *args, **kwargs):
        return tune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule


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
