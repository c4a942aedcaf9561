package journal_test

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

var paidAt = time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)

func paidOrder(id string, amt schema.Amount, fee string) *schema.Order {
	return &schema.Order{ID: id, AppID: "2001", Amount: amt, Currency: "USD", Method: schema.MethodWalletA,
		Status: schema.StatusPaid, Fee: fee, CompletedAt: paidAt, Version: 3}
}

func TestPaymentFeeAndSettlement(t *testing.T) {
	j, rdb := newJournal(t)
	ctx := context.Background()
	o := paidOrder("o-pay", 100_00, "290:30:0:0")
	tx, err := journal.PaymentTx(o, merchant.DefaultTerms(), journal.Source(o), false)
	if err != nil {
		t.Fatal(err)
	}
	post(t, j, tx)
	b, _ := j.Balance(ctx, "2001", "USD")
	if b.Pending != 96_80 || b.Available != 0 {
		t.Fatalf("after payment: %+v, want pending 96.80", b)
	}
	if tx.Due == nil || !tx.Due.At.Equal(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("due %+v, want D+1 00:00 UTC", tx.Due)
	}
	due, _ := rdb.ZRange(ctx, tx.Due.Key, 0, -1).Result()
	move, err := journal.ParseDueMove(due[0])
	if err != nil {
		t.Fatal(err)
	}
	post(t, j, move.Tx(tx.Due.At))
	if b, _ = j.Balance(ctx, "2001", "USD"); b.Pending != 0 || b.Available != 96_80 {
		t.Fatalf("after settlement: %+v", b)
	}
	p, _ := j.PlatformBalances(ctx)
	if p[journal.Fees]["USD"] != 3_20 || p[journal.Source(o)]["USD"] != -100_00 {
		t.Fatalf("platform %v", p)
	}
}

func TestConvertedPaymentAndRefundThroughFX(t *testing.T) {
	j, _ := newJournal(t)
	ctx := context.Background()
	o := paidOrder("o-fx", 10_00, "")
	o.ChargeAmount, o.ChargeCurrency, o.FXRate = 1200_00, "BDT", "120"
	tx, _ := journal.PaymentTx(o, merchant.Terms{Instant: true}, journal.Source(o), false)
	post(t, j, tx)
	r := &schema.Refund{ID: "rf_fx", OrderID: o.ID, Amount: 2_50, Currency: "USD"}
	rtx, _ := journal.RefundTx(o, r, merchant.DefaultTerms(), journal.Source(o))
	post(t, j, rtx)
	p, _ := j.PlatformBalances(ctx)
	if got := p[journal.Source(o)]["BDT"]; got != -900_00 {
		t.Fatalf("BDT receivable %d, want -900.00 after a quarter refunded", got)
	}
	if p[journal.FX]["USD"] != -7_50 || p[journal.FX]["BDT"] != 900_00 {
		t.Fatalf("fx %v", p[journal.FX])
	}
}

func TestRefundFeeReturnAndReversal(t *testing.T) {
	j, _ := newJournal(t)
	ctx := context.Background()
	o := paidOrder("o-rf", 100_00, "300:0:0:0")
	tx, _ := journal.PaymentTx(o, merchant.Terms{Instant: true}, journal.Source(o), false)
	post(t, j, tx)
	terms := merchant.Terms{Instant: true, RefundReturnsFee: true}
	r := &schema.Refund{ID: "rf_half", OrderID: o.ID, Amount: 50_00, Currency: "USD"}
	rtx, _ := journal.RefundTx(o, r, terms, journal.Source(o))
	post(t, j, rtx)
	b, _ := j.Balance(ctx, "2001", "USD")
	if b.Available != 97_00-48_50 {
		t.Fatalf("after a half refund with the fee back: %+v", b)
	}
	rev, _ := journal.RefundReversalTx(o, r, terms, journal.Source(o))
	post(t, j, rev)
	if b, _ = j.Balance(ctx, "2001", "USD"); b.Available != 97_00 {
		t.Fatalf("after the reversal: %+v", b)
	}
	never := &schema.Refund{ID: "rf_never", OrderID: o.ID, Amount: 1_00, Currency: "USD"}
	rev2, _ := journal.RefundReversalTx(o, never, terms, journal.Source(o))
	if res := post(t, j, rev2); res.Outcome != journal.Missing {
		t.Fatalf("reversing a refund never posted: %v", res.Outcome)
	}
}

func TestReserveHeldAndReleased(t *testing.T) {
	j, _ := newJournal(t)
	ctx := context.Background()
	o := paidOrder("o-res", 100_00, "")
	terms := merchant.Terms{DelayDays: 1, TimeZone: "UTC", ReserveBps: 1000, ReserveDays: 30}
	tx, _ := journal.PaymentTx(o, terms, journal.Source(o), false)
	post(t, j, tx)
	m, _ := journal.ParseDueMove(tx.Due.Member)
	st := m.Tx(tx.Due.At)
	post(t, j, st)
	if b, _ := j.Balance(ctx, "2001", "USD"); b.Available != 90_00 || b.Reserve != 10_00 {
		t.Fatalf("after settlement: %+v", b)
	}
	rel, _ := journal.ParseDueMove(st.Due.Member)
	if !st.Due.At.Equal(tx.Due.At.Add(30 * 24 * time.Hour)) {
		t.Fatalf("release at %s", st.Due.At)
	}
	post(t, j, rel.Tx(st.Due.At))
	if b, _ := j.Balance(ctx, "2001", "USD"); b.Available != 100_00 || b.Reserve != 0 {
		t.Fatalf("after release: %+v", b)
	}
}

func TestFeeNeverAboveTheAmount(t *testing.T) {
	j, _ := newJournal(t)
	o := paidOrder("o-tiny", 50, "0:100:0:0")
	tx, _ := journal.PaymentTx(o, merchant.Terms{Instant: true}, journal.Source(o), false)
	post(t, j, tx)
	b, _ := j.Balance(context.Background(), "2001", "USD")
	if b.Available != 0 {
		t.Fatalf("a 1.00 fixed fee on 0.50: %+v, want net 0", b)
	}
}

func TestDueMoveRefusesGarbage(t *testing.T) {
	for _, s := range []string{"", "settlement|a|b|USD|0|0|0", "payout|a|b|USD|5|0|0", "settlement|a|b|USD|5|9|0", "settlement|a|b|USD|-5|0|0"} {
		if _, err := journal.ParseDueMove(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
