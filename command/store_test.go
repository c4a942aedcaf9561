package command

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// The order scripts at the Store's edge, on the real Redis: what each writes,
// and that a call which does not apply writes nothing at all.

// TestCreateScript: create.lua stores a new order with its event, index
// entry, counter and clientOrderId; a replay of a live order writes nothing.
func TestCreateScript(t *testing.T) {
	tests := []struct {
		name    string
		coid    string
		holder  schema.Status // status of an earlier order with the same clientOrderId, or -1
		created bool
	}{
		{"new order", "N-1", -1, true},
		{"no clientOrderId", "", -1, true},
		{"replay of a pending order", "R-1", schema.StatusPending, false},
		{"replay of a ready order", "R-2", schema.StatusReady, false},
		{"after the holder was paid", "F-1", schema.StatusPaid, true},
		{"after the holder failed", "F-2", schema.StatusFailed, true},
		{"after the holder was cancelled", "F-3", schema.StatusCancelled, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			ctx := context.Background()
			var holder *schema.Order
			if tt.holder >= 0 {
				holder = h.storeOrder(tt.coid, 100_00, "CNY", false)
				if _, created, err := h.store.Create(ctx, holder); err != nil || !created {
					t.Fatalf("holder: %v %v", created, err)
				}
				if tt.holder != schema.StatusPending {
					if moved, err := h.store.Transition(ctx, holder.ID, tt.holder, time.Now()); err != nil || !moved {
						t.Fatalf("holder to %s: %v %v", tt.holder, moved, err)
					}
				}
			}
			o := h.storeOrder(tt.coid, 5_00, "CNY", false)
			before := h.snapshot(o)
			id, created, err := h.store.Create(ctx, o)
			if err != nil || created != tt.created {
				t.Fatalf("create: created %v, %v; want created %v", created, err, tt.created)
			}
			after := h.snapshot(o)
			if !tt.created {
				if id != holder.ID {
					t.Fatalf("replay answered %s, want the live order %s", id, holder.ID)
				}
				if len(after.hash) != 0 || after.events != before.events || after.indexed || after.counter != before.counter ||
					after.coidHeld != holder.ID || !maps.Equal(after.byStatus, before.byStatus) {
					t.Fatalf("a replay wrote: before %+v, after %+v", before, after)
				}
				return
			}
			if id != o.ID {
				t.Fatalf("created %s, want %s", id, o.ID)
			}
			if after.hash[schema.FStatus] != "0" || schema.RecordField(func(k string) string { return after.hash[k] }, schema.FAmount) != "500" || after.ttl != -1 {
				t.Fatalf("stored %v, ttl %v", after.hash, after.ttl)
			}
			if after.events != before.events+1 || after.counter != before.counter+1 || !after.indexed ||
				!countsMoved(before.byStatus, after.byStatus, -1, schema.StatusPending) {
				t.Fatalf("before %+v, after %+v", before, after)
			}
			shard, _ := schema.ParseOrderID(o.ID)
			due := schema.ExpiryBucketSecond(o.CreatedAt.Add(time.Minute).UnixMilli()) // the harness's TTL
			if pos, err := h.rdb.LPos(ctx, schema.ExpiryBucketKey(shard, due), o.ID, redis.LPosArgs{}).Result(); err != nil {
				t.Fatalf("not in the expiry bucket of second %d: %d, %v", due, pos, err)
			}
			want := ""
			if tt.coid != "" {
				want = o.ID
			}
			if after.coidHeld != want {
				t.Fatalf("clientOrderId held by %q, want %q", after.coidHeld, want)
			}
			ev := h.lastEvent(o.ID)
			if ev.Type != schema.EventCreated || ev.Order.ID != o.ID || ev.Version != 1 || ev.Order.Amount != 5_00 {
				t.Fatalf("event %+v", ev)
			}
		})
	}
}

