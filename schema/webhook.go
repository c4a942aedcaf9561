package schema

import (
	"encoding/json"
	"fmt"
)

// Webhook deliveries (DESIGN.md: dispatcher). Every key of one delivery
// carries its order's shard hash tag, so the scripts that claim and finish an
// attempt stay slot-local on Redis Cluster, like the order scripts.

// WebhookKey is the hash holding one order's delivery state: st
// (pending|delivered|dead), n (automatic attempts made), the lease of the
// attempt in flight, the notify_url, its host, the appid and the callback
// parameters as they were when the order was paid.
func WebhookKey(s Shard, id string) string { return "gw:" + s.Tag() + ":wh:o:" + id }

// WebhookLogKey is the list of an order's attempts, oldest first, each a
// WebhookAttempt in JSON.
func WebhookLogKey(s Shard, id string) string { return "gw:" + s.Tag() + ":wh:log:" + id }

// WebhookQueueKey is the sorted set of a shard's deliveries to one destination
// host (host:port), scored by when each is due (ms). An attempt in flight is
// scored by the end of its lease, so a crashed dispatcher's work falls due
// again by itself.
func WebhookQueueKey(s Shard, host string) string { return "gw:" + s.Tag() + ":wh:q:" + host }

// WebhookHostsKey indexes a shard's destination hosts by the earliest due time
// in their queue. Workers scan hosts, not deliveries, so a thousand webhooks
// waiting for one dead endpoint never stand in front of another merchant's.
func WebhookHostsKey(s Shard) string { return "gw:" + s.Tag() + ":wh:hosts" }

// WebhookDeadKey is the shard's dead-letter set: order ids whose retries ran
// out, scored by when (ms).
func WebhookDeadKey(s Shard) string { return "gw:" + s.Tag() + ":wh:dead" }

// WebhookAttempt is one recorded delivery attempt, as operators and merchants
// read it. It is stored as JSON, so the tags are part of the Redis layout.
type WebhookAttempt struct {
	At        string `json:"at"`              // RFC 3339, UTC, when the attempt started
	Attempt   int    `json:"attempt"`         // 1 for the first attempt of the order, counting every attempt
	Manual    bool   `json:"manual"`          // asked for by a resend
	Status    int    `json:"status"`          // HTTP status, 0 when no response came
	Error     string `json:"error,omitempty"` // why it failed; empty when acknowledged
	Body      string `json:"body"`            // the first 256 bytes of the response body
	LatencyMs int64  `json:"latencyMs"`
	Success   bool   `json:"success"` // acknowledged with "success"
}

// DecodeWebhookLog reads an order's attempt log as Redis keeps it (one JSON
// record per list entry, oldest first).
func DecodeWebhookLog(id string, raw []string) ([]WebhookAttempt, error) {
	out := make([]WebhookAttempt, 0, len(raw))
	for _, r := range raw {
		var a WebhookAttempt
		if err := json.Unmarshal([]byte(r), &a); err != nil {
			return nil, fmt.Errorf("webhook log of %s: %w", id, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// WebhookBodyKept is how much of a response body an attempt record keeps.
const WebhookBodyKept = 256
