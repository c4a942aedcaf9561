package schema

import (
	"strconv"
	"time"
)

// WebhookEventID is the webhook-id header of an order's paid webhook: an
// order has one paid event, so the id is derived from the order and is the
// same on every attempt, automatic or manual — what a receiver deduplicates
// on. A refund's webhook is a delivery of its own, keyed by the refund id:
// its event id is evt_refund_ and that id.
func WebhookEventID(deliveryID string) string {
	if IsRefundID(deliveryID) {
		return "evt_refund_" + deliveryID
	}
	return "evt_paid_" + deliveryID
}

// WebhookState is an order's webhook delivery as merchants read it in
// action=webhooks.
type WebhookState struct {
	EventID   string `json:"eventId"`
	State     string `json:"state"`             // pending | delivered | dead
	Automatic int    `json:"automaticAttempts"` // automatic attempts made
	// NextAttemptAt is when the next attempt starts (RFC 3339, UTC): set
	// only while the delivery is pending and no attempt is running.
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	InFlight      bool   `json:"inFlight"`     // an attempt is running now
	ResendQueued  bool   `json:"resendQueued"` // a manual resend waits or runs
}

// WebhookStateFrom reads the delivery hash (WebhookKey) of id as of now;
// nil when there is none.
func WebhookStateFrom(id string, h map[string]string, now time.Time) *WebhookState {
	if len(h) == 0 {
		return nil
	}
	s := &WebhookState{EventID: WebhookEventID(id), State: h["st"], ResendQueued: h["man"] != ""}
	s.Automatic, _ = strconv.Atoi(h["n"])
	due, err := strconv.ParseInt(h["due"], 10, 64)
	if err != nil || s.State != "pending" {
		return s
	}
	at := time.UnixMilli(due).UTC()
	// A lease left by a crashed process is over once its time has passed.
	if s.InFlight = h["lease"] != "" && at.After(now); !s.InFlight {
		s.NextAttemptAt = WireTime(at)
	}
	return s
}
