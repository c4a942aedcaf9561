package rails_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt/exchange"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"
)

const evmPayee = "0x94df8b352de7f46f64b01d3666bf6e936e44ce60"

// exEnv is a payout to a BEP20 address, the exchange simulator behind an
// httptest server with a clock the test moves (the client signs with the
// same one), and the exchange rail of BEP20 over it.
type exEnv struct {
	*env
	sim   *exchangesim.Sim
	clock atomic.Int64 // the exchange's and the client's time, ms
	rail  *rails.Exchange
	url   string
}

func newExEnv(t *testing.T, completeAfter time.Duration, change func(*rails.ExchangeConfig)) *exEnv {
	t.Helper()
	e := &exEnv{env: newPayoutEnv(t, payout.BEP20, evmPayee)}
	e.clock.Store(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC).UnixMilli())
	now := e.clockNow
	e.sim = exchangesim.NewSim(exchangesim.SimConfig{Now: now, CompleteAfter: completeAfter}, &provider.MemState{})
	srv := httptest.NewServer(e.sim.Handler())
	t.Cleanup(srv.Close)
	e.url = srv.URL
	client := exchange.NewClient(exchange.Config{BaseURL: srv.URL, APIKey: exchange.SandboxAPIKey, Secret: exchange.SandboxSecret,
		Timeout: 5 * time.Second, Now: now}, srv.Client())
	cfg := rails.ExchangeDefaults()
	cfg.Poll, cfg.Now = time.Millisecond, now
	if change != nil {
		change(&cfg)
	}
	var err error
	if e.rail, err = rails.NewExchange(cfg, client, "BEP20"); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *exEnv) advance(d time.Duration) { e.clock.Add(d.Milliseconds()) }

func (e *exEnv) clockNow() time.Time { return time.UnixMilli(e.clock.Load()) }

// applied is the simulator's record of p's withdrawal.
func (e *exEnv) applied(t *testing.T, p payout.Payout) exchangesim.Withdrawal {
	t.Helper()
	w, found, err := e.sim.Withdrawal(context.Background(), p.Reference())
	if err != nil || !found {
		t.Fatalf("no withdrawal under %s: %v", p.Reference(), err)
	}
	return w
}

// TestExchangeRailPaysOnce: an approved payout is one withdrawal under its
// reference, on the exchange's name of the network, and ends paid with
// the withdrawal's transaction.
func TestExchangeRailPaysOnce(t *testing.T) {
	e := newExEnv(t, 0, nil)
	e.sender(t, e.rail).Once(context.Background())
	p := e.only(t)
	w := e.applied(t, p)
	if p.State != payout.Paid || p.TxHash == "" || p.TxHash != w.Row.TxID || w.Applies != 1 ||
		w.Row.Network != "BSC" || w.Row.Amount != "60.00" || w.Row.Address != evmPayee {
		t.Fatalf("payout %+v; exchange %+v", p, w)
	}
}

// crashingEx applies through the real rail, then answers as a sender that
// died before recording does.
type crashingEx struct {
	*rails.Exchange
	crashes int
}

func (c *crashingEx) Send(ctx context.Context, ref, address string, amount schema.Amount) (payout.Transfer, error) {
	if _, err := c.Exchange.Send(ctx, ref, address, amount); err != nil {
		return payout.Transfer{}, err
	}
	c.crashes++
	return payout.Transfer{}, errors.New("killed after the exchange accepted the withdrawal")
}

// TestExchangeRailCrashBetweenSendAndRecord: the sender dies after the
// exchange accepted the withdrawal and before MarkPaid; the next sender,
// once the lease ended, finds the withdrawal by the payout's reference and
// records it paid, without asking the exchange for a second withdrawal.
func TestExchangeRailCrashBetweenSendAndRecord(t *testing.T) {
	ctx := context.Background()
	e := newExEnv(t, 0, nil)
	c := &crashingEx{Exchange: e.rail}
	e.sender(t, c).Once(ctx)
	if p := e.only(t); c.crashes != 1 || p.State != payout.Sending {
		t.Fatalf("after the crash: %d crashes, payout %s", c.crashes, p.State)
	}
	e.now = e.now.Add(2 * time.Minute) // the dead sender's lease ends
	e.sender(t, c).Once(ctx)
	p := e.only(t)
	w := e.applied(t, p)
	if p.State != payout.Paid || p.TxHash != w.Row.TxID || w.Applies != 1 || c.crashes != 1 {
		t.Fatalf("payout %+v; the exchange was asked %d times (%+v), %d crashes: want paid after one apply", p, w.Applies, w.Row, c.crashes)
	}
}

