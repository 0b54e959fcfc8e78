"""Build the row-wise benchmark (softmax, norms, reductions) into bundles.

    python3 -m amk.rowsuite --amk-opt build/bin/amk-opt --target h200 --out DIR

Each case is a one-op MLIR module (amk.row_reduce), planned, verified and
lowered by `amk-opt --amk-pipeline`; DIR/suite.json indexes the bundles for
`python3 -m amk.rowbench` on the GPU machine (torch, Triton and the copy
ceiling in the same run). Large shapes are the issue's targets; odd and
skinny ones check edges (one column, primes, 2^k + 1, ~100K-wide rows, many
short rows) and dynamic sizes run at several sizes. `--study`,
`--cluster-study` and `--dynamic-cluster-study` build explicit configs
beside the planner's instead (cached rows by threads per row; rows over
clusters of blocks; few long rows of dynamic sizes).
"""

import argparse
import sys

from amk.suite import build

MLIR_TYPE = {"fp32": "f32", "bf16": "bf16", "fp16": "f16"}
NORMS = ("rms_norm", "layer_norm")
# Kinds with a second statistics pass (passes = 2).
TWO_PASS = ("softmax", "layer_norm")


class RowCase:
    def __init__(self, kind, m, n, dtype, batch=0, dynamic=False, bias=False,
                 out=None, perf=True, sizes=None, eps=None, config=None,
                 tag="", dynamic_n=False):
        self.kind, self.m, self.n, self.dtype = kind, m, n, dtype
        self.batch, self.dynamic, self.bias = batch, dynamic, bias
        # Only the row length dynamic (the row count as given).
        self.dynamic_n = dynamic_n
        self.out = out or dtype
        self.perf, self.sizes, self.eps = perf, sizes, eps
        self.k = 0
        # An explicit #amk.row_config (the planner's choice when None).
        self.config = config
        dims = ([batch] if batch else []) + [m, n]
        shape = "x".join(("D" if dynamic or (dynamic_n and i == len(dims) - 1)
                          else str(v)) for i, v in enumerate(dims))
        suffix = "" if self.out == dtype else f"_to_{self.out}"
        self.name = (f"{kind}_{shape}_{dtype}{suffix}"
                     f"{'_bias' if bias else ''}{tag}")

    def module(self):
        t, o = MLIR_TYPE[self.dtype], MLIR_TYPE[self.out]
        dim = lambda v: "?" if self.dynamic else str(v)
        n = "?" if self.dynamic or self.dynamic_n else str(self.n)
        lead = f"{dim(self.batch)}x" if self.batch else ""
        x = f"memref<{lead}{dim(self.m)}x{n}x{t}>"
        elementwise = self.kind in NORMS or self.kind == "softmax"
        y = (f"memref<{lead}{dim(self.m)}x{n}x{o}>" if elementwise
             else f"memref<{lead}{dim(self.m)}x{o}>")
        vec = f"memref<{n}x{o}>"
        operands = [("x", x)]
        if self.kind in NORMS:
            operands.append(("w", vec))
        if self.bias:
            operands.append(("b", vec))
        operands.append(("y", y))
        attrs = [f"kind = #amk.row_op<{self.kind}>"]
        if self.eps is not None:
            attrs.append(f"eps = {self.eps:.6e}")
        uses = " weight(%w)" if self.kind in NORMS else ""
        uses += " bias(%b)" if self.bias else ""
        args = ", ".join(f"%{n}: {ty}" for n, ty in operands)
        types = ", ".join(ty for _, ty in operands)
        op = (f"amk.row_reduce %x{uses} into %y {{{', '.join(attrs)}}}"
              f" : {types}")
        func = self.name
        if self.config:
            op = (f'amk.kernel "{self.name}" config({self.config}) {{\n'
                  f"      {op}\n    }}")
            func = "run_" + self.name
        return (f"module {{\n  func.func @{func}({args}) {{\n"
                f"    {op}\n    return\n  }}\n}}\n")


