#!/usr/bin/env bash
# `make run`: the whole gateway on this machine, to try it by hand. Starts
# Redis (127.0.0.1:6379) and ClickHouse (127.0.0.1:9000) with data under
# .data/run, builds and migrates, creates a sandbox demo merchant once, prints
# its credentials, then serves in the foreground. Ctrl-C stops the gateway,
# then the servers this run started. A second run finds the same data.
#
# GATEWAY_RUN_REDIS_PORT / GATEWAY_RUN_CLICKHOUSE_PORT move the servers when
# those ports are taken; GATEWAY_HTTP_ADDR moves the gateway, and the printed
# curls and GATEWAY_PUBLIC_URL follow it; GATEWAY_PUBLIC_URL and the other
# GATEWAY_* settings are passed through to the gateway. Webhooks may reach
# private addresses (GATEWAY_WEBHOOK_ALLOW_PRIVATE=true): a development
# instance, as its banner says.
#
# The demo's webhook endpoint, `gateway demo receiver`, listens on
# GATEWAY_RUN_RECEIVER_ADDR (default 127.0.0.1:8099) and prints each webhook
# here; the printed create names it as notify_url. The operator console is on
# GATEWAY_ADMIN_ADDR (default 127.0.0.1:9465). GATEWAY_RUN_DIR moves the data
# (default .data/run).
set -euo pipefail

# A job a shell without job control starts in the background (`make run &`
# in a script) begins with SIGINT ignored, and bash cannot trap a signal that
# was ignored when it started: kill -INT (Ctrl-C to its process group) would
# do nothing. Start again with SIGINT restored (coreutils' env), so that it
# stops the run as SIGTERM does. (make itself keeps ignoring it: signal make
# with SIGTERM, which it passes on, or this script's process or group.)
if [ -n "$(trap -p INT)" ] && [ -z "${GATEWAY_RUN_SIGINT_RESTORED:-}" ] && env --default-signal=INT true 2>/dev/null; then
	GATEWAY_RUN_SIGINT_RESTORED=1 exec env --default-signal=INT bash "$0" "$@"