// TestExchangeRailProcessing: a withdrawal the exchange is still
// processing is neither sent nor absent: Send and Lookup answer an error
// (the payout stays with its sender), until the history shows it
// completed.
func TestExchangeRailProcessing(t *testing.T) {
	e := newExEnv(t, time.Hour, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if tr, err := e.rail.Send(ctx, "PO1", evmPayee, 6000); err == nil || tr.Refused {
		t.Fatalf("Send of a processing withdrawal = %+v, %v; want an error", tr, err)
	}
	if _, found, err := e.rail.Lookup(context.Background(), "PO1"); err == nil || found {
		t.Fatalf("Lookup of a processing withdrawal: found %v, %v; want an error", found, err)
	}
	e.advance(time.Hour)
	if tr, found, err := e.rail.Lookup(context.Background(), "PO1"); err != nil || !found || tr.TxHash == "" {
		t.Fatalf("Lookup of the completed withdrawal = %+v, %v, %v", tr, found, err)
	}
}

// TestExchangeRailLooksBack: a withdrawal older than the history's default
// window is found in an older one; a rail that looked only at the last
// window would send it again.
func TestExchangeRailLooksBack(t *testing.T) {
	ctx := context.Background()
	e := newExEnv(t, 0, nil)
	if _, err := e.rail.Send(ctx, "PO1", evmPayee, 6000); err != nil {
		t.Fatal(err)
	}
	e.advance(10 * 24 * time.Hour)
	if tr, found, err := e.rail.Lookup(ctx, "PO1"); err != nil || !found || tr.TxHash == "" {
		t.Fatalf("Lookup 10 days on = %+v, %v, %v", tr, found, err)
	}
	e.advance(100 * 24 * time.Hour)
	if _, found, err := e.rail.Lookup(ctx, "PO1"); err != nil || found {
		t.Fatalf("Lookup beyond the look-back: found %v, %v", found, err)
	}
}

// TestExchangeRailRefusals: the exchange refusing the withdrawal, or
// ending it unsent, fails the payout (money back); the exchange refusing
// the request itself (a bad signature) is an error, and the payout waits.
func TestExchangeRailRefusals(t *testing.T) {
	ctx := context.Background()
	e := newExEnv(t, time.Hour, nil)
	if tr, err := e.rail.Send(ctx, "PO1", payee, 100); err != nil || !tr.Refused {
		t.Errorf("a TRON address on BSC: %+v, %v; want refused", tr, err)
	}
	p := e.only(t)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := e.rail.Send(short, p.Reference(), evmPayee, p.Amount); err == nil {
		t.Fatal("a processing withdrawal was answered")
	}
	if err := e.sim.EndWithdrawal(ctx, p.Reference(), exchange.WithdrawRejected, "address blacklisted"); err != nil {
		t.Fatal(err)
	}
	// Not resumed: the sender applies, is refused as a duplicate, and
	// reads what the withdrawal became.
	e.sender(t, e.rail).Once(ctx)
	if p = e.only(t); p.State != payout.Failed || !strings.Contains(p.Reason, "address blacklisted") {
		t.Fatalf("payout %+v, want failed with the exchange's reason", p)
	}
	for name, cfg := range map[string]exchange.Config{
		"badly signed":  {BaseURL: e.url, APIKey: exchange.SandboxAPIKey, Secret: "not-the-secret", Timeout: time.Second, Now: e.clockNow},
		"out of reach":  {BaseURL: "http://127.0.0.1:1", APIKey: "k", Secret: "s", Timeout: time.Second},
		"another's key": {BaseURL: e.url, APIKey: "not-the-key", Secret: exchange.SandboxSecret, Timeout: time.Second, Now: e.clockNow},
	} {
		r, err := rails.NewExchange(rails.ExchangeDefaults(), exchange.NewClient(cfg, nil), "TRC20")
		if err != nil {
			t.Fatal(err)
		}
		if tr, err := r.Send(ctx, "PO2", payee, 100); err == nil || tr.Refused {
			t.Errorf("%s: %+v, %v; want an error, the payout waiting", name, tr, err)
		}
	}
}