// TestTransitionScript runs transition.lua through DESIGN.md's table: a move
// that applies bumps the version, emits one event and, into a final status,
// starts the retention, leaves the expiry index and frees the clientOrderId;
// one that does not apply writes nothing at all and emits nothing.
func TestTransitionScript(t *testing.T) {
	const (
		pending   = schema.StatusPending
		ready     = schema.StatusReady
		paid      = schema.StatusPaid
		failed    = schema.StatusFailed
		cancelled = schema.StatusCancelled
	)
	tests := []struct {
		name  string
		path  []schema.Status // moves made first, each of which must apply
		to    schema.Status
		moved bool
	}{
		{"pending to ready", nil, ready, true},
		{"pending to paid", nil, paid, true},
		{"ready to paid", []schema.Status{ready}, paid, true},
		{"ready to failed", []schema.Status{ready}, failed, true},
		{"ready to cancelled", []schema.Status{ready}, cancelled, true},
		{"late payment of a failed order", []schema.Status{ready, failed}, paid, true},
		{"late payment of a cancelled order", []schema.Status{cancelled}, paid, true},
		{"pending again", nil, pending, false},
		{"ready again", []schema.Status{ready}, ready, false},
		{"paid again", []schema.Status{ready, paid}, paid, false},
		{"paid order cannot fail", []schema.Status{paid}, failed, false},
		{"paid order cannot be cancelled", []schema.Status{paid}, cancelled, false},
		{"paid order is not ready again", []schema.Status{paid}, ready, false},
		{"failed again", []schema.Status{failed}, failed, false},
		{"failed order cannot be cancelled", []schema.Status{failed}, cancelled, false},
		{"cancelled order cannot fail", []schema.Status{cancelled}, failed, false},
		{"ready order is not pending again", []schema.Status{ready}, pending, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			ctx := context.Background()
			o := h.storeOrder("T-1", 100_00, "CNY", false)
			if _, created, err := h.store.Create(ctx, o); err != nil || !created {
				t.Fatalf("create: %v %v", created, err)
			}
			for _, st := range tt.path {
				if moved, err := h.store.Transition(ctx, o.ID, st, time.Now()); err != nil || !moved {
					t.Fatalf("path move to %s: %v %v", st, moved, err)
				}
			}
			before := h.snapshot(o)
			at := time.Now().Add(time.Second).Truncate(time.Millisecond)
			extra := []string{schema.FQRPayload, "qr-after-" + tt.to.String()}
			moved, err := h.store.Transition(ctx, o.ID, tt.to, at, extra...)
			if err != nil || moved != tt.moved {
				t.Fatalf("transition to %s: moved %v, %v; want moved %v", tt.to, moved, err, tt.moved)
			}
			after := h.snapshot(o)
			if !tt.moved {
				if !maps.Equal(after.hash, before.hash) || after.events != before.events || after.indexed != before.indexed ||
					after.coidHeld != before.coidHeld || (after.ttl < 0) != (before.ttl < 0) || !maps.Equal(after.byStatus, before.byStatus) {
					t.Fatalf("a move that does not apply wrote: before %+v, after %+v", before, after)
				}
				return
			}
			ms := strconv.FormatInt(at.UnixMilli(), 10)
			v, _ := strconv.Atoi(before.hash[schema.FVersion])
			if after.hash[schema.FStatus] != strconv.Itoa(int(tt.to)) || after.hash[schema.FVersion] != strconv.Itoa(v+1) ||
				after.hash[schema.FUpdatedAt] != ms || after.hash[schema.FQRPayload] != extra[1] {
				t.Fatalf("order after the move: %v", after.hash)
			}
			if (after.hash[schema.FCompletedAt] == ms) != (tt.to == paid) {
				t.Fatalf("completed time %q after a move to %s at %s", after.hash[schema.FCompletedAt], tt.to, ms)
			}
			if after.events != before.events+1 {
				t.Fatalf("%d events after the move, %d before", after.events, before.events)
			}
			from, _ := strconv.Atoi(before.hash[schema.FStatus])
			if !countsMoved(before.byStatus, after.byStatus, schema.Status(from), tt.to) {
				t.Fatalf("status counters %v after the move from %d to %s, %v before", after.byStatus, from, tt.to, before.byStatus)
			}
			ev := h.lastEvent(o.ID)
			if ev.Type != schema.EventFor(tt.to) || ev.Order.ID != o.ID || ev.Version != int64(v+1) ||
				ev.Order.Status != tt.to || !ev.At.Equal(at) {
				t.Fatalf("event %+v", ev)
			}
			if tt.to.Final() {
				if after.ttl <= 0 || after.ttl > time.Hour || after.indexed || after.coidHeld != "" {
					t.Fatalf("finished order: ttl %v (retention 1h), indexed %v, clientOrderId held by %q",
						after.ttl, after.indexed, after.coidHeld)
				}
			} else if after.ttl != -1 || !after.indexed || after.coidHeld != o.ID {
				t.Fatalf("live order: ttl %v, indexed %v, clientOrderId held by %q", after.ttl, after.indexed, after.coidHeld)
			}
		})
	}
}

// TestTransitionUnknownOrder: no order, no write, no event.
func TestTransitionUnknownOrder(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	before := h.keys()
	for _, id := range []string{h.storeOrder("", 1_00, "CNY", false).ID, "../x"} {
		if moved, err := h.store.Transition(ctx, id, schema.StatusPaid, time.Now()); !errors.Is(err, ErrOrderNotFound) || moved {
			t.Fatalf("transition of %s: %v %v", id, moved, err)
		}
	}
	if after := h.keys(); !slices.Equal(after, before) {
		t.Fatalf("keys %v after transitions of unknown orders, %v before", after, before)
	}
}

