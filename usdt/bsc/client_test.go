package bsc_test

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

	bsc "github.com/paygate/gateway/usdt/bsc"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"
	bscsim "github.com/paygate/gateway/web/sandbox/usdt/bsc"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

const (
	ours  = "0x65c9711692d1f8b9e0ce01c21be4cb2b7ecb7a43" // the vectors' recipient
	payer = "0xc9ba7387d72c52cbb878b06968b3cc78d5802c8c"
	fake  = "0x1111111111111111111111111111111111111111"
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
	sim    *bscsim.Sim
	client *bsc.Client
	clock  *clock
}

func newNode(t *testing.T) *node {
	t.Helper()
	n := &node{clock: &clock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}}
	n.sim = bscsim.NewSim(bscsim.SimConfig{Now: n.clock.Now, Hang: 2 * time.Second}, &provider.MemState{})
	srv := httptest.NewServer(n.sim.Handler())
	t.Cleanup(srv.Close)
	n.client = bsc.NewClient(bsc.Config{BaseURL: srv.URL, Timeout: 300 * time.Millisecond}, srv.Client())
	return n
}

func (n *node) add(t *testing.T, spec bscsim.TransferSpec) string {
	t.Helper()
	hash, err := n.sim.AddTransfer(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !bsc.ValidHash(hash) || strings.ToLower(hash) != hash {
		t.Fatalf("simulated hash %q is not in BSC's form", hash)
	}
	return hash
}

func mustUnits(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("units %q", s)
	}
	return n
}

func TestTx(t *testing.T) {
	const amount = "12347061000000000000"
	cases := []struct {
		name      string
		spec      bscsim.TransferSpec
		success   bool
		transfers int
		contract  string
		to        string
	}{
		{"USDT to us", bscsim.TransferSpec{To: ours, From: payer, Success: true}, true, 1, bscsim.USDTContract, ours},
		{"failed: status 0x0, no logs", bscsim.TransferSpec{To: ours, From: payer}, false, 0, "", ""},
		{"another token", bscsim.TransferSpec{To: ours, From: payer, Contract: fake, Success: true}, true, 1, fake, ours},
		{"another recipient, mixed case", bscsim.TransferSpec{To: strings.ToUpper(fake[2:]), From: payer, Success: true}, true, 1, bscsim.USDTContract, fake},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := newNode(t)
			tc.spec.Units = mustUnits(t, amount)
			if !strings.HasPrefix(tc.spec.To, "0x") {
				tc.spec.To = "0x" + tc.spec.To
			}
			hash := n.add(t, tc.spec)
			got, err := n.client.Tx(context.Background(), "0x"+strings.ToUpper(hash[2:]))
			if err != nil {
				t.Fatal(err)
			}
			head := n.sim.Head()
			if got.Hash != hash || got.Success != tc.success || got.Confirmations != 1 || !got.BlockTime.Equal(n.sim.Chain.TimeOf(head)) {
				t.Errorf("Tx = %+v, want success %v, 1 confirmation, at %v", got, tc.success, n.sim.Chain.TimeOf(head))
			}
			if len(got.Transfers) != tc.transfers {
				t.Fatalf("transfers %+v, want %d", got.Transfers, tc.transfers)
			}
			if tc.transfers == 1 {
				tr := got.Transfers[0]
				if tr.Contract != tc.contract || tr.To != tc.to || tr.From != payer || tr.Units.String() != amount {
					t.Errorf("transfer %+v, want %s -> %s of %s on %s", tr, payer, tc.to, amount, tc.contract)
				}
			}
		})
	}
}

func TestOneUnitShortIsSeen(t *testing.T) {
	n := newNode(t)
	hash := n.add(t, bscsim.TransferSpec{To: ours, Units: mustUnits(t, "12347060999999999999"), Success: true})
	got, err := n.client.Tx(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	payable, _ := usdt.Units("12.347061", 18)
	if len(got.Transfers) != 1 || got.Transfers[0].Units.Cmp(payable) == 0 || got.Transfers[0].Units.String() != "12347060999999999999" {
		t.Fatalf("transfers %+v: the one-unit-short amount must come through exactly", got.Transfers)
	}
}

func TestConfirmationsGrow(t *testing.T) {
	n := newNode(t)
	hash := n.add(t, bscsim.TransferSpec{To: ours, Units: big.NewInt(1), Success: true, At: n.clock.Now().Add(7 * time.Second)})
	if _, err := n.client.Tx(context.Background(), hash); !errors.Is(err, usdt.ErrNotFound) {
		t.Fatalf("before its block: %v, want ErrNotFound", err)
	}
	n.clock.Add(7 * time.Second)
	prev := int64(1)
	for i, w := range []int64{1, 5, 15} {
		n.clock.Add(time.Duration(w-prev) * bscsim.BlockInterval)
		prev = w
		got, err := n.client.Tx(context.Background(), hash)
		if err != nil || got.Confirmations != w {
			t.Fatalf("step %d: %d confirmations, %v; want %d", i, got.Confirmations, err, w)
		}
	}
}

func TestNotFoundAndDown(t *testing.T) {
	n := newNode(t)
	ctx := context.Background()
	hash := n.add(t, bscsim.TransferSpec{To: ours, Units: big.NewInt(1), Success: true})
	if _, err := n.client.Tx(ctx, "0x"+strings.Repeat("ab", 32)); !errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("unknown hash: %v, want ErrNotFound", err)
	}
	if _, err := n.client.Tx(ctx, hash[2:]); err == nil || errors.Is(err, usdt.ErrNotFound) {
		t.Errorf("hash without 0x: %v, want a refusal", err)
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
}

func TestRPCErrorIsNotNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"limit exceeded"}}`))
	}))
	defer srv.Close()
	_, err := bsc.NewClient(withBase(srv.URL), srv.Client()).Tx(context.Background(), "0x"+strings.Repeat("0", 64))
	if err == nil || errors.Is(err, usdt.ErrNotFound) {
		t.Fatalf("Tx = %v, want an error that is not ErrNotFound", err)
	}
}

func TestRegisterOnFiber(t *testing.T) {
	app := sandboxtest.App()
	sim := bscsim.NewSim(bscsim.SimConfig{}, &provider.MemState{})
	sim.Register(app.Group("/sandbox/usdt/bsc"))
	srv := sandboxtest.NewServer(app)
	defer srv.Close()
	hash, err := sim.AddTransfer(context.Background(), bscsim.TransferSpec{To: ours, Units: mustUnits(t, "12347061000000000000"), Success: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := bsc.NewClient(withBase(srv.URL+"/sandbox/usdt/bsc"), srv.Client()).Tx(context.Background(), hash)
	if err != nil || !got.Success || len(got.Transfers) != 1 || got.Transfers[0].To != ours {
		t.Fatalf("Tx = %+v, %v", got, err)
	}
}

// withBase is the default connection to base.
func withBase(base string) bsc.Config {
	c := bsc.Defaults()
	c.BaseURL = base
	return c
}
