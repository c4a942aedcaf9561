#!/usr/bin/env bash
# noskip.sh CMD...: runs CMD (a `go test -v` of `make test-cluster`), passing
# its output through, and under CI=true fails when any test skipped: the
# cluster suite exists to run, and a skip there is a test that passed on
# nothing. The exit status is otherwise CMD's.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -gt 0 ] || die "usage: noskip.sh CMD..."

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$@" 2>&1 | tee "$out" || status=$?
[ "$status" -eq 0 ] || exit "$status"
if [ "${CI:-}" = true ] && grep -q -- '--- SKIP' "$out"; then
	grep -A2 -- '--- SKIP' "$out" >&2
	die "tests skipped under CI=true (above)"
fi
