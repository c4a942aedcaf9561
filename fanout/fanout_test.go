package fanout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/events"
	"github.com/paygate/gateway/schema"
)

// TestFanOutToSubscribedEndpoints: entries of two merchants (and of one
// without endpoints) reach only the endpoints subscribed to their events,
// from the orders', payouts' and journal streams, and every entry is
// acknowledged once scheduled.
func TestFanOutToSubscribedEndpoints(t *testing.T) {
	e := newEnv(t, 30*time.Second)
	a1 := e.endpoint(t, "3101", "order.paid,order.expired")
	a2 := e.endpoint(t, "3101", "order.expired,order.cancelled")
	b1 := e.endpoint(t, "3202", "*")
	paidA := e.orderEntry(t, "3101", schema.EventPaid, func(o *schema.Order) { o.Status = schema.StatusPaid })
	expiredA := e.orderEntry(t, "3101", schema.EventCancelled, func(o *schema.Order) { o.Status, o.Expired = schema.StatusCancelled, true })
	e.orderEntry(t, "3101", schema.EventFailed, func(o *schema.Order) { o.Status = schema.StatusFailed }) // nobody takes it
	e.orderEntry(t, "3101", schema.EventCreated, nil)                                                     // no event
	cancelledB := e.orderEntry(t, "3202", schema.EventCancelled, func(o *schema.Order) { o.Status = schema.StatusCancelled })
	e.orderEntry(t, "3303", schema.EventPaid, func(o *schema.Order) { o.Status = schema.StatusPaid }) // no endpoints
	e.payoutEntry(t, "3202", "3202-p1-00", "paid")
	e.payoutEntry(t, "3202", "3202-p1-00", "sending") // no event
	e.payoutEntry(t, "3101", "3101-p2-00", "paid")    // nobody takes it
	e.settle(t, "3202", "P-settled-1")
	e.settle(t, "3303", "P-settled-2")
	e.run(t)

	want := []string{
		fmt.Sprintf("3101 order.paid order:%s [%s]", paidA, a1),
		fmt.Sprintf("3101 order.expired order:%s [%s]", expiredA, strings.Join(sorted(a1, a2), ",")),
		fmt.Sprintf("3202 order.cancelled order:%s [%s]", cancelledB, b1),
		fmt.Sprintf("3202 payout.paid payout:3202-p1-00 [%s]", b1),
		fmt.Sprintf("3202 balance.settled balance:USD [%s]", b1),
	}
	eventually(t, 20*time.Second, "every entry scheduled and acknowledged", func() bool {
		return len(e.sched.taken()) >= len(want) && e.pending(t) == 0
	})
	var got []string
	for _, c := range e.sched.taken() {
		got = append(got, c.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("scheduled\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := e.pending(t); n != 0 {
		t.Fatalf("%d entries left pending", n)
	}
}

// TestSchedulerErrorLeavesTheEntryPending: an entry whose scheduling fails
// is not acknowledged; it is read again and scheduled, and a later entry of
// the same order in the batch waits with it (its refund never first).
func TestSchedulerErrorLeavesTheEntryPending(t *testing.T) {
	e := newEnv(t, 200*time.Millisecond)
	ep := e.endpoint(t, "3404", "*")
	refund := `{"id":"rf_1","oid":"x","amt":"2000","cur":"USD","st":"succeeded","kind":"provider","ct":"1","ut":"1"}`
	var id string
	paid := func(o *schema.Order) { o.ID, o.Status = id, schema.StatusPaid }
	id = e.orderEntry(t, "3404", schema.EventPaid, func(o *schema.Order) { o.Status = schema.StatusPaid; id = o.ID })
	e.orderEntry(t, "3404", schema.EventRefund, paid, schema.EvRefund, refund)
	paidID := events.ID(events.OrderPaid, id)
	e.sched.fail = func(ev events.Event, tries int) error {
		if ev.ID == paidID && tries == 1 {
			return errors.New("engine's Redis down")
		}
		return nil
	}
	e.run(t)
	eventually(t, 20*time.Second, "the failed entry tried again and scheduled", func() bool {
		return e.sched.tries(paidID) >= 2 && len(e.sched.taken()) == 2 && e.pending(t) == 0
	})
	got := e.sched.taken()
	if got[0].typ != events.OrderPaid || got[1].typ != events.OrderRefunded || got[0].eps != ep {
		t.Fatalf("scheduled %v: want order.paid, then order.refunded", got)
	}
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// TestHeldObjectKeepsItsOrder: an order's refund read after its payment
// failed to schedule (a later batch) waits for the payment: it is never
// scheduled first.
func TestHeldObjectKeepsItsOrder(t *testing.T) {
	e := newEnv(t, 300*time.Millisecond)
	e.endpoint(t, "3505", "*")
	refund := `{"id":"rf_1","oid":"x","amt":"2000","cur":"USD","st":"succeeded","kind":"provider","ct":"1","ut":"1"}`
	var id string
	id = e.orderEntry(t, "3505", schema.EventPaid, func(o *schema.Order) { o.Status = schema.StatusPaid; id = o.ID })
	paidID := events.ID(events.OrderPaid, id)
	e.sched.fail = func(ev events.Event, tries int) error {
		if ev.ID == paidID && tries == 1 {
			return errors.New("engine's Redis down")
		}
		return nil
	}
	e.run(t)
	eventually(t, 20*time.Second, "the payment's first try", func() bool { return e.sched.tries(paidID) == 1 })
	e.orderEntry(t, "3505", schema.EventRefund, func(o *schema.Order) { o.ID, o.Status = id, schema.StatusPaid }, schema.EvRefund, refund)
	eventually(t, 20*time.Second, "both scheduled and acknowledged", func() bool {
		return len(e.sched.taken()) == 2 && e.pending(t) == 0
	})
	if got := e.sched.taken(); got[0].typ != events.OrderPaid || got[1].typ != events.OrderRefunded {
		t.Fatalf("scheduled %v: want order.paid, then order.refunded", got)
	}
}

// TestExpiryReachesOrderExpired: an order cancelled by the expiry sweep's
// own script (command.Store.Expire) reaches an endpoint subscribed to
// order.expired, and one subscribed to order.cancelled does not get it.
func TestExpiryReachesOrderExpired(t *testing.T) {
	e := newEnv(t, 30*time.Second)
	expiredEP := e.endpoint(t, "3606", "order.expired")
	e.endpoint(t, "3606", "order.cancelled")
	ctx := context.Background()
	o := schema.Order{ID: schema.NewOrderID(at, 5), AppID: "3606", Amount: 10050, Currency: "USD",
		Method: schema.MethodWalletA, Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: 2}
	f := o.Fields()
	if err := e.rdb.HSet(ctx, schema.OrderKey(5, o.ID), f[2:]).Err(); err != nil { // the hash holds no id
		t.Fatal(err)
	}
	if err := e.rdb.ZAdd(ctx, schema.ExpiryKey(5), redis.Z{Score: float64(at.UnixMilli()), Member: o.ID}).Err(); err != nil {
		t.Fatal(err)
	}
	if moved, _, err := command.NewStore(e.rdb, time.Minute, time.Hour).Expire(ctx, o.ID, at.Add(time.Minute)); err != nil || !moved {
		t.Fatalf("expire: moved %v, %v", moved, err)
	}
	e.run(t)
	eventually(t, 20*time.Second, "the expiry scheduled", func() bool { return len(e.sched.taken()) == 1 && e.pending(t) == 0 })
	want := fmt.Sprintf("3606 order.expired order:%s [%s]", o.ID, expiredEP)
	if got := e.sched.taken()[0].String(); got != want {
		t.Fatalf("scheduled %s, want %s", got, want)
	}
}
