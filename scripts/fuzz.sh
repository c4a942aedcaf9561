#!/usr/bin/env bash
# fuzz.sh FUZZTIME: runs every native Go fuzz target of the module (each
# `func FuzzX(f *testing.F)` in a *_test.go) for FUZZTIME (a go test
# -fuzztime value: 5s, 10m, 1000x), one target after another, since go test
# fuzzes one target per run. The targets are found, not listed, so a new
# one is fuzzed without touching this script. `make test` runs it short
# (fuzz-quick), `make fuzz` long. A failing input is written by go test to
# <package>/testdata/fuzz/FuzzX/ and the run stops: fix the bug and commit
# that file, which every later `go test` replays as a regression seed.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -eq 1 ] || die "usage: fuzz.sh FUZZTIME"
cd "$scripts/.."
GO=${GO:-go}

targets=$(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
	grep -v '^./\.' | sort |
	while read -r file; do
		dir=$(dirname "$file")
		grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$dir |"
	done)
[ -n "$targets" ] || die "no fuzz targets found"
n=0
while read -r dir name; do
	log "$name ($dir) for $1"
	if ! "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$1" "$dir"; then
		die "$name failed: its input is in $dir/testdata/fuzz/$name/; commit it with the fix"
	fi
	n=$((n + 1))
done <<<"$targets"
log "$n fuzz targets, $1 each: no failures"
