#!/usr/bin/env bash
# Runs the planted-bug corpus under compute-sanitizer on a GPU machine (CUDA
# toolkit and driver, no MLIR needed):
#
#   scripts/gpu-corpus.sh CUBIN_DIR OUT_DIR
#
# CUBIN_DIR is what scripts/corpus-cubins.py wrote on a machine with MLIR
# (cubins, manifest.txt, manifest.json). Builds runtime/tools/amk-launch with
# the runtime (scripts/build-runtime.sh; falls back to CUBIN_DIR/amk-launch if
# that fails), then runs every case:
#
#   compute-sanitizer --tool TOOL --error-exitcode 3 amk-launch manifest.txt I
#
# (memcheck with --padding 1024 so that an access just past one allocation
# cannot land in the next; racecheck with --racecheck-report all). A case's
# sanitizer verdict is `error` (exit 3: the tool reported), `clean` (exit 0),
# `timeout`, or `failed` (any other exit: the launch or the tool broke). A
# case PASSes when a Bug gets `error` and a Twin gets `clean` (a directive's
# expect= may override; expect=hang wants `timeout`). Tool `run` launches
# without a sanitizer (exit 0: `clean`). Prints the table, writes OUT_DIR/results.json,
# OUT_DIR/table.txt, OUT_DIR/sanitizer.log (every log, concatenated) and
# OUT_DIR/logs/I.log; exits 1 if any case fails.
#
# Environment: JOBS (parallel sanitizer runs, default 8), CASE_TIMEOUT
# (seconds per run, default 60), NVCC_ARCH (default sm_90), NVCC (the CUDA
# compiler of the runtime build), SANITIZER.
set -uo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 CUBIN_DIR OUT_DIR" >&2
  exit 2
fi
cubins="$(cd "$1" && pwd)" || exit 2
mkdir -p "$2" && out="$(cd "$2" && pwd)" || exit 2
root="$(cd "$(dirname "$0")/.." && pwd)"
manifest="$cubins/manifest.txt"
[[ -f "$manifest" ]] || { echo "no $manifest" >&2; exit 2; }
jobs="${JOBS:-8}"
case_timeout="${CASE_TIMEOUT:-60}"
sanitizer="${SANITIZER:-$(command -v compute-sanitizer ||
  echo /usr/local/cuda/bin/compute-sanitizer)}"

mkdir -p "$out/logs"
rm -f "$out"/logs/*.log
arch="${NVCC_ARCH:-sm_90}"
echo "== build amk-launch (runtime/, $arch)"
if ! launcher=$(AMK_CUDA_ARCHITECTURES="${arch#sm_}" \
    "$root/scripts/build-runtime.sh" "$out/build.log" amk-launch); then
  if [[ -x "$cubins/amk-launch" ]]; then
    echo "the runtime build failed; using the prebuilt $cubins/amk-launch"
    launcher="$cubins/amk-launch"
  else
    exit 1
  fi
fi
count=$("$launcher" "$manifest" --count) || { echo "cannot read $manifest"; exit 1; }
"$sanitizer" --version 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
echo "== $count case(s), $jobs at a time, ${case_timeout}s each"

run_case() {
  local i="$1" tool opts log="$out/logs/$1.log"
  tool=$(awk -v i="$i" '$1=="case"{c=($2==i)} c&&$1=="tool"{print $2; exit}' \
    "$manifest")
  case "$tool" in
    memcheck) opts=(--padding 1024) ;;
    racecheck) opts=(--racecheck-report all) ;;
    *) opts=() ;;
  esac
  local start=$SECONDS
  if [[ "$tool" == run ]]; then
    # No sanitizer: the launch alone (a deadlock shows as the timeout).
    timeout -k 5 "$case_timeout" "$launcher" "$manifest" "$i" >"$log" 2>&1
  else
    timeout -k 5 "$case_timeout" "$sanitizer" --tool "$tool" \
      --error-exitcode 3 --show-backtrace device "${opts[@]}" "$launcher" \
      "$manifest" "$i" >"$log" 2>&1
  fi
  local rc=$?
  printf '%s\t%s\t%s\n' "$i" "$rc" "$((SECONDS - start))" >"$log.rc"
}
export -f run_case
export out manifest launcher sanitizer case_timeout
seq 0 $((count - 1)) | xargs -P "$jobs" -I{} bash -c 'run_case {}'

: >"$out/sanitizer.log"
for ((i = 0; i < count; i++)); do
  { echo "######## case $i"; cat "$out/logs/$i.log"; echo; } >>"$out/sanitizer.log"
done

python3 - "$cubins/manifest.json" "$out" "$count" <<'PY'
import json, os, re, sys
manifest, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
cases = json.load(open(manifest))["cases"]
rows, failed = [], 0
for c in cases[:count]:
    i = c["id"]
    log = open(os.path.join(out, "logs", f"{i}.log"), errors="replace").read()
    try:
        _, rc, secs = open(os.path.join(out, "logs", f"{i}.log.rc")).read().split()
        rc, secs = int(rc), int(secs)
    except (OSError, ValueError):
        rc, secs = -1, 0
    if rc == 3:
        verdict = "error"
    elif rc == 0:
        verdict = "clean"
    elif rc in (124, 137):
        verdict = "timeout"
    else:
        verdict = "failed"
    summary = re.findall(r"(?:ERROR|RACECHECK) SUMMARY: [^\n]*", log)
    # The first finding the tool printed (its headline line).
    first = ""
    for line in log.splitlines():
        m = re.match(r"=+ ((?:Invalid|Barrier|Error|Race|Warning|Uninitialized"
                     r"|Misaligned|Out of|Divergent|Program hit|Malformed)"
                     r"[^\n]*)", line)
        if m:
            first = m.group(1).strip()
            break
    kernel_status = ("completed" if "kernel: completed" in log else
                     "failed" if re.search(r"(kernel|launch): FAILED", log)
                     else "not run")
    want = c["expect"]
    ok = verdict == {"error": "error", "clean": "clean",
                     "hang": "timeout"}[want]
    failed += not ok
    rows.append({"id": i, "name": c["name"], "file": c["file"],
                 "split": c["split"], "kernel": c["kernel"],
                 "kind": c["kind"], "tool": c["tool"], "expect": want,
                 "grid": c["grid"], "block": c["block"], "smem": c["smem"],
                 "args": c["args"], "exit_code": rc, "seconds": secs,
                 "verdict": verdict, "kernel_status": kernel_status,
                 "summary": summary, "first_finding": first,
                 "result": "PASS" if ok else "FAIL"})
w = max([len(r["name"]) for r in rows] + [4])
lines = [f"{'#':>3}  {'case':<{w}}  {'kind':<4}  {'tool':<9}  "
         f"{'sanitizer':<9}  {'result':<6}  finding"]
for r in rows:
    lines.append(f"{r['id']:>3}  {r['name']:<{w}}  {r['kind']:<4}  "
                 f"{r['tool']:<9}  {r['verdict']:<9}  {r['result']:<6}  "
                 f"{r['first_finding'][:90]}")
npass = sum(r["result"] == "PASS" for r in rows)
lines.append(f"{npass}/{len(rows)} PASS"
             + (f", {failed} FAIL" if failed else ""))
table = "\n".join(lines)
print(table)
open(os.path.join(out, "table.txt"), "w").write(table + "\n")
json.dump({"cases": rows, "passed": npass, "failed": failed},
          open(os.path.join(out, "results.json"), "w"), indent=1)
sys.exit(1 if failed else 0)
PY
exit $?
