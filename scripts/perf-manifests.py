#!/usr/bin/env python3
"""Prints the manifests of a suite bundle dir's static performance cases
(what `python3 -m amk.suite` wrote to DIR/suite.json), one per line:

    scripts/perf-manifests.py DIR
"""

import json
import os
import sys

d = json.load(open(os.path.join(sys.argv[1], "suite.json")))
for c in d["cases"]:
    if c["manifest"] and c["perf"] and not c["dynamic"]:
        print(os.path.join(sys.argv[1], c["manifest"]))
