#!/usr/bin/env bash
# chaos.sh full|quick: `make chaos` and `make chaos-quick` (the fault suite).
# Builds release binaries (go build -trimpath; the quick run without it,
# see below) of the gateway and of the runner (chaos/cmd/chaos), which
# starts Redis and ClickHouse through scripts/redis.sh and
# scripts/clickhouse.sh under .data/chaos-XXXX, six gateway processes with
# split roles, the webhook receiver and the load, injects each scenario's
# fault and audits. The full run rewrites the
# generated table of RELIABILITY.md. Everything started is stopped on exit,
# also when the runner is killed (by the pid files it leaves).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# The quick run (the end of `make test`) builds without -trimpath, as the
# tests just did (cmd/gateway's end-to-end tests build the binary): its
# packages are then in the build cache and only linking is left, where
# -trimpath compiles every package again under other cache keys (a minute
# on a 2-core machine after any change). The binary behaves the same.
mode=${1:-full}
case "$mode" in
full) flags=(--report "$root/RELIABILITY.md" --settle 120s) build=(-trimpath) ;;
quick) flags=(--quick --settle 60s) build=() ;;
*) die "usage: chaos.sh full|quick" ;;
esac

scripts/deps.sh
mkdir -p .data
tmp=$(mktemp -d "$root/.data/chaos-XXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local f pid
	for f in "$tmp"/*.pid "$tmp"/rcluster/*.pid; do
		[ -e "$f" ] || continue
		pid=$(running_pid "$f" "$tmp/bin/") && kill -KILL "$pid" 2>/dev/null || true
	done
	scripts/redis.sh stop "$tmp/redis" || true
	[ -d "$tmp/rcluster/redis" ] && { scripts/redis-cluster.sh stop "$tmp/rcluster/redis" || true; }
	scripts/clickhouse.sh stop "$tmp/clickhouse" || true
	if [ "${status:-1}" -ne 0 ]; then
		mkdir -p chaos-results
		# ClickHouse's error log too: a server that went away mid-run
		# (connection refused in the audit) says why only there.
		for f in "$tmp"/*.log "$tmp"/rcluster/*.log "$tmp/redis/redis.log" "$tmp/clickhouse/log/clickhouse-server.err.log"; do
			[ -e "$f" ] && cp "$f" "chaos-results/$mode-${f##*/}"
		done
		log "logs of the failed run: chaos-results/"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build "${build[@]}" -o "$tmp/bin/gateway" ./cmd/gateway
go build "${build[@]}" -o "$tmp/bin/chaos" ./chaos/cmd/chaos
# Every failed request of the load, with its reason (status and body,
# time-out, refused, reset...), one JSON line each, kept from every run:
# a gateway's log cannot say why a request failed that it never answered.
mkdir -p chaos-results
failures="chaos-results/$mode-$(date -u +%Y%m%dT%H%M%SZ)-failed-requests.jsonl"
status=0
# CHAOS_FLAGS adds runner flags, e.g. CHAOS_FLAGS="--creates 300 --scenarios redis-kill9"
# (`chaos -h` lists them: the rates offered and the activity floors).
# shellcheck disable=SC2086 # split on purpose
"$tmp/bin/chaos" --root "$root" --gateway "$tmp/bin/gateway" --data "$tmp" --failures "$failures" "${flags[@]}" ${CHAOS_FLAGS:-} || status=$?
log "failed requests of the load: $failures"
exit "$status"
