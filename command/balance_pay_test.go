package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// xfer is a balance transfer's world: a merchant with a ready balance order
// awaiting a login, and a payer with a USD balance, on three shards.
type xfer struct {
	t        *testing.T
	h        *harness
	merchant *merchant.Account
	payer    *merchant.Account
	order    *schema.Order
	start    schema.Amount // the payer's balance before
}

const xferAmount = schema.Amount(30_00)

// newXfer places the payer, the merchant and the order on three different
// shards, so that no step could be one script by accident.
func newXfer(t *testing.T, payerBalance schema.Amount) *xfer {
	t.Helper()
	h := newRedisHarness(t)
	ctx := context.Background()
	x := &xfer{t: t, h: h, merchant: h.acct, start: payerBalance}
	x.payer = x.account("payer", true, func(a *merchant.Account) bool {
		return schema.HomeShard(a.AppID) != schema.HomeShard(x.merchant.AppID)
	})
	if payerBalance > 0 {
		if _, err := journaltest.Credit(ctx, h.rdb, x.payer.AppID, "USD", payerBalance); err != nil {
			t.Fatal(err)
		}
	}
	x.order = x.newOrder()
	shards := []schema.Shard{schema.HomeShard(x.payer.AppID), x.shard(), schema.HomeShard(x.merchant.AppID)}
	if shards[0] == shards[1] || shards[1] == shards[2] || shards[0] == shards[2] {
		t.Fatalf("payer, order and merchant share a shard: %v", shards)
	}
	return x
}

// account makes an account the predicate accepts.
func (x *xfer) account(name string, sandbox bool, ok func(*merchant.Account) bool) *merchant.Account {
	x.t.Helper()
	for range 100 {
		a, err := x.h.accounts.Create(context.Background(), newAccount(name, sandbox))
		if err != nil {
			x.t.Fatal(err)
		}
		if ok(a) {
			return a
		}
	}
	x.t.Fatal("no account fits")
	return nil
}

// newOrder stores a ready balance order of the merchant awaiting a login,
// on a shard neither account lives on.
func (x *xfer) newOrder() *schema.Order {
	x.t.Helper()
	shard := schema.Shard(0)
	for shard == schema.HomeShard(x.payer.AppID) || shard == schema.HomeShard(x.merchant.AppID) {
		shard++
	}
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, shard), AppID: x.merchant.AppID, Sandbox: x.merchant.Sandbox,
		Amount: xferAmount, Currency: "USD", Method: schema.MethodBalance, Status: schema.StatusReady,
		NextAction: schema.NextBalanceLogin, NotifyURL: "https://shop.test/hook", CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := x.h.store.Create(context.Background(), o); err != nil {
		x.t.Fatal(err)
	}
	return o
}

func (x *xfer) shard() schema.Shard { s, _ := schema.ParseOrderID(x.order.ID); return s }

func (x *xfer) pay() (*schema.Order, error) {
	return x.h.uc.Balance.PayWithBalance(context.Background(), x.order.ID, x.payer.AppID)
}

func (x *xfer) balance(a *merchant.Account) schema.Amount {
	x.t.Helper()
	b, err := x.h.accounts.Balances(context.Background(), a.AppID)
	if err != nil {
		x.t.Fatal(err)
	}
	return b["USD"]
}

// ledger lists an account's journal entries as "kind amount ref": amount
// is what the entry moved in the account's USD buckets, signed.
func (x *xfer) ledger(a *merchant.Account) []string {
	x.t.Helper()
	msgs, err := x.h.rdb.XRange(context.Background(), schema.JournalKey(schema.HomeShard(a.AppID)), "-", "+").Result()
	if err != nil {
		x.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		e, err := journal.DecodeEntry(m.ID, m.Values)
		if err != nil {
			x.t.Fatal(err)
		}
		if e.AppID != a.AppID {
			continue
		}
		var moved schema.Amount
		for _, p := range e.Postings {
			if strings.HasPrefix(p.Account, "merchant:"+a.AppID+":") && p.Currency == "USD" {
				moved += p.Amount
			}
		}
		out = append(out, fmt.Sprint(e.Kind, " ", int64(moved), " ", e.Ref))
	}
	return out
}

