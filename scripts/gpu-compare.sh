#!/usr/bin/env bash
# Times the static performance cases of two suite bundle dirs in one run on
# a GPU machine (a change against its baseline, same device, same run):
#   scripts/gpu-compare.sh OLD_DIR NEW_DIR RESULT_DIR
# Writes RESULT_DIR/old.log and new.log (the bench tables) and prints, per
# case, the old and new speed (cuBLAS time / AMK time) and the new verdict.
set -uo pipefail
old="$1"; new="$2"; results="$3"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$results"
bench=$("$root/scripts/build-runtime.sh" "$results/build.log") || exit 1
status=0
for side in old new; do
  dir=$([[ $side == old ]] && echo "$old" || echo "$new")
  manifests=$(python3 "$root/scripts/perf-manifests.py" "$dir")
  $bench --json "$results/$side.json" --iters 50 $manifests \
    >"$results/$side.log" 2>&1 || status=1
done
speeds() {
  grep -E '^[0-9]+ ' "$1" | awk '{v = "?"; for (i = 3; i <= NF; ++i)
    if ($i == "PASS" || $i == "FAIL") { v = $i; break }
    print $2, $(NF-3), v}'
}
join <(speeds "$results/old.log" | sort) <(speeds "$results/new.log" | sort) |
  awk '{printf "%-40s %6s -> %6s %s\n", $1, $2, $4, $5}'
exit $status