fi
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# Loopback only by default: this is a development instance. The public URL
# is derived from the listening address unless given, and the port is checked
# before anything is started or printed.
export GATEWAY_HTTP_ADDR=${GATEWAY_HTTP_ADDR:-127.0.0.1:8080}
http_port=${GATEWAY_HTTP_ADDR##*:}
http_host=${GATEWAY_HTTP_ADDR%:*}
case "$http_host" in "" | 0.0.0.0 | "[::]") http_host=127.0.0.1 ;; esac
[[ "$http_port" =~ ^[0-9]+$ ]] && [ "$http_port" != 0 ] || die "GATEWAY_HTTP_ADDR=$GATEWAY_HTTP_ADDR: give a fixed port, e.g. 127.0.0.1:8080"
port_in_use "$http_port" && die "port $http_port (GATEWAY_HTTP_ADDR=$GATEWAY_HTTP_ADDR) is taken by another program; stop it, or set GATEWAY_HTTP_ADDR to a free address"
export GATEWAY_PUBLIC_URL=${GATEWAY_PUBLIC_URL:-http://$http_host:$http_port}
# /metrics is served only on the operations listener (loopback by default).
export GATEWAY_OPS_ADDR=${GATEWAY_OPS_ADDR:-127.0.0.1:9464}
ops_port=${GATEWAY_OPS_ADDR##*:}
ops_host=${GATEWAY_OPS_ADDR%:*}
case "$ops_host" in "" | 0.0.0.0 | "[::]") ops_host=127.0.0.1 ;; esac
[[ "$ops_port" =~ ^[0-9]+$ ]] && [ "$ops_port" != 0 ] || die "GATEWAY_OPS_ADDR=$GATEWAY_OPS_ADDR: give a fixed port, e.g. 127.0.0.1:9464"
port_in_use "$ops_port" && die "port $ops_port (GATEWAY_OPS_ADDR=$GATEWAY_OPS_ADDR) is taken by another program; stop it, or set GATEWAY_OPS_ADDR to a free address"
# The operator console, on its own loopback listener.
export GATEWAY_ADMIN_ADDR=${GATEWAY_ADMIN_ADDR:-127.0.0.1:9465}
admin_port=${GATEWAY_ADMIN_ADDR##*:}
admin_host=${GATEWAY_ADMIN_ADDR%:*}
case "$admin_host" in "" | 0.0.0.0 | "[::]") admin_host=127.0.0.1 ;; esac
[[ "$admin_port" =~ ^[0-9]+$ ]] && [ "$admin_port" != 0 ] || die "GATEWAY_ADMIN_ADDR=$GATEWAY_ADMIN_ADDR: give a fixed port, e.g. 127.0.0.1:9465"
port_in_use "$admin_port" && die "port $admin_port (GATEWAY_ADMIN_ADDR=$GATEWAY_ADMIN_ADDR) is taken by another program; stop it, or set GATEWAY_ADMIN_ADDR to a free address"
# The demo's webhook receiver (loopback only: it answers anyone).
receiver_addr=${GATEWAY_RUN_RECEIVER_ADDR:-127.0.0.1:8099}
receiver_port=${receiver_addr##*:}
[[ "$receiver_port" =~ ^[0-9]+$ ]] && [ "$receiver_port" != 0 ] || die "GATEWAY_RUN_RECEIVER_ADDR=$receiver_addr: give a fixed loopback port, e.g. 127.0.0.1:8099"
port_in_use "$receiver_port" && die "port $receiver_port (GATEWAY_RUN_RECEIVER_ADDR=$receiver_addr) is taken by another program; stop it, or set GATEWAY_RUN_RECEIVER_ADDR to a free address"
export GATEWAY_WEBHOOK_ALLOW_PRIVATE=${GATEWAY_WEBHOOK_ALLOW_PRIVATE:-true}
# Approved USDT payouts are sent on the simulated chains and exchange: every
# merchant of a local run is a demo one.
export GATEWAY_PAYOUT_RAIL=${GATEWAY_PAYOUT_RAIL:-sandbox}
# The epay-compatible door's type words (docs/epay.md): an operator names the
# words its merchants' plugins send; the demo's are neutral ones.
export GATEWAY_EPAY_TYPES=${GATEWAY_EPAY_TYPES:-t1=wallet_a,t2=wallet_b}

redis_port=${GATEWAY_RUN_REDIS_PORT:-6379}
ch_port=${GATEWAY_RUN_CLICKHOUSE_PORT:-9000}
data=${GATEWAY_RUN_DIR:-.data/run}

# Only what running needs; `make test` installs the test tools.
scripts/deps.sh run
mkdir -p "$data"

# Stop on exit only what this run started: a server left by an earlier run
# that was killed is reused, and left running.
stop_servers=()
receiver=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local s
	[ -z "$receiver" ] || stop_pid "$receiver" "demo receiver"
	for s in "${stop_servers[@]}"; do
		"scripts/$s.sh" stop "$data/$s" || true
	done
}
trap cleanup EXIT

# start NAME PORT VAR: reuse our server from $data/NAME, else start one, after
# making sure the port is not someone else's.
start() {
	local name=$1 port=$2 var=$3 running
	if running=$("scripts/$name.sh" status "$data/$name"); then
		[ "$running" = "$port" ] || die "$name from $data/$name already runs on port $running; stop it with: scripts/$name.sh stop $data/$name"
		log "reusing $name on 127.0.0.1:$port"
		return
	fi
	port_in_use "$port" && die "port $port (for $name) is taken by another program; stop it, or set $var to a free port"
	"scripts/$name.sh" start "$data/$name" "$port"
	stop_servers=("$name" "${stop_servers[@]}")
}
start redis "$redis_port" GATEWAY_RUN_REDIS_PORT
start clickhouse "$ch_port" GATEWAY_RUN_CLICKHOUSE_PORT

export GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export GATEWAY_CLICKHOUSE_DSN="clickhouse://127.0.0.1:$ch_port/gateway"

log "building bin/gateway"
go build -o bin/gateway ./cmd/gateway

# Creates the database and applies what migrations it lacks (idempotent).
bin/gateway migrate

# The demo's state, by the same command the tests run (gateway demo seed):
# a sandbox demo merchant and a demo payer with a password, made once and
# kept beside the data they belong to (make clean removes both; ones Redis
# no longer knows are replaced), the FX rates every method needs where none
# is set, and balances topped up for balance payments.
demo=$(bin/gateway demo seed --dir "$data")
merchant=$data/demo-merchant.json
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$merchant" | head -n 1; }
appid=$(field appid) api_key=$(field apiKey) query_key=$(field queryKey) webhook_secret=$(field webhookSecret)
base=$GATEWAY_PUBLIC_URL

# The merchant's end of webhooks, started before the banner so that the
# printed create's notify_url answers; it reads the keys from the demo file
# at each webhook, so a rotation is followed.
setsid bin/gateway demo receiver --addr "$receiver_addr" --merchant-file "$merchant" &
receiver=$!
wait_until 10 port_in_use "$receiver_port" || die "the demo receiver did not start on $receiver_addr"
notify_url=http://$receiver_addr/hook

# A ready-to-paste order: the signature per SPEC.md (sorted name=value pairs
# joined by &, API key appended, MD5).
sign=$(printf '%s' "action=createorder&amount=10.00&appid=$appid&clientip=127.0.0.1&currency=USD&notify_url=$notify_url&paymentMethod=wallet_a$api_key" | md5sum | cut -d' ' -f1)
env_cli="GATEWAY_REDIS_URL=$GATEWAY_REDIS_URL"
cat <<EOF

==== DEVELOPMENT instance on $GATEWAY_HTTP_ADDR ($base): webhooks may go to private
     addresses (GATEWAY_WEBHOOK_ALLOW_PRIVATE=$GATEWAY_WEBHOOK_ALLOW_PRIVATE); not for production.
     API description: $base/openapi.json
     Metrics (operations listener only, GATEWAY_OPS_ADDR): http://$ops_host:$ops_port/metrics
==== $demo
  webhook secret (webhook-signature header): $webhook_secret
demo receiver (the merchant's webhook endpoint; prints each webhook here): $notify_url

Create an order (its webhook goes to the demo receiver):
  curl -s $base/api/createorder -H 'Content-Type: application/json' \\
    -d '{"action":"createorder","amount":10.00,"appid":"$appid","clientip":"127.0.0.1","currency":"USD","notify_url":"$notify_url","paymentMethod":"wallet_a","sign":"$sign"}'
Pay it in the sandbox (paymentId from the answer above), or fail it with /fail:
  curl -s -X POST "$base/sandbox/orders/PAYMENT_ID/pay?appid=$appid&key=$query_key"
Every method of the README's table pays: sign another paymentMethod and currency the
same way (bdcard/bdpsp_a/bdpsp_b USD or BDT, fiatpsp, cryptopsp, usdt_direct, balance);
paymentMethod "select" lets the payer choose, balance with the demo payer above.
List orders:
  curl -s "$base/api/order?appid=$appid&key=$query_key&action=orders"
A plugin speaking the epay protocol (docs/epay.md): $base/submit.php, /mapi.php, /api.php
  with pid $appid and the API key as its key; type words $GATEWAY_EPAY_TYPES (GATEWAY_EPAY_TYPES,
  or the operator console's epay types page); its GET notifications to the demo receiver verify too.
Webhooks the demo receiver got: curl -s http://$receiver_addr/
Merchant console: $base/console  (its first owner, by a one-time setup link:)
  $env_cli GATEWAY_PUBLIC_URL=$base bin/gateway console-user add $appid you@example.com --role owner
Operator console: http://$admin_host:$admin_port/admin  (an operator, by a one-time setup link:)
  $env_cli GATEWAY_ADMIN_ADDR=$GATEWAY_ADMIN_ADDR bin/gateway operator add you@example.com --role admin
Redis: $GATEWAY_REDIS_URL   ClickHouse: $GATEWAY_CLICKHOUSE_DSN
====

EOF

# Not exec: the gateway runs as a child so that the EXIT trap can stop the
# servers after it. setsid keeps the terminal's Ctrl-C from reaching it
# directly: it gets each INT or TERM exactly once, forwarded by us, and shuts
# down gracefully (a second signal would usually mean "stop now").
GATEWAY_DEMO_FILE="$merchant" setsid bin/gateway serve &
gateway=$!
trap 'kill -INT "$gateway" 2>/dev/null || true' INT
trap 'kill -TERM "$gateway" 2>/dev/null || true' TERM
# wait returns early when a trapped signal arrives: wait again until the
# gateway is gone, then take its exit status (bash keeps it for a second wait).
while alive "$gateway"; do wait "$gateway" || true; done
status=0
wait "$gateway" || status=$?
exit "$status"
