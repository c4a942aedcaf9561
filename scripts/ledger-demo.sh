#!/bin/bash
# The ledger walked through on a running `make run` (in another terminal): a
# fee schedule and D+1 terms for the demo merchant, a 100.00 USD order paid in
# the sandbox (its fee, the pending balance), the settlement (run a day ahead
# with --clock-offset, a demo-only flag), a refund, the transactions, the
# fee income and the journal audit. It changes the demo merchant's fees and terms.
cd "$(dirname "$0")/.."
export GATEWAY_REDIS_URL=redis://127.0.0.1:6379/0 GATEWAY_CLICKHOUSE_DSN=clickhouse://127.0.0.1:9000/gateway
base=http://127.0.0.1:8080
m=.data/run/demo-merchant.json
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$m" | head -n 1; }
appid=$(field appid) key=$(field apiKey) qk=$(field queryKey)
sign() { printf '%s' "$1$key" | md5sum | cut -d' ' -f1; }
run() { echo "\$ $*"; "$@"; echo; }
run bin/gateway fees set --method wallet_a --currency USD --bps 290 --fixed 0.30 --by demo-operator
sleep 2  # the gateway's copy of the schedules refreshes each second
run bin/gateway merchant terms "$appid" --delay-days 1 --cutoff-hour 0 --tz UTC --by demo-operator
echo "--- before the order:"; curl -s "$base/api/balance?appid=$appid&key=$qk"; echo
s=$(sign "action=createorder&amount=100.00&appid=$appid&clientip=127.0.0.1&currency=USD&paymentMethod=wallet_a")
echo "--- create 100.00 USD wallet_a:"
resp=$(curl -s $base/api/createorder -H 'Content-Type: application/json' -d "{\"action\":\"createorder\",\"amount\":\"100.00\",\"appid\":\"$appid\",\"clientip\":\"127.0.0.1\",\"currency\":\"USD\",\"paymentMethod\":\"wallet_a\",\"sign\":\"$s\"}")
echo "$resp"
pid=$(echo "$resp" | sed -n 's/.*"paymentId":"\([^"]*\)".*/\1/p')
echo "--- pay it in the sandbox:"; curl -s -X POST "$base/sandbox/orders/$pid/pay?appid=$appid&key=$qk"; echo
sleep 2
echo "--- balance after the payment (fee 2.9% + 0.30 = 3.20; net 96.80 pending until D+1 00:00 UTC):"
curl -s "$base/api/balance?appid=$appid&key=$qk"; echo
run bin/gateway ledger settle
run bin/gateway ledger settle --clock-offset 24h
echo "--- balance after the settlement:"; curl -s "$base/api/balance?appid=$appid&key=$qk"; echo
s=$(sign "action=refund&amount=25.00&appid=$appid&paymentId=$pid")
echo "--- refund 25.00:"
curl -s $base/api/order/refund -H 'Content-Type: application/json' -d "{\"action\":\"refund\",\"amount\":\"25.00\",\"appid\":\"$appid\",\"paymentId\":\"$pid\",\"sign\":\"$s\"}"; echo
sleep 3
echo "--- balance after the refund:"; curl -s "$base/api/balance?appid=$appid&key=$qk"; echo
echo "--- transactions (ClickHouse):"; curl -s "$base/api/balance?appid=$appid&key=$qk&action=transactions&limit=10"; echo
run bin/gateway ledger journal "$appid" --limit 6
d=$(date -u +%F); d2=$(date -u -d tomorrow +%F)
run bin/gateway ledger income --from "$d" --to "$d2"
run bin/gateway ledger verify
