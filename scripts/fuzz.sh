#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each.
# Usage: scripts/fuzz.sh [DURATION]   (default 10s per target)
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-10s}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
  for t in $targets; do
    echo "fuzz $pkg $t ($time)"
    go test -run '^$' -fuzz "^${t}\$" -fuzztime "$time" "$pkg"
  done
done
