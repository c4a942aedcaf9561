package payout

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
)

var (
	ann = Decider{By: "op:ann@ops.test", Key: "operator:ann"}
	bob = Decider{By: "op:bob@ops.test", Key: "operator:bob"}
)

// asked is a held payout of 60.00 USD and a 1.00 fee from 100.00.
func (e *payoutEnv) asked(t *testing.T, d Destination) Payout {
	t.Helper()
	ctx := context.Background()
	e.j.TopUp(ctx, "", d.AppID, "USD", money(t, "100.00"), nil)
	p, _, err := e.s.Request(ctx, Ask{AppID: d.AppID, Destination: d.ID, Currency: "USD", Amount: money(t, "60.00"),
		By: "user:u1", Limits: Limits{Fee: money(t, "1.00")}}, entry("u1"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPayoutEnds: each way a payout ends, and where its money goes.
func TestPayoutEnds(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name               string
		dest               func(string) Destination
		run                func(e *payoutEnv, p Payout) (Payout, error)
		state              State
		available, transit string
		fees               string
	}{
		{"USDT approved, sent, paid", usdtTRC, func(e *payoutEnv, p Payout) (Payout, error) {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return Payout{}, err
			}
			if _, _, err := e.s.Claim(ctx, p.ID, "lease-1", time.Minute, entry("sender")); err != nil {
				return Payout{}, err
			}
			return e.s.MarkPaid(ctx, p.ID, "lease-1", "abc123", "", entry("sender"))
		}, Paid, "39.00", "60.00", "1.00"},
		{"bank approved, reference recorded", bank, func(e *payoutEnv, p Payout) (Payout, error) {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return Payout{}, err
			}
			return e.s.MarkPaid(ctx, p.ID, "", "", "REF-2026-11-28-1", entry("ann"))
		}, Paid, "39.00", "60.00", "1.00"},
		{"rejected: all back", bank, func(e *payoutEnv, p Payout) (Payout, error) {
			return e.s.Reject(ctx, p.ID, ann, "the account holder does not match", entry("ann"))
		}, Rejected, "100.00", "0.00", "0.00"},
		{"sending failed: all back", usdtTRC, func(e *payoutEnv, p Payout) (Payout, error) {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return Payout{}, err
			}
			if _, _, err := e.s.Claim(ctx, p.ID, "lease-1", time.Minute, entry("sender")); err != nil {
				return Payout{}, err
			}
			return e.s.MarkFailed(ctx, p.ID, "lease-1", "the exchange refused the address", entry("sender"))
		}, Failed, "100.00", "0.00", "0.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Defaults())
			p := e.asked(t, e.usable(t, tt.dest("1001")))
			got, err := tt.run(e, p)
			if err != nil || got.State != tt.state {
				t.Fatalf("payout %+v, %v; want %s", got, err, tt.state)
			}
			b := e.balance(t, "1001", "USD")
			plat, err := e.j.PlatformBalances(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b.Available != money(t, tt.available) || b.PayoutHold != 0 || plat[journal.InTransit]["USD"] != money(t, tt.transit) ||
				plat[journal.Fees]["USD"] != money(t, tt.fees) {
				t.Fatalf("balance %+v, in transit %s, fees %s", b, plat[journal.InTransit]["USD"], plat[journal.Fees]["USD"])
			}
			if q, _ := e.s.Queue(ctx, false, 10); len(q) != 0 {
				t.Fatalf("an ended payout is still queued to send: %+v", q)
			}
		})
	}
}

// TestPayoutStepsRefused: the steps a payout must refuse, each moving
// nothing.
func TestPayoutStepsRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		dest func(string) Destination
		run  func(e *payoutEnv, p Payout) error
		kind platform.Kind
	}{
		{"approved by the operator who changed the merchant's payout settings", bank, func(e *payoutEnv, p Payout) error {
			if err := e.s.NoteChange(ctx, "1001", ann.Key); err != nil {
				return err
			}
			_, err := e.s.Approve(ctx, p.ID, ann, entry("ann"))
			return err
		}, platform.KindForbidden},
		{"approved twice", bank, func(e *payoutEnv, p Payout) error {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return err
			}
			_, err := e.s.Approve(ctx, p.ID, bob, entry("bob"))
			return err
		}, platform.KindConflict},
		{"rejected without a reason", bank, func(e *payoutEnv, p Payout) error {
			_, err := e.s.Reject(ctx, p.ID, ann, " ", entry("ann"))
			return err
		}, platform.KindMissingParameter},
		{"rejected after approval", bank, func(e *payoutEnv, p Payout) error {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return err
			}
			_, err := e.s.Reject(ctx, p.ID, bob, "too late", entry("bob"))
			return err
		}, platform.KindConflict},
		{"paid before approval", bank, func(e *payoutEnv, p Payout) error {
			_, err := e.s.MarkPaid(ctx, p.ID, "", "", "REF-1", entry("ann"))
			return err
		}, platform.KindConflict},
		{"a USDT payout marked paid by hand", usdtTRC, func(e *payoutEnv, p Payout) error {
			if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
				return err
			}
			_, err := e.s.MarkPaid(ctx, p.ID, "", "", "REF-1", entry("ann"))
			return err
		}, platform.KindConflict},
		{"claimed while another sender's lease runs", usdtTRC, func(e *payoutEnv, p Payout) error {
			e.s.Approve(ctx, p.ID, ann, entry("ann"))
			if _, _, err := e.s.Claim(ctx, p.ID, "lease-1", time.Minute, entry("sender")); err != nil {
				return err
			}
			_, _, err := e.s.Claim(ctx, p.ID, "lease-2", time.Minute, entry("sender"))
			return err
		}, platform.KindConflict},
		{"ended by a sender whose lease was taken over", usdtTRC, func(e *payoutEnv, p Payout) error {
			e.s.Approve(ctx, p.ID, ann, entry("ann"))
			_, _, _ = e.s.Claim(ctx, p.ID, "lease-1", time.Minute, entry("sender"))
			e.now = e.now.Add(2 * time.Minute)
			if _, _, err := e.s.Claim(ctx, p.ID, "lease-2", time.Minute, entry("sender")); err != nil {
				return err
			}
			_, err := e.s.MarkPaid(ctx, p.ID, "lease-1", "abc", "", entry("sender"))
			return err
		}, platform.KindConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Defaults())
			p := e.asked(t, e.usable(t, tt.dest("1001")))
			if err := tt.run(e, p); platform.KindOf(err) != tt.kind {
				t.Fatalf("%v, want %s", err, tt.kind)
			}
			if b := e.balance(t, "1001", "USD"); b.Available != money(t, "39.00") || b.PayoutHold != money(t, "61.00") {
				t.Fatalf("a refused step moved money: %+v", b)
			}
		})
	}
}

// TestCheckerWindowPasses: an operator's change forbids its decisions for
// the window only; another operator may decide at once.
func TestCheckerWindowPasses(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	p := e.asked(t, e.usable(t, bank("1001")))
	if err := e.s.NoteChange(ctx, "1001", ann.Key); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(e.s.cfg.CheckerWindow + time.Second)
	if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
		t.Fatalf("approve after the window: %v", err)
	}
}
