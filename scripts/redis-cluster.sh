#!/usr/bin/env bash
# Runs a local Redis Cluster for `make test-cluster` and the failover test:
# 3 masters with one replica each, six redis-server processes (scripts/redis.sh
# with REDIS_CLUSTER=yes) on loopback, under DIR/node-N.
#
#   redis-cluster.sh start DIR PORT...   six ports; prints the cluster seed URL
#                                         (redis://h:p1?addr=h:p2&addr=h:p3)
#   redis-cluster.sh stop DIR            stops every node
#   redis-cluster.sh kill DIR PORT       kill -9 one node (the failover test)
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"

usage() { die "usage: redis-cluster.sh start DIR P1..P6 | stop DIR | kill DIR PORT"; }

cluster_ok() { redis-cli -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

start() {
	local dir=$1
	shift
	[ $# -eq 6 ] || usage
	mkdir -p "$dir"
	local port nodes=() pids=()
	for port in "$@"; do
		[ "$port" -lt 55535 ] || die "port $port: the cluster bus (port+10000) would not fit"
		mkdir -p "$dir/node-$port"
		REDIS_CLUSTER=yes "$scripts/redis.sh" start "$dir/node-$port" "$port" &
		pids+=($!)
		nodes+=("127.0.0.1:$port")
	done
	for p in "${pids[@]}"; do wait "$p"; done
	# A second start finds the cluster already formed from its nodes.conf.
	if ! cluster_ok "$1"; then
		redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 ||
			{ cat "$dir/create.log" >&2; die "redis-cli --cluster create failed"; }
	fi
	for port in "$@"; do
		wait_until 30 cluster_ok "$port" || die "node $port: cluster_state not ok within 30s"
	done
	local url="redis://${nodes[0]}"
	local sep="?"
	for n in "${nodes[@]:1:2}"; do url+="${sep}addr=$n"; sep="&"; done
	echo "$url"
}

stop() {
	local d
	for d in "$1"/node-*; do
		[ -d "$d" ] && "$scripts/redis.sh" stop "$d"
	done
	return 0
}

kill_node() {
	local pid
	pid=$(running_pid "$1/node-$2/redis.pid" redis-server) || die "no node on port $2 under $1"
	kill -9 "$pid"
}

case "${1:-}" in
start) [ $# -eq 8 ] || usage; start "$2" "${@:3}" ;;
stop) [ $# -eq 2 ] || usage; stop "$2" ;;
kill) [ $# -eq 3 ] || usage; kill_node "$2" "$3" ;;
*) usage ;;
esac
