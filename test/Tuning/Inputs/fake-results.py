"""Writes amk-bench --json style results for an amk-tune build directory,
with outcomes chosen per rung, so the ingest/reflect/plan loop is tested
without a GPU. argv: BUILD_DIR, then rung=outcome pairs; outcome is
pass:<us>, edge (wrong only on partial tiles), oor (out of resources at
launch), arch (does not load: another arch), spill:<us> (passes, but
spills) or skip (no result)."""
import json
import os
import sys

build = json.load(open(os.path.join(sys.argv[1], "build.json")))
outcomes = dict(arg.split("=", 1) for arg in sys.argv[2:])
cases = []
for c in build["candidates"]:
    what = outcomes.get(str(c["rung"]), "pass:100")
    if what == "skip" or c["status"] != "ok":
        continue
    kind, _, us = what.partition(":")
    case = {"manifest": "/gpu/copy/" + c["manifest"], "name": "x",
            "status": "PASS", "not_run": False,
            "kernel": {"local_bytes_per_thread": 0},
            "trace": {"stage": "done", "class": "ok", "detail": "",
                      "flags": []}}
    if kind in ("pass", "spill"):
        case["timing"] = {"amk": {"median_us": float(us)},
                          "cublas": {"median_us": 50.0},
                          "peak_tflops": 67.0}
        if kind == "spill":
            case["kernel"]["local_bytes_per_thread"] = 64
            case["trace"]["flags"] = ["spills"]
    elif kind == "edge":
        case["status"] = "FAIL"
        case["trace"] = {"stage": "check", "class": "mismatch-edge",
                         "detail": "all 999 wrong elements lie in the last, "
                                   "partial tile row or column",
                         "flags": []}
    elif kind == "arch":
        case["status"] = "ERROR"
        case["error"] = "cannot load the cubin: the bundle is for sm_90a, the GPU is sm_80"
        case["trace"] = {"stage": "load", "class": "load-error",
                         "detail": case["error"], "flags": []}
    elif kind == "oor":
        case["status"] = "ERROR"
        case["error"] = "launch failed: CUDA_ERROR_OUT_OF_RESOURCES"
        case["trace"] = {"stage": "launch", "class": "out-of-resources",
                         "detail": case["error"], "flags": []}
    cases.append(case)
json.dump({"tool": "amk-bench", "format": 1, "cases": cases}, sys.stdout,
          indent=1)
