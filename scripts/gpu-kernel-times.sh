#!/usr/bin/env bash
# Per-kernel device times of bundles against cuBLAS under Nsight Compute, on
# a GPU machine (no MLIR needed):
#   scripts/gpu-kernel-times.sh RESULT_FILE MANIFEST...
# Runs amk-bench once (--iters 1) under ncu and prints, for every kernel it
# launched (AMK's, cuBLAS's, memsets and the L2 flushes), its duration and
# DRAM traffic: what the launch gaps and the split-K reductions add to a
# CUDA-event time shows as the difference.
set -uo pipefail
result="$1"; shift
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$(dirname "$result")"
bench=$("$root/scripts/build-runtime.sh" "$result.build.log") || exit 1
ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  "$bench" --iters 1 --warmup 1 "$@" >"$result.csv" 2>"$result.err"
python3 - "$result.csv" <<'PY' | tee "$result"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, rows = rows[0], rows[1:]
col = {n: i for i, n in enumerate(head)}
kernels = {}
for r in rows:
    key = (r[col["ID"]], r[col["Kernel Name"]][:70])
    kernels.setdefault(key, {})[r[col["Metric Name"]]] = (r[col["Metric Value"]], r[col["Metric Unit"]])
for (i, name), m in kernels.items():
    t, unit = m.get("gpu__time_duration.sum", ("nan", ""))
    t = float(t.replace(",", "")) / (1000.0 if unit == "nsecond" else 1.0)
    rd = m.get("dram__bytes_read.sum", ("0", ""))
    print(f"{i:>4} {name:70s} {t:9.2f} us  read {rd[0]} {rd[1]}")
PY
