#!/usr/bin/env bash
# redis-create-floor.sh [N]: Redis's CPU per call of command/scripts/create.lua
# (Redis's share of the CPU per create), with no gateway in front: redis-benchmark at 64 connections (CONNS)
# sends N calls (default 200000) of the script with the fields of a
# typical order, then with the order's create-time fields packed into one
# value, then with the id and version alone, each with a clientOrderId,
# against a Redis started by scripts/redis.sh (AOF, appendfsync always). CPU is Redis's user + system time over the run, read from
# /proc. The last row is the floor of this script's design: the same 8
# Redis calls and the fsync, with nothing to store. Runs each twice,
# alternating, since the machine drifts. PIPELINE=16 sends 16 calls per round
# trip (default 1). The last row of each round is the create's rate-limit
# script (platform/scripts/ratelimit.lua), leasing one request's worth. CONNS sets the connections
# (default 64): CONNS=8 PIPELINE=4 is the shape the gateway's create lanes
# give Redis under gwbench's 64 clients (8 lanes of about 4 creates each),
# where -c 64 -P 16 keeps 1,024 calls in flight, more than 64 clients can.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
n=${1:-200000}
command -v redis-benchmark >/dev/null || die "redis-benchmark is not installed (Debian: redis-tools)"

mkdir -p "$scripts/../.data"
tmp=$(mktemp -d "$scripts/../.data/create-floor-XXXX")
port=$(free_port)
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	"$scripts/redis.sh" stop "$tmp" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
"$scripts/redis.sh" start "$tmp" "$port" # as the tests and the benches configure it
pid=$(cat "$tmp/redis.pid")
sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$scripts/../command/scripts/create.lua")")
rlsha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$scripts/../platform/scripts/ratelimit.lua")")
pipeline=${PIPELINE:-1}
conns=${CONNS:-64}
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)

id=01JABCDEFGH__rand_int__
keys=(7 "o:{01}:__rand_int__" "ev:{01}" "n:{01}:app" "exp:{01}:1" "stc:{01}:app" "coids:{01}:app" "coid:{01}:__rand_int__"
	"o:{01}:" "$id" created 1700000000000 0 "c-__rand_int__" x)
full=(id "$id" appid app_1234567890ab sb 1 coid "c-__rand_int__" amt 1000 cur USD m select st 0 desc Order-12345
	nu https://shop.example/hook ru https://shop.example/return next method purl https://pay.example/x/12345 ip 127.0.0.1 v 1)
packed=(id "$id" st 0 v 1 o "app_1234567890ab|1|c-__rand_int__|1000|USD|select|Order-12345|https://shop.example/hook|https://shop.example/return|method|https://pay.example/x/12345|127.0.0.1")
minimal=(id "$id" v 1)

run() {
	local name=$1 before after rps
	shift
	redis-cli -p "$port" FLUSHALL >/dev/null
	before=$(ticks)
	rps=$(redis-benchmark -p "$port" -c "$conns" -P "$pipeline" -n "$n" -r 100000000 -q EVALSHA "$@" 2>&1 |
		tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1)
	after=$(ticks)
	echo "$name (-c $conns -P $pipeline): Redis CPU $(((after - before) * 1000000 / hz / n)) µs per call; $rps"
}
for _ in 1 2; do
	run "create.lua, fields as today (13 and the id)" "$sha" "${keys[@]}" "${full[@]}"
	run "create.lua, create-time fields packed in one" "$sha" "${keys[@]}" "${packed[@]}"
	run "create.lua, id and version alone (the floor)" "$sha" "${keys[@]}" "${minimal[@]}"
	run "ratelimit.lua, one request leased" "$rlsha" 1 "rl:{m}:create:app" 1 100000000000 1
done
