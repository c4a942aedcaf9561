package command

import (
	"context"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Settle is the one path by which payment outcomes reach an order: the
// sandbox's buttons and endpoints today, provider notifications tomorrow.
// It keeps DESIGN.md's transition table and counts the moves.
type Settle struct {
	store *Store
	m     *metrics
	now   func() time.Time
}

// Outcome is the order after a settle, and whether this call moved it.
type Outcome struct {
	Order *schema.Order
	Moved bool
}

// Move takes order id to status to. A repeat of the same outcome is fine
// and changes nothing; an outcome the order can no longer take (failing a
// paid order) is a conflict.
func (s *Settle) Move(ctx context.Context, id string, to schema.Status) (Outcome, error) {
	start := time.Now()
	moved, err := s.store.Transition(ctx, id, to, s.now())
	s.m.scriptTime.WithLabelValues("transition").Observe(time.Since(start).Seconds())
	if err != nil {
		return Outcome{}, err
	}
	o, err := s.store.Get(ctx, id)
	if err != nil {
		return Outcome{}, err
	}
	if moved {
		s.m.moves.WithLabelValues(to.String()).Inc()
	} else if o.Status != to {
		return Outcome{}, platform.Errorf(platform.KindConflict, "order %s is %s and cannot become %s", id, o.Status, to)
	}
	return Outcome{Order: o, Moved: moved}, nil
}
