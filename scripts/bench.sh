#!/usr/bin/env bash
# bench.sh full|quick [GWBENCH FLAGS...]: `make bench` and `make bench-quick`.
# Starts Redis (AOF, appendfsync always) and ClickHouse on free loopback ports
# with their data under .data/bench-XXXX, builds release binaries of the
# gateway, the ceiling server and the runner (go build -trimpath), migrates,
# and runs bench/cmd/gwbench, which prints a Markdown table and writes JSON to
# bench-results/. Every server this starts is stopped on exit, the gateways
# gwbench started included (by the pids it leaves in the data folder).
#
#   full   the sizes the targets are set at: 20 s createorder phases, 1,000,000 of 5,000,000
#          orders for the listing, 500,000 queued events for the catch-up,
#          20,000 endpoint events (to 3 endpoints each) drained;
#          perf profiles when perf is installed
#   quick  under 3 minutes: 10 s / 5 s phases, 100,000 of 500,000 orders,
#          100,000 events; the console's seven phases 2 s each
#
# BENCH_GATEWAY=PATH benchmarks that gateway binary instead of building
# ./cmd/gateway: an A/B comparison of a proposed change built elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

mode=${1:-full}
[ $# -gt 0 ] && shift
case "$mode" in
full) sizes=(--label full --phase 20s --short-phase 10s --list-rows 1000000 --list-total 5000000
	--catchup-events 500000 --webhooks 20000 --webhook-rate 1000 --events 20000) ;;
quick) sizes=(--label quick --phase 10s --short-phase 5s --settle 1s --pool-rate 12000 --list-rows 100000
	--list-total 500000 --catchup-events 100000 --webhooks 5000 --webhook-rate 1000 --events 5000 --console-phase 2s) ;;
*) die "usage: bench.sh full|quick [gwbench flags...]" ;;
esac
# The full run profiles the gateway (createorder, projector catch-up,
# dispatcher backlog) with perf when the machine has it.
if [ "$mode" = full ] && command -v perf >/dev/null 2>&1; then
	sizes+=(--perf)
fi

scripts/deps.sh
mkdir -p .data bench-results
tmp=$(mktemp -d "$root/.data/bench-XXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local f pid
	for f in "$tmp"/gateway*.pid "$tmp"/ceiling.pid; do
		[ -e "$f" ] || continue
		pid=$(running_pid "$f" "$tmp/bin/") && stop_pid "$pid" "${f##*/}"
	done
	scripts/redis.sh stop "$tmp/redis" || true
	scripts/redis-cluster.sh stop "$tmp/redis-cluster" || true
	scripts/clickhouse.sh stop "$tmp/clickhouse" || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "machine before: $(nproc) CPUs, $(uptime)"

log "building release binaries (go build -trimpath)"
for b in gateway:./cmd/gateway ceiling:./bench/cmd/ceiling gwbench:./bench/cmd/gwbench; do
	if [ "${b%%:*}" = gateway ] && [ -n "${BENCH_GATEWAY:-}" ]; then
		log "gateway: $BENCH_GATEWAY (BENCH_GATEWAY), not built here"
		mkdir -p "$tmp/bin" && cp "$BENCH_GATEWAY" "$tmp/bin/gateway"
		continue
	fi
	go build -trimpath -o "$tmp/bin/${b%%:*}" "${b#*:}"
done

redis_port=$(free_port)
ch_port=$(free_port "$redis_port")
scripts/redis.sh start "$tmp/redis" "$redis_port" &
r=$!
scripts/clickhouse.sh start "$tmp/clickhouse" "$ch_port" &
c=$!
failed=0
wait "$r" || failed=1
wait "$c" || failed=1
[ "$failed" -eq 0 ] || die "could not start Redis and ClickHouse (see above)"

# The cluster scenario's Redis Cluster: 3 masters with a replica each, ports
# whose cluster bus (port+10000) is free too. Left out when --scenarios
# does not name it.
cluster=()
case " $* " in
*" --scenarios"*) [[ " $* " =~ --scenarios[=[:space:]]+[^[:space:]]*cluster ]] && want_cluster=1 || want_cluster=0 ;;
*) want_cluster=1 ;;
esac
if [ "$want_cluster" = 1 ]; then
	ports=()
	while [ ${#ports[@]} -lt 6 ]; do
		ports+=("$(free_cluster_port "$redis_port" "$ch_port" "${ports[@]}")")
	done
	cluster=(--redis-cluster-url "$(scripts/redis-cluster.sh start "$tmp/redis-cluster" "${ports[@]}")")
fi

export GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export GATEWAY_CLICKHOUSE_DSN="clickhouse://127.0.0.1:$ch_port/gateway"
"$tmp/bin/gateway" migrate >/dev/null

status=0
"$tmp/bin/gwbench" --redis-url "$GATEWAY_REDIS_URL" --clickhouse-addr "127.0.0.1:$ch_port" \
	"${cluster[@]}" --gateway "$tmp/bin/gateway" --ceiling "$tmp/bin/ceiling" --data "$tmp" --out "$root/bench-results" \
	--redis-pid "$(cat "$tmp/redis/redis.pid")" --clickhouse-pid "$(cat "$tmp/clickhouse/clickhouse.pid")" \
	--command "make bench$([ "$mode" = quick ] && echo -quick)${BENCH_GATEWAY:+ with BENCH_GATEWAY=$BENCH_GATEWAY}${*:+ BENCH_FLAGS='$*'}" \
	"${sizes[@]}" "$@" || status=$?

# Gateway and Redis logs and perf recordings outlive the data folder.
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for f in "$tmp"/*.log "$tmp"/perf-*.data "$tmp/redis/redis.log"; do
	[ -e "$f" ] && cp "$f" "bench-results/$stamp-$mode-${f##*/}"
done

log "machine after: $(uptime)"
exit "$status"
