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
	State     string    `json:"state"`
	URL       string    `json:"notifyUrl"`
	Automatic int       `json:"automaticAttempts"` // automatic attempts made
	NextDue   time.Time `json:"nextDue,omitzero"`  // pending only: when the next attempt starts (or its lease ends)
	Resend    string    `json:"resend,omitempty"`  // a queued manual resend, and the state it came from
	InFlight  bool      `json:"inFlight"`          // an attempt holds the lease now
}

// delivery reads the delivery hash of id, or ErrNoDelivery.
func (s *store) delivery(ctx context.Context, id string) (*Delivery, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, ErrNoDelivery
	}
	h, err := s.rdb.HGetAll(ctx, schema.WebhookKey(shard, id)).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook of %s: %w", id, err)
	}
	if len(h) == 0 {
		return nil, ErrNoDelivery
	}
	d := &Delivery{PaymentID: id, State: h["st"], URL: h["url"], Resend: h["man"]}
	d.Automatic, _ = strconv.Atoi(h["n"])
	if ms, err := strconv.ParseInt(h["due"], 10, 64); err == nil && d.State == StatePending {
		d.NextDue = time.UnixMilli(ms).UTC()
		// A lease left by a crashed process is over once its time has passed.
		d.InFlight = h["lease"] != "" && d.NextDue.After(time.Now())
	}
	return d, nil
}

// attempts reads the attempt log of id, oldest first; an order without a
// delivery has an empty log.
func (s *store) attempts(ctx context.Context, id string) ([]schema.WebhookAttempt, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, nil
	}
	raw, err := s.rdb.LRange(ctx, schema.WebhookLogKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read webhook log of %s: %w", id, err)
	}
	return schema.DecodeWebhookLog(id, raw)
}
