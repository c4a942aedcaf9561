package command

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

const refundPart = schema.Amount(12_00)

// paidXfer is a balance order a payer paid (newXfer's three shards).
func paidXfer(t *testing.T) *xfer {
	t.Helper()
	x := newXfer(t, 100_00)
	if _, err := x.pay(); err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *xfer) refund(amount schema.Amount) (*schema.Refund, error) {
	r, _, err := x.h.uc.Refund.Refund(context.Background(), x.get(), RefundAsk{OrderID: x.order.ID, Amount: amount})
	return r, err
}

// sweepRefunds runs one refund sweep of the order's shard, every refund due.
func (x *xfer) sweepRefunds() int {
	x.t.Helper()
	x.h.uc.Balance.xfer.afterStep = nil
	r := x.h.uc.Recovery.With(time.Hour, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	n, err := r.SweepRefunds(context.Background(), x.shard())
	if err != nil {
		x.t.Fatal(err)
	}
	return n
}

// wantRefundedOnce: the merchant gave refundPart back to the payer once,
// in the ledgers and the balances, and the order says so.
func (x *xfer) wantRefundedOnce(refundID string) {
	x.t.Helper()
	if got, want := x.balance(x.payer), x.start-xferAmount+refundPart; got != want {
		x.t.Fatalf("payer balance %s, want %s", got, want)
	}
	if got, want := x.balance(x.merchant), xferAmount-refundPart; got != want {
		x.t.Fatalf("merchant balance %s, want %s", got, want)
	}
	wantLedger(x.t, "payer", x.ledger(x.payer), "topup 10000 ", "balance_debit -3000 "+x.order.ID, "balance_refund 1200 "+refundID)
	wantLedger(x.t, "merchant", x.ledger(x.merchant), "payment 3000 "+x.order.ID, "refund -1200 "+refundID)
	if o := x.get(); o.Refunded != refundPart || o.RefundReserved != refundPart {
		x.t.Fatalf("order refunded %s reserved %s", o.Refunded, o.RefundReserved)
	}
}

// TestBalanceRefundCrashRecovery: whichever step the refund dies after,
// the recovery ends it as the happy path does, exactly once.
func TestBalanceRefundCrashRecovery(t *testing.T) {
	for _, cp := range []struct {
		name string
		step int
	}{{"no crash", -1}, {"after reserve", refundReserved}, {"after debit", refundDebited}, {"after credit", refundCredited}} {
		t.Run(cp.name, func(t *testing.T) {
			x := paidXfer(t)
			x.dieAfter(cp.step)
			r, err := x.refund(refundPart)
			var id string
			switch {
			case cp.step < 0 && err == nil && r.Status == schema.RefundSucceeded:
				id = r.ID
			case cp.step >= 0 && errors.Is(err, errDied):
				rs, _ := x.h.store.Refunds(context.Background(), x.order.ID)
				if len(rs) != 1 || rs[0].Status != schema.RefundPending {
					t.Fatalf("after the crash %+v", rs)
				}
				id = rs[0].ID
				if n := x.sweepRefunds(); n != 1 {
					t.Fatalf("recovered %d", n)
				}
			default:
				t.Fatalf("refund: %+v %v", r, err)
			}
			x.wantRefundedOnce(id)
			if n := x.sweepRefunds(); n != 0 {
				t.Fatalf("a second sweep recovered %d", n)
			}
			x.wantRefundedOnce(id)
		})
	}
}

// TestBalanceRefundRecoveryRacesRequest: the request and two sweeps drive
// one refund at once; the money moves once.
func TestBalanceRefundRecoveryRacesRequest(t *testing.T) {
	x := paidXfer(t)
	x.dieAfter(refundReserved)
	if _, err := x.refund(refundPart); !errors.Is(err, errDied) {
		t.Fatal(err)
	}
	rs, _ := x.h.store.Refunds(context.Background(), x.order.ID)
	x.h.uc.Balance.xfer.afterStep = nil
	// A sweep reports a refund it could not drive only in its log, at
	// error level: the log is kept and must stay empty.
	var logged bytes.Buffer
	rec := x.h.uc.Recovery.With(time.Hour, 0, slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelError})))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := rec.SweepRefunds(context.Background(), x.shard()); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			o := x.get()
			if _, err := x.h.uc.Refund.driveRefund(context.Background(), o, &rs[0], nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if logged.Len() > 0 {
		t.Errorf("a sweep failed:\n%s", logged.String())
	}
	x.wantRefundedOnce(rs[0].ID)
}

// TestBalanceRefundShortBalance: a merchant whose balance no longer covers
// the refund gets a failed refund, and its amount is free again.
func TestBalanceRefundShortBalance(t *testing.T) {
	x := paidXfer(t)
	// The merchant spent most of what the order brought.
	spend(t, x.h.rdb, x.merchant.AppID, xferAmount-5_00)
	r, err := x.refund(refundPart)
	if err != nil || r.Status != schema.RefundFailed || r.Error == "" {
		t.Fatalf("%+v %v", r, err)
	}
	if o := x.get(); o.Refunded != 0 || o.RefundReserved != 0 {
		t.Fatalf("refunded %s reserved %s", o.Refunded, o.RefundReserved)
	}
	if got := x.balance(x.payer); got != x.start-xferAmount {
		t.Fatalf("payer credited %s for a failed refund", got-(x.start-xferAmount))
	}
}

// TestOwnBalanceOrderRefund: an order the merchant paid from its own
// balance refunds to that balance, and only up to what was paid.
func TestOwnBalanceOrderRefund(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", 150_00); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "balance", "USD"
	id := h.createOK(p)["paymentId"].(string)
	wantBalance(t, h, "USD", 50_00)
	if r := h.refund(refundParams(h, id, "60")); r.Status != 200 || r.Data(t)["status"] != "succeeded" {
		t.Fatal(r.Raw)
	}
	wantBalance(t, h, "USD", 110_00)
	if r := h.refund(refundParams(h, id, "40.01")); r.Body.Error != "refund_exceeds_paid" {
		t.Fatal(r.Raw)
	}
	wantBalance(t, h, "USD", 110_00)
}
