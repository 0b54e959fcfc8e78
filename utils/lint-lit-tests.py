#!/usr/bin/env python3
"""lint-lit-tests.py - find lit tests that silently test less than they seem to.

lit and FileCheck ignore what they do not recognise, so a typo in a test makes
it pass while checking nothing. For every *.mlir and *.test file this reports,
as `file:line: message`:

  (a) a directive without its colon, e.g. `// RUN amk-opt`, `// CHECK %x`,
      `// CHECK-NEXT %x`, `// CHECK-LABEL @f`, `// COM foo`, `// REQUIRES x`,
      `// UNSUPPORTED x`, `// XFAIL x`, and the same for the custom FileCheck
      prefixes that the file's RUN lines declare with --check-prefix(es);
  (b) a misspelled diagnostic directive: `expected-<word>` other than
      expected-error, expected-warning, expected-remark, expected-note, or a
      near miss of "expected" before one of those kinds (`expect-error`,
      `expeted-remark`, ...): -verify-diagnostics ignores the misspelling;
  (c) diagnostic directives (expected-error, ...) in a file none of whose RUN
      lines passes -verify-diagnostics (nothing then checks them);
  (d) FileCheck directives in a file none of whose RUN lines runs FileCheck.

Usage: lint-lit-tests.py [PATH...]   (default: the repository's test/)

Directories are scanned recursively, skipping `Inputs` directories (inputs of
other tests, not tests); files named on the command line are always linted.
Exits 1 and prints each finding if there are any, else prints
"lint-lit-tests: N files clean" and exits 0.
"""

import argparse
import difflib
import os
import re
import sys

SUFFIXES = (".mlir", ".test")
SKIP_DIRS = {"Inputs", "Output"}
LIT_KEYWORDS = ["RUN", "COM", "REQUIRES", "UNSUPPORTED", "XFAIL"]
DIAGNOSTIC_KINDS = ("error", "warning", "remark", "note")
DIAGNOSTICS = {"expected-" + kind for kind in DIAGNOSTIC_KINDS}

RUN_RE = re.compile(r"\bRUN:(.*)")
CHECK_PREFIX_RE = re.compile(r"--?check-prefix(?:es)?[= ]\s*['\"]?([\w,-]+)")
# A comment marker (//, # or ;; optional: .test files may have none) and then
# a directive word followed by a blank or the line's end instead of a colon.
MISSING_COLON_RE = r"^\s*(?://+|#+|;+)?\s*({words})(?=\s|$)"
# Hyphenated words, to find near misses of the diagnostic directives.
DIAG_RE = re.compile(r"\b([A-Za-z]+)-([a-z]+)")
VALID_DIAG_RE = re.compile(r"\bexpected-(?:error|warning|remark|note)\b")


def is_misspelled_diagnostic(head, tail):
    """Whether `head-tail` is meant as, but is not, a diagnostic directive:
    `expected-<anything else>`, or a word close to "expected" (expeted,
    expect, exected, ...) before error/warning/remark/note."""
    word = head + "-" + tail
    if word in DIAGNOSTICS:
        return False
    if head == "expected":
        return True
    head = head.lower()
    close = difflib.SequenceMatcher(None, head, "expected").ratio() >= 0.75
    return head[0] == "e" and close and tail.startswith(DIAGNOSTIC_KINDS)


def lint_file(path):
    """Returns the findings of one file as a list of "path:line: message"."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    runs = [m.group(1) for m in map(RUN_RE.search, lines) if m]
    prefixes = {"CHECK"}
    for run in runs:
        for group in CHECK_PREFIX_RE.findall(run):
            prefixes.update(p for p in group.split(",") if p)
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len,
                                                         reverse=True))
    check_words = r"(?:%s)(?:-[A-Z][A-Z0-9]*)*" % alternatives
    missing_colon = re.compile(MISSING_COLON_RE.format(
        words="|".join(LIT_KEYWORDS + [check_words])))
    check_directive = re.compile(r"(?<![\w-])%s:" % check_words)

    findings = []
    first_check = first_diag = None
    for num, line in enumerate(lines, 1):
        m = missing_colon.match(line)
        if m:
            findings.append((num, "'%s' directive without a colon is ignored"
                             % m.group(1)))
        for head, tail in DIAG_RE.findall(line):
            if is_misspelled_diagnostic(head, tail):
                findings.append((num, "misspelled diagnostic directive '%s-%s' "
                                 "is ignored" % (head, tail)))
        if first_diag is None and VALID_DIAG_RE.search(line):
            first_diag = num
        if first_check is None and check_directive.search(line):
            first_check = num
    if first_diag and not any("-verify-diagnostics" in r for r in runs):
        findings.append((first_diag, "diagnostic directives but no RUN line "
                         "passes -verify-diagnostics"))
    if first_check and not any(re.search("filecheck", r, re.I) for r in runs):
        findings.append((first_check, "FileCheck directives but no RUN line "
                         "runs FileCheck"))
    return ["%s:%d: %s" % (path, num, msg) for num, msg in sorted(findings)]


def collect(paths):
    """The test files under `paths`, sorted; `Inputs` dirs are skipped."""
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith(SUFFIXES)]
    return files


def main():
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           os.pardir, "test")
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("paths", nargs="*", default=[os.path.normpath(default)],
                        help="test files or directories (default: test/)")
    args = parser.parse_args()
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        parser.error("no such file or directory: " + ", ".join(missing))

    files = collect(args.paths)
    findings = [f for path in files for f in lint_file(path)]
    for finding in findings:
        print(finding)
    if findings:
        print("lint-lit-tests: %d finding(s) in %d files" %
              (len(findings), len(files)))
        return 1
    print("lint-lit-tests: %d files clean" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
