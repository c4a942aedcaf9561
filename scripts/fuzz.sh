#!/usr/bin/env bash
# fuzz.sh FUZZTIME: runs every native Go fuzz target of the module (each
# `func FuzzX(f *testing.F)` in a *_test.go) for FUZZTIME (a go test
# -fuzztime value: 5s, 10m, 1000x), one target after another, since a test
# binary fuzzes one target per run. The targets are found, not listed, so a
# new one is fuzzed without touching this script. `make test` runs it short
# (fuzz-quick), `make fuzz` long. A failing input is written to
# <package>/testdata/fuzz/FuzzX/ and the run stops: fix the bug and commit
# that file, which every later `go test` replays as a regression seed.
#
# Each package's fuzzing test binary is built once (go test -c -fuzz, two
# packages at a time) and then run once per target, as `go test -fuzz`
# runs it: from the package's folder (its testdata/), with go test's
# corpus cache (GOCACHE/fuzz/<import path>). One `go test -fuzz` per target
# would redo the build's checks for every target of a package, which at 2 s
# a target took about as long as the fuzzing.
#
# `fuzz.sh build` only builds the binaries, into FUZZ_BIN (a folder the
# caller owns); a later `fuzz.sh FUZZTIME` with the same FUZZ_BIN runs them
# without building again. `make test` builds them while chaos-quick runs,
# whose holds leave the CPU half idle, and fuzzes after it.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -eq 1 ] || die "usage: fuzz.sh FUZZTIME|build"
cd "$scripts/.."
GO=${GO:-go}

targets=$(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
	grep -v '^./\.' | sort |
	while read -r file; do
		dir=$(dirname "$file")
		grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$dir |"
	done)
[ -n "$targets" ] || die "no fuzz targets found"

if [ -n "${FUZZ_BIN:-}" ]; then
	bin=$FUZZ_BIN
	mkdir -p "$bin"
else
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' EXIT
fi
# A package's binary is $bin/<its folder with / as _>.test.
binary() { local d=${1#./}; echo "$bin/${d//\//_}.test"; }
export GO
export -f binary
export bin
if [ "$1" = build ] || [ ! -e "$bin/built" ]; then
	log "building the fuzzing test binaries"
	if ! cut -d' ' -f1 <<<"$targets" | sort -u |
		xargs -P 2 -I{} bash -c '"$GO" test -c -fuzz . -o "$(binary "$1")" "$1"' _ {}; then
		die "could not build the fuzzing test binaries"
	fi
	touch "$bin/built"
fi
if [ "$1" = build ]; then
	log "fuzzing test binaries built in $bin"
	exit 0
fi
cache="$("$GO" env GOCACHE)/fuzz/$("$GO" list -m)"
n=0
while read -r dir name; do
	log "$name ($dir) for $1"
	if ! (cd "$dir" && "$(binary "$dir")" -test.paniconexit0 -test.fuzzcachedir "$cache/${dir#./}" \
		-test.timeout 10m -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$1"); then
		die "$name failed: its input is in $dir/testdata/fuzz/$name/; commit it with the fix"
	fi
	n=$((n + 1))
done <<<"$targets"
log "$n fuzz targets, $1 each: no failures"
