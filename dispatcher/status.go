package dispatcher

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/paygate/gateway/schema"
)

// Delivery states, as the delivery hash stores them.
const (
	StatePending   = "pending"
	StateDelivered = "delivered"
	StateDead      = "dead"
)

// Delivery is an order's webhook delivery as operators see it.
type Delivery struct {
	PaymentID string    `json:"paymentId"`
	RefundID  string    `json:"refundId,omitempty"` // set for a refund's webhook
	State     string    `json:"state"`
	URL       string    `json:"notifyUrl"`
	Automatic int       `json:"automaticAttempts"` // automatic attempts made
	NextDue   time.Time `json:"nextDue,omitzero"`  // pending only: when the next attempt starts (or its lease ends)
	Resend    string    `json:"resend,omitempty"`  // a queued manual resend, and the state it came from
	InFlight  bool      `json:"inFlight"`          // an attempt holds the lease now
}

// delivery reads the delivery hash of paymentID's paid webhook, or with a
// refundID of that refund's, or ErrNoDelivery.
func (s *store) delivery(ctx context.Context, paymentID, refundID string) (*Delivery, error) {
	shard, id, ok := locate(paymentID, refundID)
	if !ok {
		return nil, ErrNoDelivery
	}
	h, err := s.rdb.HGetAll(ctx, schema.WebhookKey(shard, id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook of %s: %w", id, err)
	}
	if len(h) == 0 || (refundID != "" && !ofOrder(h["p"], paymentID)) {
		return nil, ErrNoDelivery
	}
	d := &Delivery{PaymentID: paymentID, RefundID: refundID, State: h["st"], URL: h["url"], Resend: h["man"]}
	d.Automatic, _ = strconv.Atoi(h["n"])
	if ms, err := strconv.ParseInt(h["due"], 10, 64); err == nil && d.State == StatePending {
		d.NextDue = time.UnixMilli(ms).UTC()
		// A lease left by a crashed process is over once its time has passed.
		d.InFlight = h["lease"] != "" && d.NextDue.After(time.Now())
	}
	return d, nil
}

// attempts reads the attempt log of paymentID's paid webhook, or with a
// refundID of that refund's, oldest first; a delivery not made yet has an
// empty log. It does not check that the refund is the order's (delivery
// does).
func (s *store) attempts(ctx context.Context, paymentID, refundID string) ([]schema.WebhookAttempt, error) {
	shard, id, ok := locate(paymentID, refundID)
	if !ok {
		return nil, nil
	}
	raw, err := s.rdb.LRange(ctx, schema.WebhookLogKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook log of %s: %w", id, err)
	}
	return schema.DecodeWebhookLog(id, raw)
}
