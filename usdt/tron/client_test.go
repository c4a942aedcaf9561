package tron_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tron "github.com/paygate/gateway/usdt/tron"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

const (
	ours  = "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR" // the vectors' receiving address
	payer = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
)

// clock is the simulated chain's time, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type node struct {
	sim    *tronsim.Sim
	client *tron.Client
	clock  *clock
	keys   chan string // the API key header of each call
}

func newNode(t *testing.T) *node {
	t.Helper()
	n := &node{clock: &clock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}, keys: make(chan string, 100)}
	n.sim = tronsim.NewSim(tronsim.SimConfig{Now: n.clock.Now, Hang: 2 * time.Second}, &provider.MemState{})
	h := n.sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case n.keys <- r.Header.Get(tron.APIKeyHeader):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	n.client = tron.NewClient(tron.Config{BaseURL: srv.URL + "/", APIKey: "k-1", Timeout: 300 * time.Millisecond}, srv.Client())
	return n
}

func (n *node) add(t *testing.T, spec tronsim.TransferSpec) string {
	t.Helper()
	hash, err := n.sim.AddTransfer(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !tron.ValidHash(hash) || strings.ToLower(hash) != hash {
		t.Fatalf("simulated hash %q is not in TRON's form", hash)
	}
	return hash
}

func units(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

func TestTx(t *testing.T) {
	other := "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"
	cases := []struct {
		name     string
		spec     tronsim.TransferSpec
		success  bool
		contract string
		to       string
	}{
		{"USDT to us", tronsim.TransferSpec{To: ours, From: payer, Units: units("12347061"), Success: true}, true, tronsim.USDTContract, ours},
		{"reverted", tronsim.TransferSpec{To: ours, From: payer, Units: units("12347061")}, false, tronsim.USDTContract, ours},
		{"another token", tronsim.TransferSpec{To: ours, From: payer, Contract: payer, Units: units("12347061"), Success: true}, true, payer, ours},
		{"another recipient", tronsim.TransferSpec{To: payer, From: other, Units: units("12347061"), Success: true}, true, tronsim.USDTContract, payer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := newNode(t)
			hash := n.add(t, tc.spec)
			got, err := n.client.Tx(context.Background(), hash)
			if err != nil {
				t.Fatal(err)
			}
			if got.Hash != hash || got.Success != tc.success || got.Confirmations != 1 {
				t.Errorf("Tx = %+v, want success %v with 1 confirmation", got, tc.success)
			}
			if !got.BlockTime.Equal(n.sim.Chain.TimeOf(n.sim.Head())) {
				t.Errorf("block time %v, want the head's %v", got.BlockTime, n.sim.Chain.TimeOf(n.sim.Head()))
			}
			if len(got.Transfers) != 1 {
				t.Fatalf("transfers %+v, want one", got.Transfers)
			}
			tr := got.Transfers[0]
			if tr.Contract != tc.contract || tr.To != tc.to || tr.From != tc.spec.From || tr.Units.String() != "12347061" {
				t.Errorf("transfer %+v, want %s -> %s of 12347061 on %s", tr, tc.spec.From, tc.to, tc.contract)
			}
		})
	}
}

func TestConfirmationsGrow(t *testing.T) {
	n := newNode(t)
	hash := n.add(t, tronsim.TransferSpec{To: ours, Units: units("1"), Success: true, At: n.clock.Now().Add(10 * time.Second)})
	if _, err := n.client.Tx(context.Background(), hash); !errors.Is(err, usdt.ErrNotFound) {
		t.Fatalf("before its block: %v, want ErrNotFound", err)
	}
	want := []int64{1, 11, 31}
	n.clock.Add(10 * time.Second)
	for i, w := range want {
		if i > 0 {
			n.clock.Add(time.Duration(w-want[i-1]) * tronsim.BlockInterval)
		}
		got, err := n.client.Tx(context.Background(), hash)
		if err != nil || got.Confirmations != w {
			t.Fatalf("step %d: %d confirmations, %v; want %d", i, got.Confirmations, err, w)
		}
	}
}

func TestNotFoundAndDown(t *testing.T) {
	n := newNode(t)
	hash := n.add(t, tronsim.TransferSpec{To: ours, Units: units("1"), Success: true})
	ctx := context.Background()
	if _, err := n.client.Tx(ctx, strings.Repeat("ab", 32)); !errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("unknown hash: %v, want ErrNotFound", err)
	}
	if _, err := n.client.Tx(ctx, "0x"+hash); err == nil || errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("malformed hash: %v, want a refusal", err)
	}
	for _, f := range []usdtsim.Failure{usdtsim.Down, usdtsim.Hang} {
		if err := n.sim.Fail(ctx, hash, f); err != nil {
			t.Fatal(err)
		}
		if _, err := n.client.Tx(ctx, hash); err == nil || errors.Is(err, usdt.ErrNotFound) {
			t.Errorf("%s: %v, want a backend error", f, err)
		}
	}
	if err := n.sim.Fail(ctx, hash, usdtsim.Healthy); err != nil {
		t.Fatal(err)
	}
	if _, err := n.client.Tx(ctx, hash); err != nil {
		t.Errorf("healed: %v", err)
	}
	if k := <-n.keys; k != "k-1" {
		t.Errorf("API key header %q", k)
	}
}

func TestRefusalIsNotNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"Error":"class java.lang.NullPointerException : null"}`))
	}))
	defer srv.Close()
	_, err := tron.NewClient(withBase(srv.URL), srv.Client()).Tx(context.Background(), strings.Repeat("0", 64))
	if err == nil || errors.Is(err, usdt.ErrNotFound) {
		t.Fatalf("Tx = %v, want an error that is not ErrNotFound", err)
	}
}

func TestRegisterOnFiber(t *testing.T) {
	app := sandboxtest.App()
	sim := tronsim.NewSim(tronsim.SimConfig{}, &provider.MemState{})
	sim.Register(app.Group("/sandbox/usdt/tron"))
	srv := sandboxtest.NewServer(app)
	defer srv.Close()
	hash, err := sim.AddTransfer(context.Background(), tronsim.TransferSpec{To: ours, Units: units("12347061"), Success: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tron.NewClient(withBase(srv.URL+"/sandbox/usdt/tron"), srv.Client()).Tx(context.Background(), hash)
	if err != nil || !got.Success || len(got.Transfers) != 1 || got.Transfers[0].Units.String() != "12347061" {
		t.Fatalf("Tx = %+v, %v", got, err)
	}
}

func TestInvalidConfig(t *testing.T) {
	if err := (tron.Config{BaseURL: "trongrid"}).Validate(); err == nil {
		t.Error("a relative base URL was accepted")
	}
	if _, err := tron.NewClient(tron.Config{}, nil).Tx(context.Background(), strings.Repeat("0", 64)); err == nil {
		t.Error("a client without a base URL made a call")
	}
}

// withBase is the default connection to base.
func withBase(base string) tron.Config {
	c := tron.Defaults()
	c.BaseURL = base
	return c
}
