package payout

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// fakeRail is a chain that records each transfer by reference, as the
// sandbox's simulators do, and can refuse or stop answering.
type fakeRail struct {
	mu      sync.Mutex
	sent    map[string]Transfer
	sends   int
	refuse  bool
	down    bool
	lookups int
}

func (r *fakeRail) Lookup(_ context.Context, ref string) (Transfer, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if r.down {
		return Transfer{}, false, errors.New("connection refused")
	}
	t, ok := r.sent[ref]
	return t, ok, nil
}

func (r *fakeRail) Send(_ context.Context, ref, address string, amount schema.Amount) (Transfer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return Transfer{}, errors.New("connection refused")
	}
	if r.refuse {
		return Transfer{Refused: true, Reason: "address frozen"}, nil
	}
	if r.sent == nil {
		r.sent = map[string]Transfer{}
	}
	r.sends++
	t := Transfer{TxHash: "hash-of-" + ref}
	r.sent[ref] = t
	return t, nil
}

func (e *payoutEnv) sender(t *testing.T, rail Rail) *Sender {
	t.Helper()
	s, err := NewSender(SenderDefaults(), e.s, map[string]Rail{"TRC20": rail}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *payoutEnv) approved(t *testing.T) Payout {
	t.Helper()
	p := e.asked(t, e.usable(t, usdtTRC("1001")))
	if _, err := e.s.Approve(context.Background(), p.ID, ann, entry("ann")); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSenderSendsOnce: an approved USDT payout is sent once and ends paid
// with its transaction; a second look sends nothing.
func TestSenderSendsOnce(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	p := e.approved(t)
	rail := &fakeRail{}
	s := e.sender(t, rail)
	if n := s.Once(ctx); n != 1 {
		t.Fatalf("took %d payouts, want 1", n)
	}
	got, _ := e.s.Get(ctx, "1001", p.ID)
	if got.State != Paid || got.TxHash != "hash-of-"+p.Reference() || rail.sends != 1 {
		t.Fatalf("payout %+v after %d sends", got, rail.sends)
	}
	e.now = e.now.Add(time.Hour)
	if n := s.Once(ctx); n != 0 || rail.sends != 1 {
		t.Fatalf("a second look took %d and sent %d in all", n, rail.sends)
	}
}

// TestSenderCrashAfterSend: a sender that sent and died before recording
// leaves the payout sending; when its lease ends the next sender finds the
// transfer by the payout's reference and records it, sending nothing.
func TestSenderCrashAfterSend(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	p := e.approved(t)
	rail := &fakeRail{}
	if _, _, err := e.s.Claim(ctx, p.ID, "dead-sender", time.Minute, entry("sender")); err != nil {
		t.Fatal(err)
	}
	if _, err := rail.Send(ctx, p.Reference(), "T...", p.Amount); err != nil {
		t.Fatal(err)
	}
	s := e.sender(t, rail)
	if n := s.Once(ctx); n != 0 {
		t.Fatalf("took %d payouts while the dead sender's lease runs", n)
	}
	e.now = e.now.Add(2 * time.Minute)
	s.Once(ctx)
	got, _ := e.s.Get(ctx, "1001", p.ID)
	if got.State != Paid || rail.sends != 1 || rail.lookups != 1 {
		t.Fatalf("payout %+v: %d sends, %d lookups; want paid, sent once, looked up once", got, rail.sends, rail.lookups)
	}
}

// TestSenderRailDownThenRefusing: a rail that does not answer leaves the
// payout sending (no end guessed); one that refuses fails it and gives the
// money back.
func TestSenderRailDownThenRefusing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	p := e.approved(t)
	rail := &fakeRail{down: true}
	s := e.sender(t, rail)
	s.Once(ctx)
	if got, _ := e.s.Get(ctx, "1001", p.ID); got.State != Sending {
		t.Fatalf("payout %s while the rail is down, want sending", got.State)
	}
	rail.down, rail.refuse = false, true
	e.now = e.now.Add(2 * time.Minute)
	s.Once(ctx)
	got, _ := e.s.Get(ctx, "1001", p.ID)
	if got.State != Failed || got.Reason != "address frozen" || rail.lookups != 1 {
		t.Fatalf("payout %+v (%d lookups), want failed after one lookup", got, rail.lookups)
	}
	if b := e.balance(t, "1001", "USD"); b.Available != money(t, "100.00") || b.PayoutHold != 0 {
		t.Fatalf("balance %+v, want all back", b)
	}
}

// TestSenderLeavesBankPayouts: an approved bank payout waits for the
// operator's reference; the sender never takes it.
func TestSenderLeavesBankPayouts(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, Defaults())
	p := e.asked(t, e.usable(t, bank("1001")))
	if _, err := e.s.Approve(ctx, p.ID, ann, entry("ann")); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(time.Hour)
	if n := e.sender(t, &fakeRail{}).Once(ctx); n != 0 {
		t.Fatalf("the sender took %d bank payouts", n)
	}
	if q, err := e.s.Queue(ctx, false, 10); err != nil || len(q) != 1 || q[0].ID != p.ID {
		t.Fatalf("approved queue %+v, %v: the operator lists it", q, err)
	}
}
