package fanout

import (
	"context"

	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// derived is an entry's events, or the result that ends it without any.
type derived struct {
	events []events.Derived
	result string
}

// derive is what e means (package events' derivation); ok is false when it
// ends with result: unreadable (invalid, acknowledged: retrying cannot
// repair it), nothing, or a balance that could not be read (retry).
func (f *FanOut) derive(ctx context.Context, e entry, eps []events.Endpoint) (derived, bool) {
	var ds []events.Derived
	var err error
	switch e.kind {
	case kindOrders:
		var ev schema.Event
		if ev, err = schema.DecodeEvent(e.msg.ID, e.msg.Values); err == nil {
			ds, err = events.FromOrder(ev, f.cfg.BaseURL)
		}
	case kindPayouts:
		ds, err = events.FromPayouts(e.msg.Values)
	case kindJournal:
		return f.settled(ctx, e, eps)
	}
	if err != nil {
		f.log.Error("stream entry cannot be read; no event sent", "stream", e.stream, "id", e.msg.ID, "err", err)
		return derived{result: resultInvalid}, false
	}
	if len(ds) == 0 {
		return derived{result: resultNone}, false
	}
	return derived{events: ds}, true
}

// settled is a settlement's balance.settled, with the balance read after
// it, when an endpoint takes it (the read is spared otherwise).
func (f *FanOut) settled(ctx context.Context, e entry, eps []events.Endpoint) (derived, bool) {
	je, err := journal.DecodeEntry(e.msg.ID, e.msg.Values)
	if err != nil {
		f.log.Error("journal entry cannot be read; no event sent", "stream", e.stream, "id", e.msg.ID, "err", err)
		return derived{result: resultInvalid}, false
	}
	s, ok := events.SettlementOf(je)
	if !ok {
		return derived{result: resultNone}, false
	}
	if len(wanting(eps, events.BalanceSettled)) == 0 {
		return derived{result: resultUnsubscribed}, false
	}
	bal, err := f.bals.Balance(ctx, s.AppID, s.Currency)
	if err != nil {
		f.redisError("read balance", err)
		return derived{result: resultRetry}, false
	}
	d, err := events.FromSettlement(s, bal)
	if err != nil {
		f.log.Error("settlement cannot be told; no event sent", "id", e.msg.ID, "err", err)
		return derived{result: resultInvalid}, false
	}
	return derived{events: []events.Derived{d}}, true
}
