#!/bin/sh
# An exec audit streams its findings and keeps its reports whatever stops it.
# usage: check_interrupt.sh CUCKOO_AUDIT BROKEN_FILTER... (a command line whose audit
# finds a C1 failure within a few seconds and then runs for many more)
#
# 1. SIGTERM (what a CI job's timeout sends; SIGINT alike, but a shell starts background
#    jobs with SIGINT ignored, which the auditor respects) after the first finding is
#    printed: the auditor ends by SIGTERM (status 143),
#    its report.json says it was stopped and holds the C1 finding (its counterexample
#    file exists), no claim it did not finish is PASS, and no subject process is left.
# 2. SIGKILL after the first finding is printed: nothing can run then, yet report.json
#    (written as the finding was made) holds the finding and says the audit was in
#    progress.
# Exit 0 when both hold, 1 otherwise.
set -u
exe=$1
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-interrupt.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*" >&2
  for f in "$work"/*.err; do echo "--- $f" >&2; tail -n 20 "$f" >&2; done
  exit 1
}

# run_and_signal NAME SIGNAL COMMAND...: starts the audit of COMMAND in the background,
# writing to $work/NAME, waits (at most 120 s) for the
# first "FAIL C1" line on its stderr, then sends SIGNAL to it and waits for it.
# Sets $status to its exit status.
run_and_signal() {
  name=$1
  sig=$2
  shift 2
  "$exe" exec --out "$work/$name" -- "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pid=$!
  i=0
  while ! grep -q "requests\] FAIL C1: " "$work/$name.err" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 1200 ] || ! kill -0 $pid 2>/dev/null; then
      kill -KILL $pid 2>/dev/null
      fail "$name: no 'FAIL C1' line on stderr while the audit ran"
    fi
    sleep 0.1
  done
  kill -"$sig" $pid
  wait $pid
  status=$?
}
run_and_signal int TERM "$@"
[ "$status" -eq 143 ] || fail "after SIGTERM: exit status $status, expected 143 (ended by SIGTERM)"
grep -q '"stopped": "interrupted by SIGTERM after' "$work/int/report.json" ||
  fail "after SIGTERM: report.json does not say it was interrupted"
grep -q '"claim": "C1"' "$work/int/report.json" || fail "after SIGTERM: no C1 result in report.json"
grep -q "^C1 .* FAIL " "$work/int.out" || fail "after SIGTERM: the summary has no C1 FAIL"
if grep -E "^C(2|3|6) .* PASS " "$work/int.out" >/dev/null; then
  # Those claims run after C1; interrupted right after C1's finding they cannot be done.
  fail "after SIGTERM: a claim that ran after the interrupt is PASS"
fi
grep -q "STOPPED EARLY: interrupted by SIGTERM" "$work/int.out" || fail "after SIGTERM: no STOPPED EARLY line"
ls "$work"/int/counterexamples/C1-*.trace >/dev/null 2>&1 || fail "after SIGTERM: no C1 counterexample file"
sleep 0.5
for p in $(pgrep -f -- "$work/int" 2>/dev/null); do
  [ "$p" = "$$" ] || fail "after SIGTERM: process $p of the audit is still running"
done

run_and_signal kill KILL "$@"
[ "$status" -eq 137 ] || fail "after SIGKILL: exit status $status, expected 137"
grep -q '"stopped": "in progress' "$work/kill/report.json" ||
  fail "after SIGKILL: report.json was not written as the finding was made"
grep -q '"claim": "C1"' "$work/kill/report.json" || fail "after SIGKILL: report.json has no C1 finding"
grep -q '"verdict": "FAIL"' "$work/kill/report.json" || fail "after SIGKILL: report.json has no FAIL"
echo "interrupt and kill both left the finding in the reports"
