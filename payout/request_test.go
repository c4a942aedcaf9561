package payout

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestRequestHoldsAndQueues: a payout takes its amount and fee from
// available into payout_hold in the step that records it, queues it for
// review, and writes its event.
func TestRequestHoldsAndQueues(t *testing.T) {
	e := newEnv(t, Defaults())
	ctx := context.Background()
	e.j.TopUp(ctx, "", "1001", "USD", money(t, "100.00"), nil)
	d := e.usable(t, bank("1001"))
	p, replayed, err := e.s.Request(ctx, Ask{AppID: "1001", Destination: d.ID, Currency: "USD", Amount: money(t, "60.00"),
		By: "user:u1", Limits: Limits{Fee: money(t, "1.50")}}, entry("u1"))
	if err != nil || replayed || p.State != Requested || p.Held() != money(t, "61.50") {
		t.Fatalf("request: %+v, %v, %v", p, replayed, err)
	}
	if b := e.balance(t, "1001", "USD"); b.Available != money(t, "38.50") || b.PayoutHold != money(t, "61.50") {
		t.Fatalf("balance after the request %+v", b)
	}
	queued, err := e.s.Queue(ctx, true, 10)
	if err != nil || len(queued) != 1 || queued[0].ID != p.ID {
		t.Fatalf("review queue %+v, %v", queued, err)
	}
	evs, err := e.rdb.XRange(ctx, schema.PayoutEventsKey(schema.HomeShard("1001")), "-", "+").Result()
	if err != nil || len(evs) != 2 || evs[1].Values["type"] != "payout.requested" || evs[1].Values["id"] != p.ID {
		t.Fatalf("payout events %+v, %v", evs, err)
	}
}

// TestRequestRefusals: every request that must move nothing.
func TestRequestRefusals(t *testing.T) {
	e := newEnv(t, Defaults())
	ctx := context.Background()
	e.j.TopUp(ctx, "", "1001", "USD", money(t, "100.00"), nil)
	e.j.TopUp(ctx, "", "2002", "USD", money(t, "100.00"), nil)
	mine := e.usable(t, bank("1001"))
	theirs := e.usable(t, bank("2002"))
	wallet := e.usable(t, usdtTRC("1001"))
	gone := e.usable(t, bank("1001"))
	if err := e.s.RemoveDestination(ctx, "1001", gone.ID, "merchant:u1", entry("u1")); err != nil {
		t.Fatal(err)
	}
	fresh, err := e.s.AddDestination(ctx, bank("1001"), "merchant:u1", entry("u1"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ask  Ask
		kind platform.Kind
	}{
		{"below the minimum", Ask{Destination: mine.ID, Currency: "USD", Amount: 999, Limits: Limits{Min: 1000}}, platform.KindBelowMinimum},
		{"more than available", Ask{Destination: mine.ID, Currency: "USD", Amount: 10001}, platform.KindInsufficientFunds},
		{"the fee makes it more than available", Ask{Destination: mine.ID, Currency: "USD", Amount: 10000, Limits: Limits{Fee: 1}}, platform.KindInsufficientFunds},
		{"a destination cooling off", Ask{Destination: fresh.ID, Currency: "USD", Amount: 100}, platform.KindConflict},
		{"a removed destination", Ask{Destination: gone.ID, Currency: "USD", Amount: 100}, platform.KindConflict},
		{"another merchant's destination", Ask{Destination: theirs.ID, Currency: "USD", Amount: 100}, platform.KindNotFound},
		{"an unknown destination", Ask{Destination: "1001-x-y", Currency: "USD", Amount: 100}, platform.KindNotFound},
		{"USDT from a CNY balance", Ask{Destination: wallet.ID, Currency: "CNY", Amount: 100}, platform.KindInvalidParameter},
		{"zero", Ask{Destination: mine.ID, Currency: "USD", Amount: 0}, platform.KindInvalidParameter},
		{"negative", Ask{Destination: mine.ID, Currency: "USD", Amount: -100}, platform.KindInvalidParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ask.AppID, tt.ask.By = "1001", "user:u1"
			_, _, err := e.s.Request(ctx, tt.ask, entry("u1"))
			if platform.KindOf(err) != tt.kind {
				t.Fatalf("request: %v, want %s", err, tt.kind)
			}
			if b := e.balance(t, "1001", "USD"); b.Available != money(t, "100.00") || b.PayoutHold != 0 {
				t.Fatalf("a refused request moved money: %+v", b)
			}
		})
	}
}

// TestConcurrentRequestsNeverOverspend: twenty requests of 10.00 against
// 100.00 at once: exactly ten hold, none takes available below zero.
func TestConcurrentRequestsNeverOverspend(t *testing.T) {
	e := newEnv(t, Defaults())
	ctx := context.Background()
	e.j.TopUp(ctx, "", "1001", "USD", money(t, "100.00"), nil)
	d := e.usable(t, bank("1001"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	held, short := 0, 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := e.s.Request(ctx, Ask{AppID: "1001", Destination: d.ID, Currency: "USD", Amount: 1000,
				By: "api", IdempotencyKey: fmt.Sprintf("k%d", i)}, entry("api"))
			mu.Lock()
			defer mu.Unlock()
			switch platform.KindOf(err) {
			case "":
				held++
			case platform.KindInsufficientFunds:
				short++
			default:
				t.Errorf("request %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if b := e.balance(t, "1001", "USD"); held != 10 || short != 10 || b.Available != 0 || b.PayoutHold != money(t, "100.00") {
		t.Fatalf("%d held, %d refused, balance %+v", held, short, b)
	}
}

// TestIdempotencyKey: the same key and request give the same payout and
// hold once; the same key for another request is refused.
func TestIdempotencyKey(t *testing.T) {
	e := newEnv(t, Defaults())
	ctx := context.Background()
	e.j.TopUp(ctx, "", "1001", "USD", money(t, "100.00"), nil)
	d := e.usable(t, bank("1001"))
	ask := Ask{AppID: "1001", Destination: d.ID, Currency: "USD", Amount: 2500, By: "api", IdempotencyKey: "order-77"}
	first, _, err := e.s.Request(ctx, ask, entry("api"))
	if err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(time.Minute)
	again, replayed, err := e.s.Request(ctx, ask, entry("api"))
	if err != nil || !replayed || again.ID != first.ID {
		t.Fatalf("replay: %+v, %v, %v; want payout %s", again, replayed, err, first.ID)
	}
	ask.Amount = 2600
	if _, _, err := e.s.Request(ctx, ask, entry("api")); platform.KindOf(err) != platform.KindIdempotencyMismatch {
		t.Fatalf("the key for another amount: %v", err)
	}
	if b := e.balance(t, "1001", "USD"); b.PayoutHold != 2500 {
		t.Fatalf("held %s, want 25.00 once", b.PayoutHold)
	}
}
