package schema

import "strconv"

// Per-merchant webhook views (the merchant console's Webhooks page). The
// dispatcher's own keys are per order and per destination host;
// these two let one merchant's deliveries be read without scanning a shard.
// Both carry the shard's hash tag, so the dispatcher's scripts keep them in
// the same atomic step as the delivery they describe.

// WebhookMerchantKey is the sorted set of merchant appid's deliveries on
// shard s that are not delivered (pending, failing or dead), scored by the
// time the event happened (ms, the order's paid time or the refund's end).
// A delivery leaves it when acknowledged; one whose state has expired is
// dropped by the next reader or the next schedule past Retention.
func WebhookMerchantKey(s Shard, appid string) string { return "gw:" + s.Tag() + ":wh:m:" + appid }

// WebhookRateKey is the hash of merchant appid's webhook attempts on shard
// s during one UTC hour (unix hour number): "a" attempts made, "s" of them
// acknowledged. It expires a little after a day: the console's 24 h success
// rate is the sum of the last 24 of them over every shard.
func WebhookRateKey(s Shard, appid string, hour int64) string {
	return "gw:" + s.Tag() + ":wh:rate:" + appid + ":" + strconv.FormatInt(hour, 10)
}

// WebhookTestKey marks that merchant appid sent a console test event
// lately: one at a time per merchant, so the button cannot make us hammer
// a URL (the merchant's own, but one it could point anywhere public).
func WebhookTestKey(appid string) string { return "gw:" + HomeShard(appid).Tag() + ":wh:test:" + appid }

// WebhookMerchantAllKey is the sorted set of every delivery of merchant
// appid on shard s, delivered ones too, scored like WebhookMerchantKey: the
// Webhooks page's history. Entries older than Retention are pruned by the
// next schedule; one whose delivery state has expired by the next reader.
func WebhookMerchantAllKey(s Shard, appid string) string { return "gw:" + s.Tag() + ":wh:ma:" + appid }
