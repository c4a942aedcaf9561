#!/usr/bin/env bash
# Runs a local ClickHouse cluster for tests: one plain server per port
# (scripts/clickhouse.sh, each under DIR/nodeN), every one knowing the same
# cluster NAME in its <remote_servers>: one shard per node, one replica
# each, on 127.0.0.1. No ZooKeeper: the cluster only routes Distributed
# reads and writes; `gateway migrate` applies the DDL to every node itself.
# Works with Debian 12's ClickHouse 18.16 and with current releases.
#
#   clickhouse-cluster.sh start DIR NAME PORT1 PORT2 [PORT...]
#       starts the nodes and prints, on stdout, the test variable
#       GATEWAY_TEST_CLICKHOUSE_CLUSTER=NAME@127.0.0.1:PORT1,127.0.0.1:PORT2,...
#       and one DSN per node (clickhouse://127.0.0.1:PORTn/default)
#   clickhouse-cluster.sh stop DIR      stops every node under DIR
#   clickhouse-cluster.sh env DIR       prints the variable again
#   clickhouse-cluster.sh test CMD...
#       starts a throwaway 2-node cluster "gw" on free ports (under
#       .data/test-cluster-XXXX), runs CMD with GATEWAY_TEST_CLICKHOUSE_CLUSTER
#       set, then stops it and removes its data; the status is CMD's. With
#       scripts/testenv.sh for Redis and the single ClickHouse:
#         scripts/testenv.sh scripts/clickhouse-cluster.sh test go test -run Cluster ./...
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"

usage() { die "usage: clickhouse-cluster.sh start DIR NAME PORT1 PORT2 [PORT...] | stop DIR | env DIR | test CMD..."; }

# The cluster definition every node gets, in config.d/ (merged into the
# config.xml that clickhouse.sh writes; 18.16 and current releases read it).
write_cluster() {
	local file=$1 name=$2 port
	shift 2
	{
		echo '<?xml version="1.0"?>'
		echo '<yandex>'
		echo '    <remote_servers>'
		echo "        <$name>"
		for port in "$@"; do
			echo '            <shard><replica>'
			echo "                <host>127.0.0.1</host><port>$port</port>"
			echo '            </replica></shard>'
		done
		echo "        </$name>"
		echo '    </remote_servers>'
		echo '</yandex>'
	} >"$file"
}

start() {
	local dir=$1 name=$2 i=0 port pids=() failed=0
	shift 2
	[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "cluster name $name must be a plain identifier"
	mkdir -p "$dir"
	dir=$(abs_dir "$dir")
	for port in "$@"; do
		i=$((i + 1))
		mkdir -p "$dir/node$i/config.d"
		write_cluster "$dir/node$i/config.d/cluster.xml" "$name" "$@"
		"$scripts/clickhouse.sh" start "$dir/node$i" "$port" &
		pids+=($!)
	done
	# Wait for every node, even after one failed, so stop finds them all.
	for pid in "${pids[@]}"; do
		wait "$pid" || failed=1
	done
	[ "$failed" -eq 0 ] || die "could not start every node (see above)"
	local addrs
	addrs=$(printf '127.0.0.1:%s,' "$@")
	echo "$name@${addrs%,}" >"$dir/cluster"
	print_env "$dir"
	for port in "$@"; do
		echo "clickhouse://127.0.0.1:$port/default"
	done
}

print_env() { echo "GATEWAY_TEST_CLICKHOUSE_CLUSTER=$(cat "$1/cluster")"; }

stop() {
	local node
	for node in "$1"/node*; do
		[ -d "$node" ] && "$scripts/clickhouse.sh" stop "$node"
	done
	return 0
}

run_test() {
	local dir p1 p2 status=0
	mkdir -p "$scripts/../.data"
	dir=$(mktemp -d "$scripts/../.data/test-cluster-XXXX")
	# shellcheck disable=SC2064 # expand dir now
	trap "'$scripts/clickhouse-cluster.sh' stop '$dir' || true; rm -rf '$dir'" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	p1=$(free_port)
	p2=$(free_port "$p1")
	start "$dir" gw "$p1" "$p2" >/dev/null
	GATEWAY_TEST_CLICKHOUSE_CLUSTER=$(cat "$dir/cluster")
	export GATEWAY_TEST_CLICKHOUSE_CLUSTER
	log "ClickHouse cluster $GATEWAY_TEST_CLICKHOUSE_CLUSTER"
	"$@" || status=$?
	exit "$status"
}

case "${1:-}" in
start) [ $# -ge 5 ] || usage; shift; start "$@" ;;
stop) [ $# -eq 2 ] || usage; stop "$2" ;;
env) [ $# -eq 2 ] || usage; print_env "$2" ;;
test) [ $# -ge 2 ] || usage; shift; run_test "$@" ;;
*) usage ;;
esac
