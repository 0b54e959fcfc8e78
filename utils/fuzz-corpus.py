#!/usr/bin/env python3
"""fuzz-corpus.py - the seed corpus of amk-fuzz, from the lit tests' inputs.

Every *.mlir file under the given paths (default: the repository's test/ and
examples/; `Inputs` directories included, `Output` skipped) is split at its
`// -----` lines (as -split-input-file does) and each piece, without its
full-line `//` comments (RUN, CHECK, COM, expected-* lines: they only cost
the fuzzer time), becomes one corpus file named after its origin:
`<path with / as _>-<piece>.mlir`. Empty pieces and duplicates are dropped.

With --every N only every N-th of those inputs is written (a smaller seed
set for a short fuzzing run that should spend its time fuzzing).

Usage: fuzz-corpus.py --out DIR [--every N] [PATH...]
Prints "fuzz-corpus: N inputs from M files" and exits 0 (1 if none).
"""

import argparse
import hashlib
import os
import re
import sys

SPLIT_RE = re.compile(r"^\s*// -----.*$", re.M)
COMMENT_RE = re.compile(r"^\s*//.*$")
SKIP_DIRS = {"Output"}


def collect(paths):
    """The *.mlir files under `paths`, sorted."""
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith(".mlir")]
    return files


def pieces(text):
    """The modules of one file, without full-line comments."""
    for piece in SPLIT_RE.split(text):
        lines = [l for l in piece.splitlines() if not COMMENT_RE.match(l)]
        body = "\n".join(lines).strip()
        if body:
            yield body + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, os.pardir))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True, help="corpus directory")
    parser.add_argument("--every", type=int, default=1,
                        help="write only every N-th input (default: all)")
    parser.add_argument("paths", nargs="*",
                        default=[os.path.join(root, "test"),
                                 os.path.join(root, "examples")])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = collect(args.paths)
    seen = set()
    count = kept = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, root)
        if rel.startswith(os.pardir):
            rel = os.path.basename(path)
        stem = re.sub(r"[^\w.-]", "_", rel[:-len(".mlir")])
        for n, body in enumerate(pieces(text)):
            digest = hashlib.sha1(body.encode()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            kept += 1
            if (kept - 1) % args.every:
                continue
            with open(os.path.join(args.out, "%s-%d.mlir" % (stem, n)),
                      "w", encoding="utf-8") as f:
                f.write(body)
            count += 1
    print("fuzz-corpus: %d inputs from %d files" % (count, len(files)))
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
