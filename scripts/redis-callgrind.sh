#!/usr/bin/env bash
# redis-callgrind.sh PKG BENCH N: Redis's instructions during one benchmark
# run, counted by valgrind's callgrind (to cut Redis's CPU per create). CPU time on a busy
# machine drifts by tens of percent between runs; instruction counts do
# not, so an A/B of a Redis script can be decided there. Starts a Redis as
# scripts/redis.sh configures it (AOF, appendfsync always) under callgrind
# on a free loopback port, runs `go test -bench BENCH -benchtime Nx` of PKG
# against it, and prints the instructions Redis executed meanwhile (the
# benchmark's own setup included: compare runs of the same N, or take the
# difference of two N). About 50 times slower than Redis alone.
#
#   scripts/redis-callgrind.sh ./web/api 'CreateOrderSelect$' 1500
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -eq 3 ] || die "usage: redis-callgrind.sh PKG BENCH N"
command -v valgrind >/dev/null || die "valgrind is not installed"

mkdir -p "$scripts/../.data"
tmp=$(mktemp -d "$scripts/../.data/callgrind-XXXX")
port=$(free_port)
"$scripts/redis.sh" conf "$tmp" "$port" # as the tests and the benches configure it
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" redis-server "$tmp/redis.conf" --daemonize no >"$tmp/valgrind.log" 2>&1 &
vg=$!
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	kill "$vg" 2>/dev/null || true
	wait "$vg" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 600); do
	[ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
	sleep 0.1
done
go test -c -o "$tmp/bench.test" "$1"
callgrind_control -z "$vg" >/dev/null 2>&1
GATEWAY_TEST_REDIS_URL="redis://127.0.0.1:$port/0" "$tmp/bench.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3x" |
	grep '^Benchmark' || die "the benchmark failed"
callgrind_control -d "$vg" >/dev/null 2>&1
dump=$(find "$tmp" -name 'cg.out.*' | sort | tail -1)
echo "Redis instructions: $(awk '/^(summary|totals):/ {print $2; exit}' "$dump")"
