#!/usr/bin/env bash
# Runs a local ClickHouse for tests and `make run`: a plain process of the
# current user (not the packaged systemd service), with a generated config that
# keeps every path under DIR and listens only on 127.0.0.1:TCPPORT (native
# protocol; no HTTP, interserver or other ports). Works with Debian 12's
# ClickHouse 18.16 and with current releases.
#
#   clickhouse.sh start DIR TCPPORT   start (or find already running) and wait until it answers
#   clickhouse.sh stop DIR            clean shutdown, waits until it is gone
#   clickhouse.sh status DIR          exit 0 and print the port when running
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() { die "usage: clickhouse.sh start DIR TCPPORT | stop DIR | status DIR"; }

# Debian ships separate clickhouse-server/-client binaries; current releases
# ship one `clickhouse` binary (usually with those names as symlinks).
if command -v clickhouse-server >/dev/null 2>&1; then server=(clickhouse-server); else server=(clickhouse server); fi
if command -v clickhouse-client >/dev/null 2>&1; then client=(clickhouse-client); else client=(clickhouse client); fi

query() { "${client[@]}" --host 127.0.0.1 --port "$1" --query "$2"; }

# The root element is <yandex>: 18.16 knows only that one, and current
# releases still accept it. Keys a release does not know are ignored, so the
# paths that only current releases use are set too. No http_port,
# interserver_http_port, mysql_port...: a port that is not configured is not opened.
write_config() {
	local dir=$1 port=$2
	cat >"$dir/config.xml" <<-XML
		<?xml version="1.0"?>
		<yandex>
		    <logger>
		        <level>information</level>
		        <log>$dir/log/clickhouse-server.log</log>
		        <errorlog>$dir/log/clickhouse-server.err.log</errorlog>
		        <size>50M</size>
		        <count>2</count>
		    </logger>
		    <listen_host>127.0.0.1</listen_host>
		    <tcp_port>$port</tcp_port>
		    <path>$dir/data/</path>
		    <tmp_path>$dir/tmp/</tmp_path>
		    <user_files_path>$dir/user_files/</user_files_path>
		    <format_schema_path>$dir/format_schemas/</format_schema_path>
		    <user_scripts_path>$dir/user_scripts/</user_scripts_path>
		    <user_defined_path>$dir/data/user_defined/</user_defined_path>
		    <access_control_path>$dir/data/access/</access_control_path>
		    <users_config>$dir/users.xml</users_config>
		    <default_profile>default</default_profile>
		    <default_database>default</default_database>
		    <timezone>UTC</timezone>
		    <!-- Small caches: this is a test and development server on a small machine. -->
		    <mark_cache_size>268435456</mark_cache_size>
		    <uncompressed_cache_size>268435456</uncompressed_cache_size>
		    <mlock_executable>false</mlock_executable>
		</yandex>
	XML
	cat >"$dir/users.xml" <<-XML
		<?xml version="1.0"?>
		<yandex>
		    <profiles><default/></profiles>
		    <users>
		        <default>
		            <password></password>
		            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
		            <profile>default</profile>
		            <quota>default</quota>
		        </default>
		    </users>
		    <quotas>
		        <default>
		            <interval>
		                <duration>3600</duration>
		                <queries>0</queries><errors>0</errors><result_rows>0</result_rows>
		                <read_rows>0</read_rows><execution_time>0</execution_time>
		            </interval>
		        </default>
		    </quotas>
		</yandex>
	XML
}

start() {
	local dir port pid
	dir=$(abs_dir "$1") port=$2
	if pid=$(running_pid "$dir/clickhouse.pid" clickhouse); then
		[ "$(cat "$dir/port" 2>/dev/null)" = "$port" ] ||
			die "ClickHouse from $dir already runs on port $(cat "$dir/port"); stop it first"
		log "ClickHouse already running (pid $pid, port $port)"
	else
		port_in_use "$port" && die "port $port is already in use by another program"
		# 18.16 started with a missing log directory exits without a word.
		mkdir -p "$dir"/{data,tmp,user_files,format_schemas,user_scripts,log}
		write_config "$dir" "$port"
		echo "$port" >"$dir/port"
		# setsid: its own session, so a Ctrl-C meant for `make run` does not
		# reach it (run.sh stops it after the gateway). Output goes to a file
		# so errors from before the logger is up are kept, and no pipe of the
		# caller is held open.
		setsid "${server[@]}" --config-file="$dir/config.xml" </dev/null >"$dir/log/stdout.log" 2>&1 &
		# Our own pidfile: 18.16 writes the configured one only with --daemon.
		# $! is the server itself: a background job of a script is never a
		# process-group leader, so setsid execs without forking.
		echo $! >"$dir/clickhouse.pid"
	fi
	local deadline=$((SECONDS + ${CLICKHOUSE_START_TIMEOUT:-90})) why=
	until query "$port" 'SELECT 1' >/dev/null 2>&1; do
		if ! running_pid "$dir/clickhouse.pid" clickhouse >/dev/null; then
			why="exited during start-up"
		elif ((SECONDS >= deadline)); then
			why="did not answer on 127.0.0.1:$port within ${CLICKHOUSE_START_TIMEOUT:-90}s"
		fi
		if [ -n "$why" ]; then
			tail -n 30 "$dir/log/stdout.log" "$dir/log/clickhouse-server.err.log" >&2 2>/dev/null || true
			die "ClickHouse $why (logs: $dir/log)"
		fi
		sleep 0.2
	done
}

stop() {
	local pid
	pid=$(running_pid "$1/clickhouse.pid" clickhouse) || return 0
	stop_pid "$pid" ClickHouse
	rm -f "$1/clickhouse.pid"
}

status() {
	running_pid "$1/clickhouse.pid" clickhouse >/dev/null && cat "$1/port"
}

case "${1:-}" in
start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
stop) [ $# -eq 2 ] || usage; stop "$2" ;;
status) [ $# -eq 2 ] || usage; status "$2" ;;
*) usage ;;
esac