// TestFinishedOrderKeepsNewerClientOrderID: a late payment of a failed order
// does not free the clientOrderId a newer order now holds.
func TestFinishedOrderKeepsNewerClientOrderID(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	old := h.storeOrder("K-1", 100_00, "CNY", false)
	if _, created, err := h.store.Create(ctx, old); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	if moved, err := h.store.Transition(ctx, old.ID, schema.StatusFailed, time.Now()); err != nil || !moved {
		t.Fatalf("fail: %v %v", moved, err)
	}
	newer := h.storeOrder("K-1", 100_00, "CNY", false)
	if _, created, err := h.store.Create(ctx, newer); err != nil || !created {
		t.Fatalf("create again: %v %v", created, err)
	}
	if moved, err := h.store.Transition(ctx, old.ID, schema.StatusPaid, time.Now()); err != nil || !moved {
		t.Fatalf("late payment: %v %v", moved, err)
	}
	if s := h.snapshot(newer); s.coidHeld != newer.ID {
		t.Fatalf("clientOrderId held by %q, want the newer order %s", s.coidHeld, newer.ID)
	}
	if id, created, err := h.store.Create(ctx, h.storeOrder("K-1", 100_00, "CNY", false)); err != nil || created || id != newer.ID {
		t.Fatalf("a create with the clientOrderId: %s created %v, %v; want a replay of %s", id, created, err, newer.ID)
	}
}

// TestPayBalanceScript: pay_balance.lua posts the journal transaction
// balance_order:<id>, writes the paid order with its retention, the counter
// and one paid event, or, when the available balance does not cover the
// amount, nothing at all.
func TestPayBalanceScript(t *testing.T) {
	tests := []struct {
		name     string
		credit   schema.Amount // USD credited first, if any
		currency string
		amount   schema.Amount
		ok       bool
		balance  schema.Amount // returned when refused: what there is
	}{
		{"covered", 100_00, "USD", 40_00, true, 0},
		{"exactly the balance", 100_00, "USD", 100_00, true, 0},
		{"one cent short", 100_00, "USD", 100_01, false, 100_00},
		{"no balance at all", 0, "USD", 1, false, 0},
		{"another currency's balance", 100_00, "CNY", 1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			ctx := context.Background()
			if tt.credit > 0 {
				if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", tt.credit); err != nil {
					t.Fatal(err)
				}
			}
			ledger := func() int64 {
				t.Helper()
				n, err := h.rdb.XLen(ctx, schema.JournalKey(schema.HomeShard(h.acct.AppID))).Result()
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			o := h.storeOrder("", tt.amount, tt.currency, true)
			before, ledgerBefore := h.snapshot(o), ledger()
			bal, err := h.store.CreatePaidFromBalance(ctx, o)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInsufficientBalance)) || bal != tt.balance {
				t.Fatalf("pay %d %s: balance %d, %v; want %d, ok %v", tt.amount, tt.currency, bal, err, tt.balance, tt.ok)
			}
			after, ledgerAfter := h.snapshot(o), ledger()
			usd := tt.credit
			if tt.ok && tt.currency == "USD" {
				usd -= tt.amount
			}
			wantBalance(t, h, "USD", usd)
			if !tt.ok {
				if len(after.hash) != 0 || after.events != before.events || after.counter != before.counter || ledgerAfter != ledgerBefore ||
					!maps.Equal(after.byStatus, before.byStatus) {
					t.Fatalf("a refused payment wrote: before %+v (ledger %d), after %+v (ledger %d)",
						before, ledgerBefore, after, ledgerAfter)
				}
				return
			}
			if after.hash[schema.FStatus] != "2" || after.hash[schema.FPaidBalance] != "1" || after.ttl <= 0 || after.ttl > time.Hour ||
				after.indexed {
				t.Fatalf("paid order %v, ttl %v, indexed %v", after.hash, after.ttl, after.indexed)
			}
			if after.events != before.events+1 || after.counter != before.counter+1 || ledgerAfter != ledgerBefore+1 ||
				!countsMoved(before.byStatus, after.byStatus, -1, schema.StatusPaid) {
				t.Fatalf("before %+v (ledger %d), after %+v (ledger %d)", before, ledgerBefore, after, ledgerAfter)
			}
			if ev := h.lastEvent(o.ID); ev.Type != schema.EventPaid || ev.Order.ID != o.ID || ev.Order.Status != schema.StatusPaid {
				t.Fatalf("event %+v", ev)
			}
			all := journalEntries(t, h.rdb, h.acct.AppID)
			last := all[len(all)-1]
			want := []journal.Posting{{Account: journal.Merchant(h.acct.AppID, journal.Available), Currency: tt.currency, Amount: -tt.amount},
				{Account: journal.Spent, Currency: tt.currency, Amount: tt.amount}}
			if last.Key != "balance_order:"+o.ID || last.Kind != journal.KindBalanceOrder || last.Ref != o.ID ||
				!last.At.Equal(o.CreatedAt.Truncate(time.Millisecond)) || !slices.Equal(last.Postings, want) {
				t.Fatalf("journal entry %+v, want postings %+v", last, want)
			}
		})
	}
}
