package usdt

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// tronOf is the TRON address of a 20-byte account, written here
// independently of the decoder under test.
func tronOf(account byte) string {
	b := append([]byte{0x41}, slices.Repeat([]byte{account}, 20)...)
	sum := sha256.Sum256(b)
	sum = sha256.Sum256(sum[:])
	n := new(big.Int).SetBytes(append(b, sum[:4]...))
	var out []byte
	for mod := new(big.Int); n.Sign() > 0; {
		n.DivMod(n, big.NewInt(58), mod)
		out = append([]byte{"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"[mod.Int64()]}, out...)
	}
	return string(out)
}

func evmOf(b byte) string { return "0x" + strings.Repeat(string("0123456789abcdef"[b%16]), 40) }

func TestCheck(t *testing.T) {
	tron := tronOf(7)
	// one character changed: the checksum no longer matches
	typo := tron[:10] + map[bool]string{true: "b", false: "a"}[tron[10] == 'a'] + tron[11:]
	tests := []struct {
		name string
		in   Network
		want Network // when ok
		bad  string  // part of the error
	}{
		{"TRC20 defaults", Network{Name: "trc20", Addresses: []string{" " + tron + " "}},
			Network{Name: "TRC20", Addresses: []string{tron}, Contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Decimals: 6,
				Confirmations: 30, Mode: ModeChain, ExchangeNetwork: "TRX"}, ""},
		{"BEP20 defaults, EVM hex lower-cased", Network{Name: "BEP20", Addresses: []string{"0x" + strings.Repeat("AB", 20)}, Sandbox: true},
			Network{Name: "BEP20", Addresses: []string{"0x" + strings.Repeat("ab", 20)}, Contract: "0x55d398326f99059ff775485246999027b3197955",
				Decimals: 18, Confirmations: 15, Mode: ModeChain, ExchangeNetwork: "BSC", Sandbox: true}, ""},
		{"everything given", Network{Name: "BEP20", Addresses: []string{evmOf(1), evmOf(2)}, Contract: evmOf(3), Decimals: 6,
			Confirmations: 3, Mode: ModeDual, ExchangeNetwork: "bnb"},
			Network{Name: "BEP20", Addresses: []string{evmOf(1), evmOf(2)}, Contract: evmOf(3), Decimals: 6,
				Confirmations: 3, Mode: ModeDual, ExchangeNetwork: "BNB"}, ""},
		{"unknown network", Network{Name: "SOL", Addresses: []string{tron}}, Network{}, "unknown"},
		{"TRON checksum", Network{Name: "TRC20", Addresses: []string{typo}}, Network{}, "not a TRC20 address"},
		{"EVM address on TRON", Network{Name: "TRC20", Addresses: []string{evmOf(1)}}, Network{}, "not a TRC20 address"},
		{"short EVM address", Network{Name: "BEP20", Addresses: []string{evmOf(1)[:41]}}, Network{}, "not a BEP20 address"},
		{"no address", Network{Name: "BEP20"}, Network{}, "at least one"},
		{"address twice", Network{Name: "BEP20", Addresses: []string{evmOf(1), strings.ToUpper(evmOf(1))}}, Network{}, "twice"},
		{"bad contract", Network{Name: "TRC20", Addresses: []string{tron}, Contract: "TX"}, Network{}, "contract"},
		{"bad mode", Network{Name: "TRC20", Addresses: []string{tron}, Mode: "vibes"}, Network{}, "mode"},
		{"negative decimals", Network{Name: "TRC20", Addresses: []string{tron}, Decimals: -1}, Network{}, "decimals"},
		{"negative confirmations", Network{Name: "TRC20", Addresses: []string{tron}, Confirmations: -1}, Network{}, "confirmations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(tt.in)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Fatalf("err = %v, want one saying %q", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestStoreSetListRemove(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	st := NewStore(rdb)
	version := func() string { return rdb.Get(ctx, schema.USDTConfigVersionKey).Val() }
	names := func() []string {
		nets, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range nets {
			out = append(out, n.Key())
		}
		return out
	}
	steps := []struct {
		name    string
		do      func() error
		bad     bool
		want    []string
		version string
	}{
		{"sandbox BEP20", func() error { return st.Set(ctx, Network{Name: "BEP20", Addresses: []string{evmOf(1)}, Sandbox: true}) },
			false, []string{"sandbox:BEP20"}, "1"},
		{"live BEP20", func() error { return st.Set(ctx, Network{Name: "BEP20", Addresses: []string{evmOf(2)}}) },
			false, []string{"BEP20", "sandbox:BEP20"}, "2"},
		{"live TRC20 listed first", func() error { return st.Set(ctx, Network{Name: "TRC20", Addresses: []string{tronOf(1)}}) },
			false, []string{"TRC20", "BEP20", "sandbox:BEP20"}, "3"},
		{"invalid: nothing written", func() error { return st.Set(ctx, Network{Name: "TRC20", Addresses: []string{"T1"}}) },
			true, []string{"TRC20", "BEP20", "sandbox:BEP20"}, "3"},
		{"remove the sandbox one only", func() error { return st.Remove(ctx, "bep20", true) },
			false, []string{"TRC20", "BEP20"}, "4"},
		{"remove what is not there", func() error { return st.Remove(ctx, "BEP20", true) },
			true, []string{"TRC20", "BEP20"}, "4"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if err := s.do(); (err != nil) != s.bad {
				t.Fatalf("err = %v, want bad=%v", err, s.bad)
			}
			if got := names(); !slices.Equal(got, s.want) {
				t.Fatalf("networks %v, want %v", got, s.want)
			}
			if v := version(); v != s.version {
				t.Fatalf("version %q, want %q", v, s.version)
			}
		})
	}
	if err := st.Remove(ctx, "ERC20", false); !errors.Is(err, ErrNoNetwork) {
		t.Fatalf("remove unknown: %v", err)
	}
	nets, _ := st.List(ctx)
	if nets[0].Addresses[0] != tronOf(1) || nets[0].Decimals != 6 || nets[1].Decimals != 18 {
		t.Fatalf("stored without defaults: %+v", nets)
	}
}

// TestSeed: the environment seeds a store never configured, and never one
// an operator configured, even after the operator removed every network.
func TestSeed(t *testing.T) {
	ctx := context.Background()
	st := NewStore(testenv.Redis(t))
	seed := []Network{{Name: "TRC20", Addresses: []string{tronOf(1)}}, {Name: "TRC20", Addresses: []string{tronOf(2)}, Sandbox: true}}
	if ok, err := st.Seed(ctx, []Network{{Name: "TRC20", Addresses: []string{"bad"}}}); ok || err == nil {
		t.Fatalf("an invalid seed: seeded %v, %v", ok, err)
	}
	if ok, err := st.Seed(ctx, seed); !ok || err != nil {
		t.Fatalf("first seed: %v, %v", ok, err)
	}
	if nets, _ := st.List(ctx); len(nets) != 2 || nets[1].Addresses[0] != tronOf(2) || !nets[1].Sandbox {
		t.Fatalf("seeded %+v", nets)
	}
	other := []Network{{Name: "BEP20", Addresses: []string{evmOf(1)}}}
	if ok, _ := st.Seed(ctx, other); ok {
		t.Fatal("a second start seeded again")
	}
	for _, n := range seed {
		if err := st.Remove(ctx, n.Name, n.Sandbox); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := st.Seed(ctx, other); ok {
		t.Fatal("seeded a store the operator emptied")
	}
}

// TestWatcherReloads: the watcher's copy follows the version key, not the
// hash: a change is seen once the version moves, and a poll with the
// version unchanged reads nothing.
func TestWatcherReloads(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	st := NewStore(rdb)
	w := NewWatcher(st, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	if err := w.Load(ctx); err != nil || len(w.Networks()) != 0 {
		t.Fatalf("empty store: %v %v", w.Networks(), err)
	}
	if err := st.Set(ctx, Network{Name: "TRC20", Addresses: []string{tronOf(1)}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Set(ctx, Network{Name: "BEP20", Addresses: []string{evmOf(5)}, Sandbox: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Network("TRC20"); ok {
		t.Fatal("seen before any poll")
	}
	if err := w.poll(ctx); err != nil {
		t.Fatal(err)
	}
	if n, ok := w.Network("TRC20"); !ok || n.Addresses[0] != tronOf(1) {
		t.Fatalf("after the version moved: %+v %v", n, ok)
	}
	if _, ok := w.Network("BEP20"); ok {
		t.Fatal("a sandbox network answered as live")
	}
	if n, ok := w.Lookup("BEP20", true); !ok || n.Decimals != 18 {
		t.Fatalf("sandbox lookup %+v %v", n, ok)
	}
	if live, sb := w.For(false), w.For(true); len(live) != 1 || len(sb) != 1 || live[0].Name != "TRC20" || sb[0].Name != "BEP20" {
		t.Fatalf("for live %v, sandbox %v", live, sb)
	}
	// A write that does not move the version is not reloaded...
	rdb.HDel(ctx, schema.USDTConfigKey, "TRC20")
	if err := w.poll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Network("TRC20"); !ok {
		t.Fatal("reloaded without a version change")
	}
	// ...until it does.
	rdb.Incr(ctx, schema.USDTConfigVersionKey)
	if err := w.poll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Network("TRC20"); ok {
		t.Fatal("not reloaded after the version moved")
	}
}
