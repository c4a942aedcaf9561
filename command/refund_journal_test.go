package command

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// setTerms gives the harness's merchant terms t and waits until the
// command side's account directory reads them.
func setTerms(t *testing.T, h *harness, terms merchant.Terms) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.accounts.SetTerms(ctx, h.acct.AppID, terms); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		a, err := h.uc.Balance.accounts.Lookup(ctx, h.acct.AppID)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(a.Terms, terms) {
			return
		}
		h.store.rdb.Ping(ctx) // yield a round trip while the cache refreshes
	}
	t.Fatal("the directory never read the new terms")
}

// postPayment posts the paid order's payment (as the ledger role does) and
// takes take from the merchant's pending CNY by an adjustment: the money
// went out some other way.
func postPayment(t *testing.T, h *harness, id string, take schema.Amount) {
	t.Helper()
	ctx := context.Background()
	o := h.order(t, id)
	a, err := h.accounts.Get(ctx, o.AppID)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := journal.PaymentTx(o, a.Terms, journal.Source(o), false)
	if err != nil {
		t.Fatal(err)
	}
	j := h.store.Journal()
	if res, err := j.Post(ctx, tx); err != nil || res.Outcome != journal.Posted {
		t.Fatalf("post the payment: %+v %v", res, err)
	}
	if take == 0 {
		return
	}
	adj := journal.Tx{Key: "adjustment:t" + id, Kind: journal.KindAdjustment, AppID: o.AppID, Memo: "test", By: "test",
		Postings: []journal.Posting{{Account: journal.Merchant(o.AppID, journal.Pending), Currency: "CNY", Amount: -take},
			{Account: journal.Adjust, Currency: "CNY", Amount: take}}}
	if res, err := j.Post(ctx, adj); err != nil || res.Outcome != journal.Posted {
		t.Fatalf("take pending: %+v %v", res, err)
	}
}

func cnyBalance(t *testing.T, h *harness) journal.Balance {
	t.Helper()
	b, err := h.store.Journal().Balance(context.Background(), h.acct.AppID, "CNY")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProviderRefundBeyondBalance: a provider refund the merchant's
// balance does not cover is a 422 naming the balance and what to do; the
// provider is never asked, nothing moves, the amount is free again. With
// terms that allow a negative balance the same refund goes through.
func TestProviderRefundBeyondBalance(t *testing.T) {
	for _, tt := range []struct {
		name     string
		negative bool
	}{{"refused", false}, {"allowed negative", true}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			f := withRefunds(h)
			if tt.negative {
				terms := merchant.DefaultTerms()
				terms.AllowNegative = true
				setTerms(t, h, terms)
			}
			id := paidOrder(t, h, "wallet_a")
			postPayment(t, h, id, 95_00) // 5.00 pending left
			before := cnyBalance(t, h)
			entries := len(journalEntries(t, h.rdb, h.acct.AppID))
			r := h.refund(refundParams(h, id, "10"))
			if tt.negative {
				b := cnyBalance(t, h)
				if r.Status != 200 || r.Data(t)["status"] != "succeeded" || b.Pending != 0 || b.Available != -5_00 || f.calls.Load() != 1 {
					t.Fatalf("allowed negative: %s, balance %+v, provider asked %d", r.Raw, b, f.calls.Load())
				}
				return
			}
			if r.Status != 422 || r.Body.Error != "insufficient_balance" || !strings.Contains(r.Raw, "5.00 pending") ||
				!strings.Contains(r.Raw, "operator") {
				t.Fatalf("refund beyond the balance: %d %s", r.Status, r.Raw)
			}
			if f.calls.Load() != 0 {
				t.Fatal("the provider was asked for a refund the balance does not cover")
			}
			if got := cnyBalance(t, h); got != before || len(journalEntries(t, h.rdb, h.acct.AppID)) != entries {
				t.Fatalf("money moved: %+v, was %+v", got, before)
			}
			o := h.order(t, id)
			rs, err := h.store.Refunds(context.Background(), id)
			if o.RefundReserved != 0 || o.Refunded != 0 || err != nil || len(rs) != 1 || rs[0].Status != schema.RefundFailed ||
				!strings.Contains(rs[0].Error, "does not cover") {
				t.Fatalf("order reserved %s refunded %s, refunds %+v %v", o.RefundReserved, o.Refunded, rs, err)
			}
		})
	}
}

