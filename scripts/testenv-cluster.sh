#!/usr/bin/env bash
# testenv-cluster.sh CMD...: runs CMD (`make test-cluster`'s go test) with a
# throwaway 3-master Redis Cluster with a replica each (scripts/redis-cluster.sh)
# and a 2-shard ClickHouse cluster (scripts/clickhouse-cluster.sh) on free
# loopback ports, passed to the tests as GATEWAY_TEST_REDIS_CLUSTER_URL,
# GATEWAY_TEST_REDIS_CLUSTER_DIR and GATEWAY_TEST_CLICKHOUSE_CLUSTER
# (internal/testenv), and to every gateway the tests start as
# GATEWAY_REDIS_CLUSTER=true and GATEWAY_CLICKHOUSE_CLUSTER. Everything is
# gone when CMD ends; the exit status is CMD's.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -gt 0 ] || die "usage: testenv-cluster.sh CMD..."

mkdir -p "$scripts/../.data"
tmp=$(mktemp -d "$scripts/../.data/test-cluster-XXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	"$scripts/redis-cluster.sh" stop "$tmp/redis" || true
	if [ -x "$scripts/clickhouse-cluster.sh" ]; then "$scripts/clickhouse-cluster.sh" stop "$tmp/clickhouse" || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Every port and its cluster bus (port+10000) must be free.
ports=()
while [ ${#ports[@]} -lt 6 ]; do
	ports+=("$(free_cluster_port "${ports[@]}")")
done
seed=$("$scripts/redis-cluster.sh" start "$tmp/redis" "${ports[@]}")
export GATEWAY_TEST_REDIS_CLUSTER_URL="$seed" GATEWAY_TEST_REDIS_CLUSTER_DIR="$tmp/redis"
export GATEWAY_REDIS_CLUSTER=true GATEWAY_TEST_REQUIRE_CLUSTER=true
log "Redis Cluster at $seed"

taken=()
for p in "${ports[@]}"; do taken+=("$p" $((p + 10000))); done
ch1=$(free_port "${taken[@]}")
ch2=$(free_port "${taken[@]}" "$ch1")
"$scripts/clickhouse-cluster.sh" start "$tmp/clickhouse" gateway "$ch1" "$ch2" >/dev/null
export GATEWAY_TEST_CLICKHOUSE_CLUSTER="gateway@127.0.0.1:$ch1,127.0.0.1:$ch2"
export GATEWAY_CLICKHOUSE_CLUSTER=gateway
log "ClickHouse cluster gateway at 127.0.0.1:$ch1, 127.0.0.1:$ch2"

status=0
"$@" || status=$?
exit "$status"