def row_cases():
    cases = []
    large = [(8192, 32768), (32768, 1024), (4096, 4096)]
    for dtype in ("fp32", "bf16"):
        for m, n in large:
            for kind in ("softmax", "rms_norm", "layer_norm", "sum"):
                cases.append(RowCase(kind, m, n, dtype))
    odd = [(4096, 1), (1000, 4099), (2048, 4097), (64, 100000),
           (1 << 20, 8), (3, 7), (7, 129)]
    for m, n in odd:
        for kind in ("softmax", "rms_norm", "layer_norm", "max", "mean"):
            cases.append(RowCase(kind, m, n, "bf16"))
    cases += [
        RowCase("softmax", 4096, 4096, "bf16", out="fp32"),
        RowCase("layer_norm", 300, 1000, "fp16", batch=3, bias=True,
                eps=1e-6),
        RowCase("softmax", 2, 4096, "fp16", batch=8),
    ]
    # Each dispatch bucket at and just past its bound (64, 512, 4096), the
    # all-lengths kernel's cache full (32768) and one past it (streamed).
    dynamic_sizes = [(1, 1, 1), (1, 64, 64), (1, 1000, 513), (1, 7, 4099),
                     (1, 4096, 4096), (1, 8, 32768), (1, 3, 32769),
                     (1, 300, 100000)]
    for kind in ("softmax", "rms_norm", "layer_norm", "sum"):
        cases.append(RowCase(kind, -1, -1, "bf16", dynamic=True,
                             sizes=dynamic_sizes))
    cases.append(RowCase("softmax", -1, -1, "fp32", batch=1, dynamic=True,
                         sizes=[(3, 5, 33), (2, 1000, 2048)]))
    return cases


def row_config(t, v, passes, rows=1, runs=0, cache="registers", cluster=1):
    """A #amk.row_config, its defaulted parameters left out."""
    text = (f"threads_per_row = {t}, rows_per_block = {rows}, vector = {v}, "
            f"passes = {passes}")
    if runs:
        text += f", cached_runs = {runs}"
    if cache != "registers":
        text += f", cache = {cache}"
    if cluster != 1:
        text += f", cluster = {cluster}"
    return f"#amk.row_config<{text}>"