// TestProviderRefundFee: the fee the order recorded comes back to the
// merchant in proportion when its terms say so; otherwise the merchant
// refunds the whole amount from what it got (the net), and a balance of
// only the net does not cover a full refund.
func TestProviderRefundFee(t *testing.T) {
	for _, tt := range []struct {
		name    string
		returns bool
		status  int
	}{{"fee returned", true, 200}, {"fee kept", false, 422}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			withRefunds(h)
			terms := merchant.DefaultTerms()
			terms.RefundReturnsFee = tt.returns
			setTerms(t, h, terms)
			id := paidOrder(t, h, "wallet_a")
			shard, _ := schema.ParseOrderID(id)
			fee := schema.FeeSchedule{Bps: 250} // 2.5%: 2.50 of 100.00
			h.rdb.HSet(context.Background(), schema.OrderKey(shard, id), "fee", fee.String())
			r := h.refund(refundParams(h, id, "100"))
			if r.Status != tt.status {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			fees, err := h.store.Journal().PlatformBalances(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			b := cnyBalance(t, h)
			if tt.returns && (b.Pending != 0 || b.Available != 0 || fees[journal.Fees]["CNY"] != 0) {
				t.Fatalf("fee returned: balance %+v, platform fees %v", b, fees[journal.Fees])
			}
			if !tt.returns && (b.Pending != 97_50 || fees[journal.Fees]["CNY"] != 2_50) {
				t.Fatalf("fee kept: balance %+v, platform fees %v", b, fees[journal.Fees])
			}
		})
	}
}

// TestRefundsAndBalancePaymentsRace: refunds of a provider order and the
// merchant's own balance orders race for the same balance (-race): every
// call is paid or refused, none overdraws, and what is left is exactly
// what was there less what succeeded.
func TestRefundsAndBalancePaymentsRace(t *testing.T) {
	h := newRedisHarness(t)
	f := withRefunds(h)
	ctx := context.Background()
	id := paidOrder(t, h, "wallet_a")                       // 100.00 CNY, pending once posted
	journaltest.TopUp(t, h.rdb, h.acct.AppID, "CNY", 50_00) // 50.00 available
	p := h.baseParams()
	p["paymentMethod"], p["amount"] = "balance", "10"
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	count := func(what string, status int) {
		mu.Lock()
		defer mu.Unlock()
		statuses[what+" "+string(rune('0'+status/100))]++
	}
	for i := range 10 {
		wg.Go(func() {
			count("refund", h.refund(refundParams(h, id, "10", "clientRefundId", "r"+string(rune('a'+i)))).Status)
		})
		wg.Go(func() {
			q := schema.Params{}
			for k, v := range p {
				q[k] = v
			}
			q["clientOrderId"] = "b" + string(rune('a'+i))
			count("balance", h.post(signed(q, h.acct.APIKey)).Status)
		})
	}
	wg.Wait()
	refunds, orders := statuses["refund 2"], statuses["balance 2"]
	if refunds+statuses["refund 4"] != 10 || orders+statuses["balance 4"] != 10 {
		t.Fatalf("statuses %v: every call is paid (2xx) or refused (4xx)", statuses)
	}
	b := cnyBalance(t, h)
	if b.Available < 0 || b.Pending < 0 || b.Available+b.Pending != 150_00-schema.Amount(refunds+orders)*10_00 {
		t.Fatalf("balance %+v after %d refunds and %d balance orders", b, refunds, orders)
	}
	if int(f.calls.Load()) != refunds {
		t.Fatalf("provider asked %d times for %d refunds", f.calls.Load(), refunds)
	}
	if o := h.order(t, id); o.Refunded != schema.Amount(refunds)*10_00 {
		t.Fatalf("order refunded %s, %d refunds", o.Refunded, refunds)
	}
	_ = ctx
}
