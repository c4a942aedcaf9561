#!/usr/bin/env bash
# test-tail.sh FUZZTIME: the end of `make test`, chaos-quick and then
# fuzz-quick, with the fuzzing test binaries built while chaos-quick runs.
# The fault suite mostly waits (its holds, restarts and settling leave the
# CPU half idle) and the instrumented builds are most of fuzz-quick's time,
# so doing them side by side takes most of that time off `make test`.
# Either failing fails the run; the fuzzing starts only after both passed.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -eq 1 ] || die "usage: test-tail.sh FUZZTIME"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
FUZZ_BIN="$bin" "$scripts/fuzz.sh" build >"$bin/build.log" 2>&1 &
build=$!
chaos=0
"$scripts/chaos.sh" quick || chaos=$?
built=0
wait "$build" || built=$?
cat "$bin/build.log"
[ "$chaos" -eq 0 ] || die "chaos-quick failed"
[ "$built" -eq 0 ] || die "could not build the fuzzing test binaries"
FUZZ_BIN="$bin" "$scripts/fuzz.sh" "$1"
