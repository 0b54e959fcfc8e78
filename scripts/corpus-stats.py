#!/usr/bin/env python3
"""Counts the harness's planted-bug corpus: `// Bug:` and `// Twin:` kernels
and the check ids the bugs are caught with (expected-error/-warning lines).

    python3 scripts/corpus-stats.py test/Harness
"""
import collections
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "test/Harness")
kinds = collections.Counter()
ids = collections.Counter()
for path in sorted(root.glob("*.mlir")):
    for split in path.read_text().split("// -----"):
        kind = re.search(r"^//\s*(Bug|Twin):", split, re.M)
        if not kind:
            continue
        kinds[kind.group(1)] += 1
        if kind.group(1) == "Bug":
            found = set(re.findall(r"expected-(?:error|warning)[^{]*\{\{\[(AMK-[A-Z-]+)\]",
                                   split))
            for check in found:
                ids[check] += 1
print(f"bugs {kinds['Bug']} twins {kinds['Twin']} classes {len(ids)}")
for check, n in sorted(ids.items()):
    print(f"{check} {n}")