// paidEvents are the order's paid events, by their pwb field.
func (x *xfer) paidEvents() []string {
	x.t.Helper()
	msgs, err := x.h.rdb.XRange(context.Background(), schema.EventsKey(x.shard()), "-", "+").Result()
	if err != nil {
		x.t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		if m.Values["type"] == "paid" && m.Values[schema.FID] == x.order.ID {
			pwb, _ := m.Values[schema.FPaidBalance].(string)
			out = append(out, "pwb="+pwb)
		}
	}
	return out
}

func (x *xfer) get() *schema.Order {
	x.t.Helper()
	o, err := x.h.store.Get(context.Background(), x.order.ID)
	if err != nil {
		x.t.Fatal(err)
	}
	return o
}

// openTransfers is the size of the order shard's recovery index.
func (x *xfer) openTransfers() int64 {
	return x.h.rdb.ZCard(context.Background(), schema.TransfersKey(x.shard())).Val()
}

// wantPaidOnce is the happy path's end state, whatever way led there.
func (x *xfer) wantPaidOnce() {
	x.t.Helper()
	if got := x.balance(x.payer); got != x.start-xferAmount {
		x.t.Errorf("payer balance %v, want %v", got, x.start-xferAmount)
	}
	if got := x.balance(x.merchant); got != xferAmount {
		x.t.Errorf("merchant balance %v, want %v", got, xferAmount)
	}
	wantLedger(x.t, "payer", x.ledger(x.payer), "topup 10000 ", "balance_debit -3000 "+x.order.ID)
	wantLedger(x.t, "merchant", x.ledger(x.merchant), "payment 3000 "+x.order.ID)
	o := x.get()
	if o.Status != schema.StatusPaid || !o.PaidWithBalance || o.CompletedAt.IsZero() || o.NextAction != "" {
		x.t.Errorf("order %+v", o)
	}
	if ev := x.paidEvents(); len(ev) != 1 || ev[0] != "pwb=1" {
		x.t.Errorf("paid events %v, want one with pwb=1", ev)
	}
	if n := x.openTransfers(); n != 0 {
		x.t.Errorf("%d transfers left open", n)
	}
}

func wantLedger(t *testing.T, who string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s ledger %q, want %q", who, got, want)
	}
}

func wantKind(t *testing.T, err error, kind platform.Kind) {
	t.Helper()
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Kind != kind {
		t.Fatalf("err %v, want %s", err, kind)
	}
}

func TestPayWithBalance(t *testing.T) {
	x := newXfer(t, 100_00)
	o, err := x.pay()
	if err != nil || o.Status != schema.StatusPaid || !o.PaidWithBalance {
		t.Fatalf("pay: %+v %v", o, err)
	}
	x.wantPaidOnce()
	if got := testutil.ToFloat64(x.h.uc.Create.m.transfers.WithLabelValues("paid")); got != 1 {
		t.Errorf("transfers counted %v", got)
	}
	// A repeat answers the paid order and changes nothing.
	if again, err := x.pay(); err != nil || again.ID != o.ID || again.Version != o.Version {
		t.Fatalf("repeat: %+v %v", again, err)
	}
	x.wantPaidOnce()
	// Another payer finds it paid.
	other := x.account("other payer", true, func(*merchant.Account) bool { return true })
	_, err = x.h.uc.Balance.PayWithBalance(context.Background(), x.order.ID, other.AppID)
	wantKind(t, err, platform.KindConflict)
	x.wantPaidOnce()
}

