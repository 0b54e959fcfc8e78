"""Mutation smoke test: amk-opt must never crash or hang on malformed input.

    python3 -m amk.fuzz --amk-opt build/bin/amk-opt --seed 1 --count 200 FILE...

Each round takes one of the given MLIR files (one `// -----` piece of it),
applies one to three random edits, and runs it through parse -> plan ->
verify -> lower (to gpu.func). The edits:

  token   delete, duplicate or swap tokens;
  number  replace a number by an edge value (0, -1, 1, 2, 3, 7, 31, 4097,
          65535, 65536, 2^31, 2^32, 2^40, 2^62, 2^63-1, -2^63);
  type    swap an element type (f32, f16, bf16, i8, i32, index, f64) for
          another, standalone or inside a memref/vector type;
  shape   replace one dimension of a memref/vector shape (by `?` or an edge
          value);
  attr    replace the value of a `key = value` attribute by a value seen
          for the same key anywhere in the inputs (or, at times, for any
          key).

A non-zero exit with a diagnostic is fine. A crash (signal, LLVM's crash
banner, an assertion) and a run past --timeout seconds are findings: the
mutant is saved next to the report (crash-SEED-N.mlir, timeout-SEED-N.mlir),
counted, and the run goes on. Exit status 1 if there is any finding.
The mutants depend only on --seed, --count and the inputs; --dry-run prints
a digest of each (and the edits made) without running amk-opt.
"""

import argparse
import hashlib
import os
import random
import re
import subprocess
import sys

TOKEN = re.compile(r"\s+|[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|.", re.S)
INTEGER = re.compile(r"-?\d+")

# Edge values: zero, signs, small and odd sizes, one past 4096, the 16-bit
# and 32-bit limits, sizes whose products wrap 64 bits, the 64-bit limits.
NUMBERS = ["0", "-1", "1", "2", "3", "7", "31", "4097", "65535", "65536",
           str(2**31), str(2**32), str(2**40), str(2**62), str(2**63 - 1),
           str(-2**63)]
ELEMENT_TYPES = ["f32", "f16", "bf16", "i8", "i32", "index", "f64"]
# An element type on its own (`: f32`) or ending a shape (`4096xbf16`).
ELEMENT_TYPE = re.compile(r"(?:(?<=[0-9?]x)|(?<![\w%@#.$-]))("
                          + "|".join(ELEMENT_TYPES) + r")(?![\w.])")
# One dimension of a memref or vector shape: digits or `?` before an `x`.
SHAPED = re.compile(r"\b(?:memref|vector)<((?:(?:\d+|\?)x)+)")
DIMENSION = re.compile(r"\d+|\?")
# `key = value` inside attribute dictionaries and attribute parameters.
ATTRIBUTE = re.compile(
    r"(?<![%@\w])([a-z_][a-z_0-9]*)\s*=\s*(\[[^\[\]]*\]|\"[^\"\n]*\"|#[\w.]+<[^<>\n]*>"
    r"|array<[^<>\n]*>|-?[\w.]+(?:[eE][-+]?\d+)?(?:\s*:\s*[a-z]\w*)?)")
# Full-line comments (RUN, CHECK, expected-*): nothing amk-opt reads.
COMMENT = re.compile(r"^\s*//.*\n?", re.M)


def replace_span(text, start, end, new):
    return text[:start] + new + text[end:]


def mutate_tokens(text, rng):
    tokens = TOKEN.findall(text)
    if not tokens:
        return text
    i = rng.randrange(len(tokens))
    kind = rng.randrange(3)
    if kind == 0:
        del tokens[i]
    elif kind == 1:
        tokens.insert(i, tokens[i])
    else:
        j = rng.randrange(len(tokens))
        tokens[i], tokens[j] = tokens[j], tokens[i]
    return "".join(tokens)


def mutate_number(text, rng):
    tokens = TOKEN.findall(text)
    numbers = [i for i, t in enumerate(tokens) if INTEGER.fullmatch(t)]
    if not numbers:
        return text
    tokens[rng.choice(numbers)] = rng.choice(NUMBERS)
    return "".join(tokens)


