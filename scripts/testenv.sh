#!/usr/bin/env bash
# testenv.sh CMD...: runs CMD (for `make test`, go test) with a throwaway Redis
# and ClickHouse on free loopback ports, passed to the tests as
# GATEWAY_TEST_REDIS_URL and GATEWAY_TEST_CLICKHOUSE_ADDR (internal/testenv).
# A server whose variable is already set is used as it is, not started.
# Both servers and their data (.data/test-XXXX) are gone when CMD ends;
# the exit status is CMD's.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -gt 0 ] || die "usage: testenv.sh CMD..."

mkdir -p "$scripts/../.data"
tmp=$(mktemp -d "$scripts/../.data/test-XXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	"$scripts/redis.sh" stop "$tmp/redis" || true
	"$scripts/clickhouse.sh" stop "$tmp/clickhouse" || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Ports are chosen up front, one after the other, so the two parallel starts
# below cannot pick the same one.
starts=()
if [ -z "${GATEWAY_TEST_REDIS_URL:-}" ]; then
	redis_port=$(free_port)
	"$scripts/redis.sh" start "$tmp/redis" "$redis_port" &
	starts+=($!)
	export GATEWAY_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
fi
if [ -z "${GATEWAY_TEST_CLICKHOUSE_ADDR:-}" ]; then
	ch_port=$(free_port "${redis_port:-}")
	"$scripts/clickhouse.sh" start "$tmp/clickhouse" "$ch_port" &
	starts+=($!)
	export GATEWAY_TEST_CLICKHOUSE_ADDR="127.0.0.1:$ch_port"
fi
# Wait for every start, even after one failed, so that cleanup finds both
# pidfiles and no server outlives us.
failed=0
for pid in "${starts[@]}"; do
	wait "$pid" || failed=1
done
[ "$failed" -eq 0 ] || die "could not start the test servers (see above)"
log "Redis at $GATEWAY_TEST_REDIS_URL, ClickHouse at $GATEWAY_TEST_CLICKHOUSE_ADDR"

status=0
"$@" || status=$?
exit "$status"
