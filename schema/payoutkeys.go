package schema

// Payouts live on their merchant's home shard, beside its balances, so a
// request, its journal transaction and its event are one script.

// PayoutKey is the hash of payout id.
func PayoutKey(s Shard, id string) string { return "gw:" + s.Tag() + ":po:" + id }

// PayoutsKey is appid's payouts by when they were asked for (ms).
func PayoutsKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":pos:" + appid }

// PayoutReviewKey is shard s's payouts awaiting an operator's decision, by
// when they were asked for.
func PayoutReviewKey(s Shard) string { return "gw:" + s.Tag() + ":po:~review" }

// PayoutSendKey is shard s's approved payouts awaiting their sending, by
// when they were approved.
func PayoutSendKey(s Shard) string { return "gw:" + s.Tag() + ":po:~send" }

// PayoutIdemKey names the payout a merchant's Idempotency-Key made.
func PayoutIdemKey(appid, key string) string {
	return "gw:" + HomeShard(appid).Tag() + ":po:idem:" + appid + ":" + key
}

// PayoutDestinationsKey is the hash of appid's payout destinations
// (id → JSON).
func PayoutDestinationsKey(appid string) string {
	return "gw:" + HomeShard(appid).Tag() + ":po:dest:" + appid
}

// PayoutChangesKey is who changed appid's payout destinations or settings,
// and when last (member actor key, score ms): maker-checker's memory.
func PayoutChangesKey(appid string) string {
	return "gw:" + HomeShard(appid).Tag() + ":po:chg:" + appid
}

// PayoutEventsKey is shard s's stream of payout and destination events,
// apart from the orders' stream, whose consumers read orders only.
func PayoutEventsKey(s Shard) string { return "gw:" + s.Tag() + ":po:events" }

// EndpointsKey is the hash of appid's webhook endpoints (id → JSON), on its
// home shard with its payouts and balances.
func EndpointsKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":wh:ep:" + appid }