def mutate_type(text, rng):
    matches = list(ELEMENT_TYPE.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    new = rng.choice([t for t in ELEMENT_TYPES if t != m.group(1)])
    return replace_span(text, m.start(1), m.end(1), new)


def mutate_shape(text, rng):
    dims = [(s.start(1) + d.start(), s.start(1) + d.end())
            for s in SHAPED.finditer(text)
            for d in DIMENSION.finditer(s.group(1))]
    if not dims:
        return text
    start, end = rng.choice(dims)
    sizes = ["?"] + [n for n in NUMBERS if not n.startswith("-")]
    return replace_span(text, start, end, rng.choice(sizes))


def mutate_attribute(text, rng, pool):
    matches = list(ATTRIBUTE.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    key = m.group(1)
    # Mostly a value of the same key (a plausible one); sometimes any value.
    if key in pool and rng.randrange(4):
        values = pool[key]
    else:
        values = sorted({v for vs in pool.values() for v in vs})
    return replace_span(text, m.start(2), m.end(2), rng.choice(values))


MUTATIONS = ["token", "number", "type", "shape", "attr"]


def mutate(text, rng, pool):
    """One to three edits; returns the mutant and the names of the edits."""
    kinds = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(MUTATIONS)
        kinds.append(kind)
        if kind == "token":
            text = mutate_tokens(text, rng)
        elif kind == "number":
            text = mutate_number(text, rng)
        elif kind == "type":
            text = mutate_type(text, rng)
        elif kind == "shape":
            text = mutate_shape(text, rng)
        else:
            text = mutate_attribute(text, rng, pool)
    return text, kinds


def attribute_pool(sources):
    """Every value each attribute key takes in the inputs, sorted."""
    pool = {}
    for text in sources:
        for m in ATTRIBUTE.finditer(text):
            pool.setdefault(m.group(1), set()).add(m.group(2))
    return {k: sorted(v) for k, v in sorted(pool.items())}


def crashed(proc):
    return proc.returncode < 0 or "PLEASE submit a bug report" in \
        proc.stderr or "Assertion" in proc.stderr


def save(out, name, text):
    path = os.path.join(out, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amk-opt", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", default=".")
    parser.add_argument("--stop-at", default="gpu",
                        help="how far --amk-lower goes (binary runs ptxas)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds per mutant before it is a finding")
    parser.add_argument("--form-graph", action="store_true",
                        help="run --amk-form-graph first (the pipeline's "
                             "form-graph=true)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print each mutant's digest and edits, run nothing")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    # Split-input-file tests hold many modules: mutate one at a time, without
    # its comments (edits there would be wasted).
    sources = [COMMENT.sub("", piece) for f in args.files
               for piece in open(f, encoding="utf-8").read().split("// -----")]
    sources = [piece for piece in sources if piece.strip()]
    pool = attribute_pool(sources)
    crashes = timeouts = 0
    command = [args.amk_opt, "-", "-o", os.devnull,
               "--allow-unregistered-dialect",
               f"--amk-pipeline=target=h200 stop-at={args.stop_at}"
               + (" form-graph=true" if args.form_graph else "")]
    for n in range(args.count):
        text, kinds = mutate(rng.choice(sources), rng, pool)
        if args.dry_run:
            digest = hashlib.sha1(text.encode()).hexdigest()[:16]
            print(f"mutant {n} {digest} {' '.join(kinds)}")
            continue
        try:
            proc = subprocess.run(command, input=text, capture_output=True,
                                  text=True, encoding="utf-8",
                                  errors="replace", timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timeouts += 1
            path = save(args.out, f"timeout-{args.seed}-{n}.mlir", text)
            print(f"TIMEOUT (> {args.timeout:g} s): {path}")
            continue
        if crashed(proc):
            crashes += 1
            path = save(args.out, f"crash-{args.seed}-{n}.mlir", text)
            print(f"CRASH ({proc.returncode}): {path}\n{proc.stderr[-1500:]}")
    print(f"fuzz: {args.count} mutants, {crashes} crash(es), "
          f"{timeouts} timeout(s)")
    sys.exit(1 if crashes or timeouts else 0)


if __name__ == "__main__":
    main()
