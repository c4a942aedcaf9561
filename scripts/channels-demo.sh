#!/bin/bash
# Channels walked through on a running `make run` (in another terminal): the
# sandbox's two channels of wallet_a, an order on the default one, that
# channel's simulator turned restricted (as a provider restricts a live
# account), the next orders failing over to `alt` with the failed attempt on
# the first one's timeline, the breaker opened on the demo's keyword list,
# then the restriction lifted and the breaker closed by hand.
cd "$(dirname "$0")/.."
export GATEWAY_REDIS_URL=redis://127.0.0.1:6379/0 GATEWAY_CLICKHOUSE_DSN=clickhouse://127.0.0.1:9000/gateway
base=http://127.0.0.1:8080
m=.data/run/demo-merchant.json
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$m" | head -n 1; }
appid=$(field appid) key=$(field apiKey)
sign() { printf '%s' "$1$key" | md5sum | cut -d' ' -f1; }
run() { echo "\$ $*"; "$@"; echo; }
create() {
	local s
	s=$(sign "action=createorder&amount=$1&appid=$appid&clientip=127.0.0.1&currency=CNY&paymentMethod=wallet_a")
	curl -s $base/api/createorder -H 'Content-Type: application/json' -d "{\"action\":\"createorder\",\"amount\":\"$1\",\"appid\":\"$appid\",\"clientip\":\"127.0.0.1\",\"currency\":\"CNY\",\"paymentMethod\":\"wallet_a\",\"sign\":\"$s\"}" |
		sed -n 's/.*"paymentId":"\([^"]*\)".*"statusString":"\([^"]*\)".*/\1 \2/p'
}
channel_of() { bin/gateway order show "$1" --json | sed -n 's/.*"Channel": *"\([^"]*\)".*/\1/p' | head -n 1; }
run bin/gateway channel list
echo "--- an order before the fault:"; read -r id st < <(create 10.00); echo "$id $st on channel $(channel_of "$id")"
run bin/gateway sandbox fault wallet_a default restricted
echo "--- three orders after it:"
for a in 11.00 12.00 13.00; do read -r id st < <(create $a); echo "$id $st on channel $(channel_of "$id")"; first=${first:-$id}; done
echo "--- the first one's failed attempt on default (its timeline; the order itself is on alt):"
bin/gateway order show "$first" --json | grep -E '"(mode|channel|verdict|detail)"' | head -12; echo
sleep 2 # the breaker's state reaches every process's copy within a second
run bin/gateway channel list
run bin/gateway sandbox fault wallet_a default off
run bin/gateway channel breaker close sandbox.wallet_a.default --reason "restriction lifted" --by demo-operator
