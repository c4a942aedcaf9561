package ledger

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// dueAt is when a payment paid at paidAt settles under the default terms.
var dueAt = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

func (e *env) settler(now time.Time) *Settler {
	e.t.Helper()
	cfg := fastConfig("s")
	cfg.Now = func() time.Time { return now }
	s, err := NewSettler(cfg, e.rdb, e.j, prometheus.NewRegistry(), quiet())
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// pay posts a payment of o under appid's terms, as the Poster would.
func (e *env) pay(o *schema.Order) {
	e.t.Helper()
	tx, err := journal.PaymentTx(o, e.acc[o.AppID], journal.Source(o), false)
	if err != nil {
		e.t.Fatal(err)
	}
	if r, err := e.j.Post(context.Background(), tx); err != nil || r.Outcome != journal.Posted {
		e.t.Fatalf("post %s: %v %v", tx.Key, r.Outcome, err)
	}
}

func (e *env) refund(o *schema.Order, id string, amt schema.Amount) journal.Outcome {
	e.t.Helper()
	tx, err := journal.RefundTx(o, refundOf(o, id, amt, schema.RefundPending), e.acc[o.AppID], journal.Source(o))
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := e.j.Post(context.Background(), tx)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.Outcome
}

func (e *env) pass(s *Settler) PassReport {
	e.t.Helper()
	r, err := s.Pass(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestSettlerMovesWhatIsDueOnce(t *testing.T) {
	e := newEnv(t)
	e.acc["3003"] = merchant.Terms{DelayDays: 3, TimeZone: "UTC"}
	e.acc["3004"] = merchant.Terms{DelayDays: 1, TimeZone: "UTC", ReserveBps: 1000, ReserveDays: 7}
	a, b := e.order("3001", 100_00, ""), e.order("3001", 50_00, "100:0:0:0")
	later, reserved := e.order("3003", 70_00, ""), e.order("3004", 200_00, "")
	for _, o := range []*schema.Order{a, b, later, reserved} {
		e.pay(o)
	}
	s := e.settler(dueAt.Add(time.Hour))
	if r := e.pass(s); r.Settled != 3 || r.Due != 0 {
		t.Fatalf("first pass %+v, want 3 settled, none left due", r)
	}
	if r := e.pass(s); r.Settled != 0 {
		t.Fatalf("second pass settled %d again", r.Settled)
	}
	if bal := e.balance("3001"); bal.Pending != 0 || bal.Available != 149_50 {
		t.Fatalf("3001 %+v, want 149.50 available", bal)
	}
	if bal := e.balance("3003"); bal.Pending != 70_00 {
		t.Fatalf("3003 %+v: settled before its day", bal)
	}
	if bal := e.balance("3004"); bal.Available != 180_00 || bal.Reserve != 20_00 {
		t.Fatalf("3004 %+v, want 180 available and 20 in reserve", bal)
	}
	e.pass(e.settler(dueAt.Add(8 * 24 * time.Hour)))
	if bal := e.balance("3004"); bal.Available != 200_00 || bal.Reserve != 0 {
		t.Fatalf("3004 after the hold %+v, want the reserve released", bal)
	}
	if bal := e.balance("3003"); bal.Available != 70_00 {
		t.Fatalf("3003 %+v, want settled on its day", bal)
	}
}

// A refund that took pending money before its payment settled makes the
// settlement smaller (or none), never refused and never stuck in the index.
func TestSettlementClampedToWhatPendingHolds(t *testing.T) {
	tests := []struct {
		name            string
		refund          schema.Amount
		wantAvail       schema.Amount
		wantSettlements int
	}{
		{"no refund", 0, 100_00, 1},
		{"part refunded", 60_00, 40_00, 1},
		{"all refunded", 100_00, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.order("3001", 100_00, "")
			e.pay(o)
			if tt.refund > 0 {
				if out := e.refund(o, "rf", tt.refund); out != journal.Posted {
					t.Fatalf("refund %v", out)
				}
			}
			if r := e.pass(e.settler(dueAt)); r.Settled != 1 || r.Due != 0 {
				t.Fatalf("pass %+v, want the move done", r)
			}
			if bal := e.balance("3001"); bal.Available != tt.wantAvail || bal.Pending != 0 {
				t.Fatalf("balance %+v, want %d available, none pending", bal, tt.wantAvail)
			}
			if n := len(e.entries()["settlement:"+o.ID]); n != tt.wantSettlements {
				t.Fatalf("%d settlement entries, want %d", n, tt.wantSettlements)
			}
		})
	}
}

// A settler killed between posting a move and removing it from the index:
// the next pass replays the posting and removes the move; the money moved
// once.
func TestSettlerCrashBetweenPostAndRemove(t *testing.T) {
	e := newEnv(t)
	o := e.order("3001", 100_00, "")
	e.pay(o)
	dying := e.settler(dueAt)
	dying.crashAfterPost = func() bool { return true }
	e.pass(dying)
	if bal := e.balance("3001"); bal.Available != 100_00 {
		t.Fatalf("the dying settler did not post: %+v", bal)
	}
	if r := e.pass(e.settler(dueAt)); r.Settled != 1 || r.Due != 0 {
		t.Fatalf("the next pass %+v, want the move replayed and removed", r)
	}
	if bal := e.balance("3001"); bal.Available != 100_00 || bal.Pending != 0 {
		t.Fatalf("balance %+v, want settled once", bal)
	}
	if n := len(e.entries()["settlement:"+o.ID]); n != 1 {
		t.Fatalf("%d settlement entries, want 1", n)
	}
}

func TestTwoSettlersAtOnce(t *testing.T) {
	e := newEnv(t)
	var total schema.Amount
	for i := range 300 {
		o := e.order(fmt.Sprint(3100+i%7), schema.Amount(1000+i), "")
		e.acc[o.AppID] = merchant.DefaultTerms()
		e.pay(o)
		total += o.Amount
	}
	settle := func() {
		s := e.settler(dueAt)
		for {
			if r := e.pass(s); r.Due == 0 {
				return
			}
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); settle() }()
	}
	wg.Wait()
	var avail schema.Amount
	for i := range 7 {
		bal := e.balance(fmt.Sprint(3100 + i))
		avail += bal.Available
		if bal.Pending != 0 {
			t.Fatalf("merchant %d still has %d pending", 3100+i, bal.Pending)
		}
	}
	if avail != total {
		t.Fatalf("%d available over the merchants, want %d", avail, total)
	}
}

// Settlers racing refunds and balance payments (run with -race): whatever
// the interleaving, no merchant bucket goes below zero, nothing is settled
// twice, and the journal holds (the env's check at the end).
func TestSettlerRacesRefundsAndBalancePayments(t *testing.T) {
	e := newEnv(t)
	var orders []*schema.Order
	for range 120 {
		o := e.order("3001", 10_00, "")
		e.pay(o)
		orders = append(orders, o)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := e.settler(dueAt)
			for range 40 {
				e.pass(s)
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i, o := range orders {
			e.refund(o, fmt.Sprintf("rf%d", i), schema.Amount(1_00+i*7%9_00))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 120 {
			tx := journal.Tx{Key: fmt.Sprintf("balance_debit:x%d:1", i), Kind: journal.KindBalanceDebit, AppID: "3001",
				RecordRefusal: true, Postings: []journal.Posting{
					{Account: journal.Merchant("3001", journal.Available), Currency: "USD", Amount: -3_00},
					{Account: journal.Transit, Currency: "USD", Amount: 3_00}}}
			if _, err := e.j.Post(context.Background(), tx); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	e.pass(e.settler(dueAt))
	bal := e.balance("3001")
	if bal.Pending < 0 || bal.Available < 0 {
		t.Fatalf("balance went negative: %+v", bal)
	}
	if bal.Pending != 0 {
		t.Fatalf("%d still pending after the last pass", bal.Pending)
	}
	for key, es := range e.entries() {
		if len(es) > 1 {
			t.Fatalf("%s posted %d times", key, len(es))
		}
	}
}