// TestPayWithBalanceRefused: each refusal changes nothing, and the order
// stays payable.
func TestPayWithBalanceRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		payer func(x *xfer) string
		order func(x *xfer) string
		kind  platform.Kind
	}{
		{"insufficient funds", func(x *xfer) string {
			return x.account("poor", true, func(*merchant.Account) bool { return true }).AppID
		}, nil, platform.KindInsufficientFunds},
		{"payer is the merchant", func(x *xfer) string { return x.merchant.AppID }, nil, platform.KindForbidden},
		{"live payer, sandbox order", func(x *xfer) string {
			a := x.account("live payer", false, func(*merchant.Account) bool { return true })
			if _, err := journaltest.Credit(ctx, x.h.rdb, a.AppID, "USD", 100_00); err != nil {
				t.Fatal(err)
			}
			return a.AppID
		}, nil, platform.KindForbidden},
		{"disabled payer", func(x *xfer) string {
			if _, err := x.h.accounts.SetDisabled(ctx, x.payer.AppID, true); err != nil {
				t.Fatal(err)
			}
			return x.payer.AppID
		}, nil, platform.KindForbidden},
		{"unknown payer", func(*xfer) string { return "424242" }, nil, platform.KindForbidden},
		{"order awaits no login", nil, func(x *xfer) string {
			o := x.newOrder()
			if _, err := x.h.store.Update(ctx, o.ID, []schema.Status{schema.StatusReady}, schema.FNextAction,
				schema.NextBalanceLogin, time.Now(), schema.FNextAction, ""); err != nil {
				t.Fatal(err)
			}
			return o.ID
		}, platform.KindConflict},
		{"unknown order", nil, func(x *xfer) string { return schema.NewOrderID(time.Now(), x.shard()) }, platform.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newXfer(t, 100_00)
			payer, id := x.payer.AppID, x.order.ID
			if tt.payer != nil {
				payer = tt.payer(x)
			}
			if tt.order != nil {
				id = tt.order(x)
			}
			events := x.h.rdb.XLen(ctx, schema.EventsKey(x.shard())).Val()
			_, err := x.h.uc.Balance.PayWithBalance(ctx, id, payer)
			wantKind(t, err, tt.kind)
			if x.balance(x.payer) != 100_00 || x.balance(x.merchant) != 0 || len(x.ledger(x.merchant)) != 0 ||
				len(x.ledger(x.payer)) != 1 {
				t.Errorf("balances %v / %v, ledgers %q / %q", x.balance(x.payer), x.balance(x.merchant), x.ledger(x.payer), x.ledger(x.merchant))
			}
			if n := x.h.rdb.XLen(ctx, schema.EventsKey(x.shard())).Val(); n != events {
				t.Errorf("%d events after, %d before", n, events)
			}
			o := x.get()
			if o.Status != schema.StatusReady || o.NextAction != schema.NextBalanceLogin || o.Version != 1 {
				t.Errorf("order changed: %+v", o)
			}
			if x.openTransfers() != 0 || x.h.rdb.Exists(ctx, schema.TransferKey(x.shard(), x.order.ID)).Val() != 0 {
				t.Error("a refused payment left its claim")
			}
		})
	}
}

// TestPayWithBalanceAfterTopUp: a payment refused for funds can be made
// once the payer has them (the refused attempt does not block the next).
func TestPayWithBalanceAfterTopUp(t *testing.T) {
	x := newXfer(t, 10_00)
	_, err := x.pay()
	wantKind(t, err, platform.KindInsufficientFunds)
	if _, err := journaltest.Credit(context.Background(), x.h.rdb, x.payer.AppID, "USD", 90_00); err != nil {
		t.Fatal(err)
	}
	if _, err := x.pay(); err != nil {
		t.Fatal(err)
	}
	x.start = 100_00
	if got := x.balance(x.payer); got != 70_00 {
		t.Fatalf("payer balance %v", got)
	}
	if ev := x.paidEvents(); len(ev) != 1 {
		t.Fatalf("paid events %v", ev)
	}
}

// TestPayWithBalanceConcurrent: ten submits of one payer pay once; of two
// payers at once, one pays and the other is refused.
func TestPayWithBalanceConcurrent(t *testing.T) {
	x := newXfer(t, 100_00)
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			if _, err := x.pay(); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent submit: %v", err)
	}
	x.wantPaidOnce()

	y := newXfer(t, 100_00)
	rival := y.account("rival", true, func(*merchant.Account) bool { return true })
	if _, err := journaltest.Credit(context.Background(), y.h.rdb, rival.AppID, "USD", 100_00); err != nil {
		t.Fatal(err)
	}
	results := make(chan error, 2)
	for _, p := range []string{y.payer.AppID, rival.AppID} {
		wg.Go(func() {
			_, err := y.h.uc.Balance.PayWithBalance(context.Background(), y.order.ID, p)
			results <- err
		})
	}
	wg.Wait()
	close(results)
	paid := 0
	for err := range results {
		if err == nil {
			paid++
			continue
		}
		wantKind(t, err, platform.KindConflict)
	}
	if total := y.balance(y.payer) + y.balance(rival); paid != 1 || total != 200_00-xferAmount {
		t.Fatalf("%d paid; payers hold %v", paid, total)
	}
}
