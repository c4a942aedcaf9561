#!/usr/bin/env bash
# Runs a local Redis for tests and `make run`: a plain daemonised process bound
# to 127.0.0.1, with everything it writes (config, AOF, pidfile, log) under DIR,
# so several can run side by side and a second start of the same DIR finds its data.
#
#   redis.sh start DIR PORT   start (or find already running) and wait until it answers
#   redis.sh stop DIR         clean shutdown (AOF flushed), waits until it is gone
#   redis.sh status DIR       exit 0 and print the port when running
#   redis.sh conf DIR PORT    only write DIR/redis.conf (a Redis started another way)
#
# REDIS_CLUSTER=yes makes the node a Redis Cluster member (scripts/redis-cluster.sh);
# its cluster bus listens on PORT+10000, so PORT stays below 55535.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { die "usage: redis.sh start DIR PORT | stop DIR | status DIR | conf DIR PORT"; }

ping() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }

# conf DIR PORT: writes DIR/redis.conf, the one configuration of every
# Redis the scripts start (tests, make run, benches, redis-callgrind.sh).
conf() {
	local dir=$1 port=$2
	# appendfsync always: an acknowledged write must survive a crash (DESIGN.md).
	# databases 1024: every test gets a database of its own (internal/testenv).
	# hash-max-listpack-value 512: an order hash with a long URL stays a
	# compact listpack (~3x smaller than a hashtable).
	# auto-aof-rewrite-min-size 1gb: during a rewrite fsync waits up to
	# ~50 ms and every create waits for one; rewrite less often (make bench).
	cat >"$dir/redis.conf" <<-CONF
		bind 127.0.0.1
		port $port
		protected-mode yes
		daemonize yes
		pidfile $dir/redis.pid
		logfile $dir/redis.log
		dir $dir
		databases 1024
		appendonly yes
		appendfsync always
		hash-max-listpack-value 512
		auto-aof-rewrite-min-size 1gb
		save ""
	CONF
	if [ "${REDIS_CLUSTER:-}" = yes ]; then
		# A cluster node has one database; cluster-node-timeout 2000: a
		# killed master's replica takes over within seconds (tests, failover).
		sed -i '/^databases/d' "$dir/redis.conf"
		cat >>"$dir/redis.conf" <<-CONF
			cluster-enabled yes
			cluster-config-file $dir/nodes.conf
			cluster-node-timeout ${REDIS_CLUSTER_NODE_TIMEOUT:-2000}
		CONF
	fi
}

start() {
	local dir port pid
	dir=$(abs_dir "$1") port=$2
	if pid=$(running_pid "$dir/redis.pid" redis-server); then
		[ "$(cat "$dir/port" 2>/dev/null)" = "$port" ] ||
			die "Redis from $dir already runs on port $(cat "$dir/port"); stop it first"
		log "Redis already running (pid $pid, port $port)"
	else
		port_in_use "$port" && die "port $port is already in use by another program"
		conf "$dir" "$port"
		echo "$port" >"$dir/port"
		redis-server "$dir/redis.conf" || { tail -n 20 "$dir/redis.log" >&2 2>/dev/null; die "redis-server failed to start"; }
	fi
	# A restart replays the AOF first; PING answers LOADING until that is done.
	wait_until "${REDIS_START_TIMEOUT:-30}" ping "$port" || {
		tail -n 30 "$dir/redis.log" >&2 2>/dev/null
		die "Redis on 127.0.0.1:$port did not answer PING within ${REDIS_START_TIMEOUT:-30}s (log: $dir/redis.log)"
	}
}

stop() {
	local pid
	pid=$(running_pid "$1/redis.pid" redis-server) || return 0
	stop_pid "$pid" Redis
}

status() {
	running_pid "$1/redis.pid" redis-server >/dev/null && cat "$1/port"
}

case "${1:-}" in
start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
stop) [ $# -eq 2 ] || usage; stop "$2" ;;
status) [ $# -eq 2 ] || usage; status "$2" ;;
conf) [ $# -eq 3 ] || usage; conf "$(abs_dir "$2")" "$3" ;;
*) usage ;;
esac
