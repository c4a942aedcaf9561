package schema

// AdjustmentKey is one manual adjustment of a merchant's balance (an
// operator's request awaiting a second operator, or one posted), a hash on
// the merchant's home shard, so its decision and its audit entry are one
// step.
func AdjustmentKey(s Shard, id string) string { return "gw:" + s.Tag() + ":adj:" + id }

// AdjustmentsPendingKey is the shard's adjustment requests awaiting a
// decision, by when they were made (ms).
func AdjustmentsPendingKey(s Shard) string { return "gw:" + s.Tag() + ":adj:~pending" }

// AdjustmentsKey is the shard's adjustments, requests and posted ones, by
// when they were made (ms): the recent ones the operator console lists.
func AdjustmentsKey(s Shard) string { return "gw:" + s.Tag() + ":adj:~all" }
