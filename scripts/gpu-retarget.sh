#!/usr/bin/env bash
# Issue 16's retargeting check on a GPU machine: the plans AMK makes for
# several targets (`python3 -m amk.suite --retarget-study --target T --out
# DIR/T`, one subdir per target), all run here in one run (another arch's
# plan through its PTX, JIT-compiled), against the plan for this GPU:
#   scripts/gpu-retarget.sh DIR RESULT_DIR
# Prints per case each target's time over this GPU's plan's (above 1: the
# own plan is faster) and the geomean; exits 1 on a failed case.
set -uo pipefail
dir="$1"; results="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
own=$(PYTHONPATH="$root/python" python3 -c \
  "import sys, amk.target as t; print(t.preset_for(sys.argv[1]) or '')" "$name")
[[ -n "$own" && -d "$dir/$own" ]] || { echo "no plans for '$name' in $dir"; exit 1; }
targets=$(cd "$dir" && ls -d */ | tr -d / | grep -vx "$own")
"$root/scripts/gpu-perf.sh" "$results" "$dir/$own" $(printf "$dir/%s " $targets)
status=$?
python3 - "$results" "$own" $targets <<'PY'
import json, math, sys
results, own, others = sys.argv[1], sys.argv[2], sys.argv[3:]
def times(target):
    cases = json.load(open(f"{results}/{target}.json"))["cases"]
    return {c["name"]: c["timing"]["amk"]["median_us"] for c in cases
            if c["status"] == "PASS" and c.get("timing")}
mine = times(own)
print(f"\n{'case':48s} {own + ' us':>10s} " +
      " ".join(f"{t:>10s}" for t in others))
ratios = {t: [] for t in others}
theirs = {t: times(t) for t in others}
for name, us in mine.items():
    row = []
    for t in others:
        r = theirs[t].get(name)
        row.append(f"{r / us:10.3f}" if r else f"{'-':>10s}")
        if r:
            ratios[t].append(r / us)
    print(f"{name:48s} {us:10.2f} " + " ".join(row))
print(f"{'geomean (other / own time)':59s} " + " ".join(
    f"{math.exp(sum(map(math.log, v)) / len(v)):10.3f}" if v else f"{'-':>10s}"
    for v in ratios.values()))
PY
exit $status
