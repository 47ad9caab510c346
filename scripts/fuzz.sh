#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each.
# Usage: scripts/fuzz.sh [DURATION]   (default 10s per target)
#
# A target that fails is run once more: a failure that leaves a new input
# under testdata/fuzz/ is a finding and fails at once; one that does not
# (a worker the machine starved past the fuzzer's own hang timeout) must
# happen twice in a row to fail the run. One failure without a new input
# is not one: the target's bare "context deadline exceeded" at the end of
# -fuzztime is a race in Go 1.26's fuzzing coordinator (the deadline of
# -fuzztime escapes as an error; golang/go#75804, fixed in Go 1.27), and
# it counts as a pass.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-10s}"
status=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    echo "fuzz $pkg $t ($time)"
    before=$( (find "$dir/testdata/fuzz/$t" -type f 2>/dev/null || true) | wc -l)
    log=$(mktemp)
    if go test -run '^$' -fuzz "^${t}\$" -fuzztime "$time" "$pkg" >"$log" 2>&1; then
      tail -n 2 "$log"; rm -f "$log"; continue
    fi
    cat "$log"
    # The race's whole report: the target's FAIL line, then the bare error.
    race=false
    if grep -A1 "^--- FAIL: ${t} (" "$log" | tail -n 1 | grep -qx "    context deadline exceeded"; then race=true; fi
    rm -f "$log"
    after=$( (find "$dir/testdata/fuzz/$t" -type f 2>/dev/null || true) | wc -l)
    if [ "$after" -gt "$before" ]; then
      echo "FAIL: $t found a failing input (see $dir/testdata/fuzz/$t)"; status=1; continue
    fi
    if $race; then
      echo "fuzz $pkg $t: the end of -fuzztime reported as an error, with no failing input (golang/go#75804); a pass"
      continue
    fi
    echo "fuzz $pkg $t failed without a new input; running it once more"
    if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$time" "$pkg"; then status=1; fi
  done
done
exit $status
