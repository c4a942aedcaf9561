package rails_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"
)

const payee = "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"

// env is a payout store on miniredis with the clock the test moves, one
// approved payout to a destination of one network, and that network's
// rail: the TRON simulator behind an httptest server unless a test gives
// another.
type env struct {
	s       *payout.Store
	now     time.Time
	network string
	rail    *rails.Sim
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := newPayoutEnv(t, payout.TRC20, payee)
	srv := httptest.NewServer(tronsim.NewSim(tronsim.SimConfig{}, &provider.MemState{}).Handler())
	t.Cleanup(srv.Close)
	e.rail = rails.NewSim(srv.URL, srv.Client())
	return e
}

// newPayoutEnv is the store with a payout of 60.00 (fee 1.00) to address
// of kind, approved.
func newPayoutEnv(t *testing.T, kind payout.Kind, address string) *env {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{now: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), network: kind.Network()}
	cfg := payout.Defaults()
	cfg.Now = func() time.Time { return e.now }
	if e.s, err = payout.New(cfg, rdb, j, nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	ctx := context.Background()
	d, err := e.s.AddDestination(ctx, payout.Destination{AppID: "1001", Kind: kind, Address: address}, "merchant:u1", entry("u1"))
	if err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(cfg.CoolingOff)
	if _, _, err := j.TopUp(ctx, "", "1001", "USD", 10000, nil); err != nil {
		t.Fatal(err)
	}
	p, _, err := e.s.Request(ctx, payout.Ask{AppID: "1001", Destination: d.ID, Currency: "USD", Amount: 6000, By: "user:u1",
		Limits: payout.Limits{Fee: 100}}, entry("u1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Approve(ctx, p.ID, payout.Decider{By: "op:ann", Key: "operator:ann"}, entry("ann")); err != nil {
		t.Fatal(err)
	}
	return e
}

func entry(actor string) audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: actor, Realm: audit.RealmSystem, Role: "test", Action: "payout.test", Source: "test"}
}

// crashing sends through the real rail, then answers as a sender that died
// before recording does: the transfer is made, its end unknown.
type crashing struct {
	*rails.Sim
	crashes int
}

func (c *crashing) Send(ctx context.Context, ref, address string, amount schema.Amount) (payout.Transfer, error) {
	if _, err := c.Sim.Send(ctx, ref, address, amount); err != nil {
		return payout.Transfer{}, err
	}
	c.crashes++
	return payout.Transfer{}, errors.New("killed after the transfer left")
}

func (e *env) sender(t *testing.T, r payout.Rail) *payout.Sender {
	t.Helper()
	s, err := payout.NewSender(payout.SenderDefaults(), e.s, map[string]payout.Rail{e.network: r}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) only(t *testing.T) payout.Payout {
	t.Helper()
	l, err := e.s.List(context.Background(), "1001", 0, 10)
	if err != nil || len(l) != 1 {
		t.Fatalf("payouts %v, %v", l, err)
	}
	return l[0]
}

// TestSimRailPaysOnce: an approved payout is sent on the simulated chain
// and ends paid with the chain's hash; the simulator saw one transfer.
func TestSimRailPaysOnce(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.sender(t, e.rail).Once(ctx)
	p := e.only(t)
	tr, found, err := e.rail.Lookup(ctx, p.Reference())
	if err != nil || !found || p.State != payout.Paid || p.TxHash == "" || p.TxHash != tr.TxHash {
		t.Fatalf("payout %+v; chain %+v found %v err %v", p, tr, found, err)
	}
	e.assertTransfers(t, p, 1)
}

// TestSimRailCrashBetweenSendAndRecord: the sender dies after the
// transfer left; the next sender, once the lease ended, finds it by the
// payout's reference and records it: one transfer on the chain, paid.
func TestSimRailCrashBetweenSendAndRecord(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	c := &crashing{Sim: e.rail}
	e.sender(t, c).Once(ctx)
	if p := e.only(t); c.crashes != 1 || p.State != payout.Sending {
		t.Fatalf("after the crash: %d crashes, payout %s", c.crashes, p.State)
	}
	e.now = e.now.Add(2 * time.Minute) // the dead sender's lease ends
	e.sender(t, c).Once(ctx)
	p := e.only(t)
	if p.State != payout.Paid || p.TxHash == "" {
		t.Fatalf("payout %+v, want paid with the first transfer's hash", p)
	}
	e.assertTransfers(t, p, 1)
}

// TestSimRailRefusesBadAddress: the chain refusing the transfer is a
// refusal (the payout fails, money back), not an unknown.
func TestSimRailRefusesBadAddress(t *testing.T) {
	e := newEnv(t)
	tr, err := e.rail.Send(context.Background(), "POx1", "not-an-address", 100)
	if err != nil || !tr.Refused {
		t.Fatalf("transfer %+v, %v: want refused", tr, err)
	}
}

func (e *env) assertTransfers(t *testing.T, p payout.Payout, want int) {
	t.Helper()
	a, err := e.rail.Count(context.Background(), p.Reference())
	if err != nil || a.Transfers != want {
		t.Fatalf("the chain made %d transfers under %s (%v), want %d", a.Transfers, p.Reference(), err, want)
	}
}