def cached_config(t, n, v, passes, rows=1, cache="registers"):
    """The config that caches a row of n in runs of v over t threads."""
    return row_config(t, v, passes, rows, -(-n // (t * v)), cache)


def cluster_config(t, v, passes, cluster, runs=0, cache="registers"):
    return row_config(t, v, passes, runs=runs, cache=cache, cluster=cluster)


def cluster_cases():
    """Rows spread over clusters of blocks: few long rows (64 of 100000,
    the planner's kernel beside clusters of 2 to 8, streamed, cached in
    registers and staged), and odd ones for correctness (a length no
    vector divides, a cached row whose last runs are partial)."""
    cases = []
    m, n = 64, 100000
    for kind in ("softmax", "rms_norm", "layer_norm", "max"):
        passes = 2 if kind == "softmax" else 1
        cases.append(RowCase(kind, m, n, "bf16"))
        for cluster in (2, 4, 8):
            for t in (512, 1024):
                cases.append(RowCase(
                    kind, m, n, "bf16",
                    config=cluster_config(t, 8, passes, cluster),
                    tag=f"_t{t}_k{cluster}"))
            if kind != "max":
                for t in (512, 1024) if cluster == 2 else (512,):
                    runs = -(-n // (t * cluster * 8))
                    cases.append(RowCase(
                        kind, m, n, "bf16",
                        config=cluster_config(t, 8, passes, cluster, runs,
                                              "shared"),
                        tag=f"_t{t}_k{cluster}_s"))
    cases += [
        RowCase("softmax", 5, 100003, "bf16", perf=False,
                config=cluster_config(256, 1, 1, 4), tag="_k4"),
        RowCase("layer_norm", 3, 32769, "fp32", bias=True, perf=False,
                config=cluster_config(1024, 1, 2, 2, 17), tag="_k2_c17"),
        RowCase("sum", 7, 4100, "fp16", perf=False,
                config=cluster_config(256, 4, 1, 8, 1), tag="_k8_c1"),
        RowCase("rms_norm", 9, 20000, "bf16", perf=False,
                config=cluster_config(512, 8, 1, 2, 3, "shared"),
                tag="_k2_s3"),
    ]
    # Few long rows as planned (clusters of 2 to 8 where the model takes
    # them), for correctness at other shapes.
    for kind, m, n, dtype in [("softmax", 1, 262144, "fp32"),
                              ("rms_norm", 3, 262144, "bf16"),
                              ("layer_norm", 17, 33000, "fp32"),
                              ("sum", 1, 100000, "fp32"),
                              ("max", 3, 4097, "bf16"),
                              ("softmax", 200, 33000, "bf16")]:
        cases.append(RowCase(kind, m, n, dtype, bias=kind == "layer_norm",
                             perf=False))
    # Few rows of a dynamic length, at lengths the vector does and does not
    # divide, one past a cache's capacity and short ones.
    sizes = [(1, 16, 100000), (1, 16, 100001), (1, 16, 33), (1, 16, 1),
             (1, 16, 8193)]
    for kind in ("softmax", "layer_norm", "sum"):
        cases.append(RowCase(kind, 16, -1, "bf16", dynamic_n=True,
                             bias=kind == "layer_norm", sizes=sizes))
    cases += dynamic_cluster_cases()
    return cases


def dynamic_cluster_cases():
    """Few long rows of dynamic sizes (the vector dividing the length or
    not): the planner's kernels beside a block per row and clusters of 2,
    4 and 8, streamed and cached."""
    sizes = [(1, 3, 32769), (1, 3, 32768), (1, 16, 32769), (1, 8, 100001),
             (1, 1, 262145), (1, 64, 8193)]
    cases = []
    for kind in ("softmax", "rms_norm", "sum"):
        passes = 2 if kind == "softmax" else 1
        cases.append(RowCase(kind, -1, -1, "bf16", dynamic=True,
                             sizes=sizes, tag="_planned"))
        for t, cluster in [(1024, 1), (512, 2), (1024, 2), (256, 4),
                           (512, 4), (256, 8), (512, 8)]:
            cases.append(RowCase(
                kind, -1, -1, "bf16", dynamic=True, sizes=sizes,
                config=cluster_config(t, 8, passes, cluster),
                tag=f"_t{t}_k{cluster}"))
            runs = -(-32769 // (t * cluster * 8))
            if kind != "sum" and runs <= 8 and t <= 512:
                cases.append(RowCase(
                    kind, -1, -1, "bf16", dynamic=True, sizes=sizes,
                    config=cluster_config(t, 8, passes, cluster, runs),
                    tag=f"_t{t}_k{cluster}_c{runs}"))
    return cases


def dynamic_small_cases():
    """Short rows of dynamic sizes, where a launch-bound kernel trails
    torch by fractions of a microsecond: the planner's dynamic softmax
    beside fixed designs for few short rows (threads per row, vector,
    rows per block) and for rows just past 4096 (threads, passes)."""
    sizes = [(1, 1, 1), (1, 3, 7), (1, 7, 129), (1, 64, 64), (1, 7, 4099),
             (1, 16, 4099), (1, 1000, 513), (1, 300, 4099)]
    cases = [RowCase("softmax", -1, -1, "bf16", dynamic=True, sizes=sizes,
                     tag="_planned")]
    for t in (1, 4, 8, 16, 32):
        for v in (1, 4):
            rows = max(1, 32 // t)
            cases.append(RowCase(
                "softmax", -1, -1, "bf16", dynamic=True, sizes=sizes,
                config=row_config(t, v, 1, rows, runs=1),
                tag=f"_t{t}x{rows}_v{v}"))
    for t in (128, 256, 512, 1024):
        for passes in (1, 2):
            runs = -(-4099 // (t * 8))
            cases.append(RowCase(
                "softmax", -1, -1, "bf16", dynamic=True, sizes=sizes,
                config=row_config(t, 8, passes, runs=runs),
                tag=f"_t{t}_p{passes}_c{runs}"))
    return cases


def study_cases():
    """Cached rows at several thread counts per row, in registers and
    staged in shared memory, beside the planner's kernel: long rows
    (8192x32768, every kind, both types), and the shapes
    where the cache's depth against the row's threads is least clear (few
    rows, short rows, Triton's best). Configs the harness refuses are
    reported, not built."""
    cases = []
    m, n = 8192, 32768
    for dtype in ("fp32", "bf16"):
        v = 4 if dtype == "fp32" else 8
        for kind in ("softmax", "rms_norm", "layer_norm", "sum"):
            cases.append(RowCase(kind, m, n, dtype))
            for t in (256, 512, 1024):
                for passes in ((1, 2) if kind in TWO_PASS else (1,)):
                    cases.append(RowCase(kind, m, n, dtype,
                                         config=cached_config(t, n, v, passes),
                                         tag=f"_t{t}_p{passes}"))
            # The row staged in shared memory (read again for the output).
            if kind == "sum":
                continue
            for t in (128, 256, 512):
                for passes in ((1, 2) if kind in TWO_PASS else (1,)):
                    config = cached_config(t, n, v, passes, cache="shared")
                    cases.append(RowCase(kind, m, n, dtype, config=config,
                                         tag=f"_t{t}_p{passes}_s"))
    # (kind, m, n, dtype, batch, bias, vector, threads per row)
    for kind, m, n, dtype, batch, bias, v, threads in [
            ("softmax", 2, 4096, "fp16", 8, False, 8, (64, 128, 256, 512)),
            ("layer_norm", 300, 1000, "fp16", 3, True, 8, (16, 32, 64, 128)),
            ("softmax", 7, 129, "bf16", 0, False, 1, (8, 16, 32, 64, 128)),
            ("softmax", 4096, 4096, "bf16", 0, False, 8, (64, 128, 256, 512)),
            ("softmax", 32768, 1024, "bf16", 0, False, 8, (16, 32, 64, 128)),
            ("softmax", 32768, 1024, "fp32", 0, False, 4, (16, 32, 64, 128))]:
        cases.append(RowCase(kind, m, n, dtype, batch=batch, bias=bias))
        passes = 2 if kind in TWO_PASS else 1
        for t in threads:
            rows = max(1, 128 // t)
            for cache in ("registers", "shared") if t >= 64 else ("registers",):
                config = cached_config(t, n, v, passes, rows, cache)
                cases.append(RowCase(kind, m, n, dtype, batch=batch,
                                     bias=bias, config=config,
                                     tag=f"_t{t}x{rows}"
                                     + ("_s" if cache == "shared" else "")))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", default="build/bin/amk-opt")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--out", required=True)
    parser.add_argument("--study", action="store_true",
                        help="cached rows at several thread counts per row")
    parser.add_argument("--cluster-study", action="store_true",
                        help="rows spread over clusters of blocks")
    parser.add_argument("--dynamic-cluster-study", action="store_true",
                        help="only the cluster study's rows of dynamic sizes")
    parser.add_argument("--dynamic-small-study", action="store_true",
                        help="short rows of dynamic sizes, fixed designs")
    args = parser.parse_args()
    cases = (study_cases() if args.study else
             dynamic_small_cases() if args.dynamic_small_study else
             cluster_cases() if args.cluster_study else
             dynamic_cluster_cases() if args.dynamic_cluster_study else
             row_cases())
    sys.exit(1 if build(args.amk_opt, args.target, args.out, cases) else 0)


if __name__ == "__main__":
    main()
