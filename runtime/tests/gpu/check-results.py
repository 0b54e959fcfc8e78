#!/usr/bin/env python3
"""Checks amk-bench's --json output against expected statuses.

usage: check-results.py RESULTS.json NAME=STATUS[:REASON-SUBSTRING] ...

Each NAME must appear among the cases with that status, and, when given,
REASON-SUBSTRING must occur in its error, reasons or warnings. Every case must
be expected. Exits 1 on any mismatch.
"""
import json
import sys


def main():
    results = json.load(open(sys.argv[1]))
    cases = results["cases"]
    failures = []
    expected = {}
    for spec in sys.argv[2:]:
        name, want = spec.split("=", 1)
        status, _, reason = want.partition(":")
        expected.setdefault(name, []).append((status, reason))
    for case in cases:
        text = " | ".join([case.get("error", "")] + case["reasons"] +
                          case["warnings"])
        wants = expected.get(case["name"])
        if not wants:
            failures.append(f"unexpected case {case['name']}: {case['status']}")
            continue
        ok = any(case["status"] == status and reason in text
                 for status, reason in wants)
        mark = "ok  " if ok else "FAIL"
        print(f"{mark} {case['name']} {case['sizes']}: {case['status']}"
              f"{' - ' + text[:160] if text.strip(' |') else ''}")
        if not ok:
            failures.append(f"{case['name']}: got {case['status']} ({text}), "
                            f"want one of {wants}")
    seen = {case["name"] for case in cases}
    for name in expected:
        if name not in seen:
            failures.append(f"missing case {name}")
    for failure in failures:
        print("MISMATCH:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
