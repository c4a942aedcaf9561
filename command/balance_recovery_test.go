package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

var errDied = errors.New("process died here")

// dieAfter makes the next transfer step k the last one: the request fails
// there, as if its process were killed.
func (x *xfer) dieAfter(k int) {
	x.h.uc.Balance.xfer.afterStep = func(step int) error {
		if step == k {
			return errDied
		}
		return nil
	}
}

// recover runs one sweep of the order's shard, every transfer due.
func (x *xfer) recover() int {
	x.t.Helper()
	x.h.uc.Balance.xfer.afterStep = nil
	r := x.h.uc.Recovery.With(time.Hour, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	n, err := r.Sweep(context.Background(), x.shard())
	if err != nil {
		x.t.Fatal(err)
	}
	return n
}

var crashPoints = []struct {
	name string
	step int
}{
	{"after claim", stepClaim}, {"after debit", stepDebit}, {"after paid", stepPaid}, {"after credit", stepCredit},
}

// TestTransferCrashRecovery: whichever step the request dies after, the
// recovery ends the transfer exactly as the happy path does, and the
// payer's retry afterwards changes nothing.
func TestTransferCrashRecovery(t *testing.T) {
	for _, cp := range crashPoints {
		t.Run(cp.name, func(t *testing.T) {
			x := newXfer(t, 100_00)
			x.dieAfter(cp.step)
			if _, err := x.pay(); !errors.Is(err, errDied) {
				t.Fatalf("first call: %v", err)
			}
			if n := x.openTransfers(); n != 1 {
				t.Fatalf("%d open transfers after the crash, want 1", n)
			}
			if n := x.recover(); n != 1 {
				t.Fatalf("recovered %d", n)
			}
			x.wantPaidOnce()
			if n := x.recover(); n != 0 {
				t.Fatalf("a second sweep recovered %d", n)
			}
			if _, err := x.pay(); err != nil {
				t.Fatalf("retry after recovery: %v", err)
			}
			x.wantPaidOnce()
		})
	}
}

// TestTransferRecoveryRacesRetry: the payer's retries and two recoveries
// drive the same interrupted transfer at once; it is paid once.
func TestTransferRecoveryRacesRetry(t *testing.T) {
	for _, cp := range crashPoints {
		t.Run(cp.name, func(t *testing.T) {
			x := newXfer(t, 100_00)
			x.dieAfter(cp.step)
			if _, err := x.pay(); !errors.Is(err, errDied) {
				t.Fatalf("first call: %v", err)
			}
			x.h.uc.Balance.xfer.afterStep = nil
			r := x.h.uc.Recovery.With(time.Hour, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 8 {
				wg.Go(func() {
					var err error
					if i%4 == 0 {
						_, err = r.Sweep(context.Background(), x.shard())
					} else {
						_, err = x.pay()
					}
					if err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("racer: %v", err)
			}
			x.wantPaidOnce()
		})
	}
}

// TestTransferRecoveryReleasesShortFunds: a transfer that died after its
// claim, whose payer has meanwhile spent the balance, is released: nothing
// moves, the order stays payable, and the claim no longer blocks anyone.
func TestTransferRecoveryReleasesShortFunds(t *testing.T) {
	ctx := context.Background()
	x := newXfer(t, 100_00)
	x.dieAfter(stepClaim)
	if _, err := x.pay(); !errors.Is(err, errDied) {
		t.Fatal(err)
	}
	spend(t, x.h.rdb, x.payer.AppID, 90_00)
	// A driver that read the claim before the release, and runs its debit
	// after the payer topped up again, must not debit.
	stale, err := x.h.uc.Balance.xfer.loadTransfer(ctx, x.shard(), x.order.ID)
	if err != nil || stale == nil {
		t.Fatalf("claim: %+v %v", stale, err)
	}
	if n := x.recover(); n != 1 {
		t.Fatalf("recovered %d", n)
	}
	if _, err := journaltest.Credit(ctx, x.h.rdb, x.payer.AppID, "USD", 90_00); err != nil {
		t.Fatal(err)
	}
	if m, err := x.h.uc.Balance.xfer.xferDebit(ctx, stale); err != nil || m != "n" {
		t.Fatalf("stale debit after the release: %q %v", m, err)
	}
	if x.balance(x.payer) != 100_00 || x.balance(x.merchant) != 0 || len(x.ledger(x.payer)) != 3 {
		t.Fatalf("money moved: %v / %v %q", x.balance(x.payer), x.balance(x.merchant), x.ledger(x.payer))
	}
	if o := x.get(); o.Status != schema.StatusReady || o.NextAction != schema.NextBalanceLogin {
		t.Fatalf("order %+v", o)
	}
	if x.openTransfers() != 0 || x.h.rdb.Exists(ctx, schema.TransferKey(x.shard(), x.order.ID)).Val() != 0 {
		t.Fatal("the released claim is still there")
	}
	rival := x.account("rival", true, func(*merchant.Account) bool { return true })
	if _, err := journaltest.Credit(ctx, x.h.rdb, rival.AppID, "USD", 100_00); err != nil {
		t.Fatal(err)
	}
	if _, err := x.h.uc.Balance.PayWithBalance(ctx, x.order.ID, rival.AppID); err != nil {
		t.Fatalf("another payer after the release: %v", err)
	}
}

// TestTransferRefundsWhenPaidElsewhere: the order was paid some other way
// (the sandbox driver) while its transfer was interrupted after the debit:
// the recovery gives the payer the money back and credits nobody.
func TestTransferRefundsWhenPaidElsewhere(t *testing.T) {
	ctx := context.Background()
	x := newXfer(t, 100_00)
	x.dieAfter(stepDebit)
	if _, err := x.pay(); !errors.Is(err, errDied) {
		t.Fatal(err)
	}
	if _, err := x.h.store.Transition(ctx, x.order.ID, schema.StatusPaid, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := x.recover(); n != 1 {
		t.Fatalf("recovered %d", n)
	}
	if x.balance(x.payer) != 100_00 || x.balance(x.merchant) != 0 {
		t.Fatalf("balances %v / %v", x.balance(x.payer), x.balance(x.merchant))
	}
	wantLedger(t, "payer", x.ledger(x.payer), "topup 10000 ", "balance_debit -3000 "+x.order.ID, "balance_reversal 3000 "+x.order.ID)
	if ev := x.paidEvents(); len(ev) != 1 || ev[0] != "pwb=" {
		t.Fatalf("paid events %v, want the sandbox's alone", ev)
	}
	_, err := x.pay()
	wantKind(t, err, platform.KindConflict)
	if x.balance(x.payer) != 100_00 {
		t.Fatal("a retry after the refund moved money")
	}
}

// TestTransferRecoveryWaitsForGrace: a transfer younger than the grace is
// left to its request.
func TestTransferRecoveryWaitsForGrace(t *testing.T) {
	x := newXfer(t, 100_00)
	x.dieAfter(stepDebit)
	if _, err := x.pay(); !errors.Is(err, errDied) {
		t.Fatal(err)
	}
	r := x.h.uc.Recovery.With(time.Hour, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := r.Sweep(context.Background(), x.shard()); n != 0 || err != nil {
		t.Fatalf("swept %d (%v) within the grace", n, err)
	}
	if x.openTransfers() != 1 {
		t.Fatal("the young transfer left the index")
	}
}
