"""Mutation smoke test: amk-opt must never crash on malformed input.

    python3 -m amk.fuzz --amk-opt build/bin/amk-opt --seed 1 --count 200 FILE...

Each round takes one of the given MLIR files, applies a few random token
edits (delete, duplicate, swap, replace a number with 0, -1 or a large
value), and runs it through parse -> plan -> verify -> lower (to gpu.func).
A non-zero exit with a diagnostic is fine; a crash (signal, LLVM's crash
banner, an assertion) is a bug: the input is saved next to the report.
"""

import argparse
import os
import random
import re
import subprocess
import sys

TOKEN = re.compile(r"\s+|[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|.", re.S)


def mutate(text, rng):
    tokens = TOKEN.findall(text)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(tokens))
        kind = rng.randrange(4)
        if kind == 0:
            del tokens[i]
        elif kind == 1:
            tokens.insert(i, tokens[i])
        elif kind == 2:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif re.fullmatch(r"-?\d+", tokens[i]):
            tokens[i] = rng.choice(["0", "-1", "1", "65536", "2147483648"])
    return "".join(tokens)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", default=".")
    parser.add_argument("--stop-at", default="gpu",
                        help="how far --amk-lower goes (binary runs ptxas)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    # Split-input-file tests hold many modules: mutate one at a time.
    sources = [piece for f in args.files
               for piece in open(f).read().split("// -----") if piece.strip()]
    crashes = 0
    for n in range(args.count):
        text = mutate(rng.choice(sources), rng)
        proc = subprocess.run(
            [args.amk_opt, "-", "-o", os.devnull, "--allow-unregistered-dialect",
             f"--amk-pipeline=target=h200 stop-at={args.stop_at}"],
            input=text, capture_output=True, text=True, timeout=60)
        crashed = proc.returncode < 0 or "PLEASE submit a bug report" in \
            proc.stderr or "Assertion" in proc.stderr
        if crashed:
            crashes += 1
            path = os.path.join(args.out, f"crash-{args.seed}-{n}.mlir")
            with open(path, "w") as f:
                f.write(text)
            print(f"CRASH ({proc.returncode}): {path}\n{proc.stderr[-1500:]}")
    print(f"fuzz: {args.count} mutants, {crashes} crash(es)")
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
