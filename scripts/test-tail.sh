#!/usr/bin/env bash
# test-tail.sh FUZZTIME: the end of `make test`, chaos-quick and fuzz-quick
# side by side: the fuzzing test binaries are built and then run while the
# fault suite runs. The fault suite mostly waits (its holds, restarts and
# settling leave the CPU half idle), its floors are shares of the same
# run's baseline, and it passed with the builds beside it; run after it,
# the fuzzing alone was half a minute of a ten-minute budget.
# Either failing fails the run.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -eq 1 ] || die "usage: test-tail.sh FUZZTIME"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
{ FUZZ_BIN="$bin" "$scripts/fuzz.sh" build && FUZZ_BIN="$bin" "$scripts/fuzz.sh" "$1"; } >"$bin/fuzz.log" 2>&1 &
fuzz=$!
chaos=0
"$scripts/chaos.sh" quick || chaos=$?
fuzzed=0
wait "$fuzz" || fuzzed=$?
cat "$bin/fuzz.log"
[ "$chaos" -eq 0 ] || die "chaos-quick failed"
[ "$fuzzed" -eq 0 ] || die "fuzz-quick failed (its log is above)"
