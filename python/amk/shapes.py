"""Problem fuzz: AMK must synthesize, and its harness accept, every valid GEMM.

    python3 -m amk.shapes --amk-opt build/bin/amk-opt --seed 1 --count 100 --out DIR

Each round writes one random valid `amk.matmul`: f32 (ieee or tf32), f16 or
bf16; sizes from edge values (1, 7, 33, 127, 999, ...) or dynamic; each
operand free to leave dynamic a size another operand states; batched with
a static or dynamic batch; transposes, bias, activation, alpha and beta. It
runs plan -> verify -> lower (to gpu.func, the harness included). Any
failure is a bug in the planner, the synthesizer or the harness (a false
alarm on AMK's own output): the input is kept in DIR and reported.
"""

import argparse
import json
import os
import random
import subprocess
import sys

SIZES = [1, 7, 16, 33, 64, 96, 127, 128, 200, 257, 999, 1000]


def problem(rng):
    """(MLIR text, the sizes (batch, M, N, K) to run it at)."""
    dtype = rng.choice(["f32", "tf32", "f16", "bf16"])
    elem = "f32" if dtype in ("f32", "tf32") else dtype
    out = rng.choice([elem, "f32"])
    # Each size is concrete at run time; the types leave some dynamic.
    sizes = [rng.choice(SIZES) for _ in range(3)]
    m, n, k = ("?" if rng.random() < 0.1 else v for v in sizes)
    ta, tb = rng.random() < 0.3, rng.random() < 0.3
    batch = rng.choice([None, None, 3, "?"])
    run_batch = rng.choice([1, 2, 3]) if batch == "?" else (batch or 1)
    lead = (batch,) if batch is not None else ()

    def loosen(shape):
        # An operand may leave dynamic what another operand states.
        return tuple("?" if rng.random() < 0.2 else s for s in shape)

    a = lead + loosen((k, m) if ta else (m, k))
    b = lead + loosen((n, k) if tb else (k, n))
    c = lead + (m, n)
    if batch is not None and rng.random() < 0.3:
        a = ("?",) + a[1:]
    attrs = []
    if ta:
        attrs.append("transpose_a")
    if tb:
        attrs.append("transpose_b")
    if dtype == "tf32":
        attrs.append("precision = #amk.precision<tf32>")
    operands = [("a", a, elem), ("b", b, elem)]
    if rng.random() < 0.25:
        attrs.append("activation = #amk.activation<%s>"
                     % rng.choice(["relu", "gelu", "silu"]))
        operands.append(("bias", lead + (n,), out))
    if rng.random() < 0.2:
        attrs.append("alpha = 0.5, beta = 1.0")
    operands.append(("c", c, out))
    memref = lambda shape, t: "memref<%sx%s>" % ("x".join(map(str, shape)), t)
    args = ", ".join(f"%{name}: {memref(s, t)}" for name, s, t in operands)
    types = ", ".join(memref(s, t) for _, s, t in operands)
    bias = " bias(%bias)" if len(operands) == 4 else ""
    attr = " {%s}" % ", ".join(attrs) if attrs else ""
    text = (f"func.func @gemm({args}) {{\n"
            f"  amk.matmul %a, %b{bias} into %c{attr} : {types}\n"
            f"  return\n}}\n")
    return text, (run_batch, *sizes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", default="build/bin/amk-opt")
    parser.add_argument("--target", default="h200")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bundles", action="store_true",
                        help="compile to cubin with a bundle per problem and "
                             "index them with their sizes in OUT/shapes.json "
                             "(for scripts/gpu-shapes.sh)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    index = []
    for i in range(args.count):
        path = os.path.join(args.out, f"problem{i}.mlir")
        text, sizes = problem(rng)
        with open(path, "w") as f:
            f.write(text)
        pipeline = f"target={args.target} cache=false"
        if args.bundles:
            bundle_dir = os.path.join(args.out, f"problem{i}")
            pipeline += f" bundle-dir={bundle_dir}"
        else:
            pipeline += " stop-at=gpu"
        proc = subprocess.run(
            [args.amk_opt, path, "-o", os.devnull,
             f"--amk-pipeline={pipeline}"],
            capture_output=True, text=True)
        if args.bundles and proc.returncode == 0:
            manifest = next(f for f in os.listdir(bundle_dir)
                            if f.endswith(".json"))
            index.append({"problem": f"problem{i}.mlir",
                          "manifest": f"problem{i}/{manifest}",
                          "sizes": list(sizes)})
        if proc.returncode != 0:
            failures += 1
            first = (proc.stderr.strip().splitlines() or ["(no output)"])[0]
            print(f"FAIL {path}: {first}")
    if args.bundles:
        with open(os.path.join(args.out, "shapes.json"), "w") as f:
            json.dump(index, f, indent=1)
    print(f"shapes: {args.count} problems, {failures} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
