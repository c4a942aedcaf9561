package command

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// tronOf is the TRON address of a 20-byte account: base58check of 0x41 and
// the account, written here independently of the decoder under test.
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

func usdtNet(name, addr string) schema.USDTNetwork {
	return schema.USDTNetwork{Name: name, Address: addr}
}

// msgOf is the message the caller of a domain error sees.
func msgOf(err error) string {
	var pe *platform.Error
	if errors.As(err, &pe) {
		return pe.Msg
	}
	return ""
}

func TestParseUSDTNetworks(t *testing.T) {
	tron, bsc := tronOf(7), "0x"+strings.Repeat("ab", 20)
	typo := []byte(tron)
	typo[20] = map[bool]byte{true: 'b', false: 'a'}[typo[20] == 'a']
	tests := []struct {
		name string
		in   string
		want []schema.USDTNetwork // nil with ok=false: refused
		ok   bool
	}{
		{"both", "TRC20=" + tron + ",BEP20=" + bsc, []schema.USDTNetwork{usdtNet("TRC20", tron), usdtNet("BEP20", bsc)}, true},
		{"order kept, spaces and case", " bep20 = " + bsc + " , trc20=" + tron, []schema.USDTNetwork{usdtNet("BEP20", bsc), usdtNet("TRC20", tron)}, true},
		{"ERC20", "ERC20=0x" + strings.Repeat("0F", 20), []schema.USDTNetwork{usdtNet("ERC20", "0x"+strings.Repeat("0F", 20))}, true},
		{"none", "", nil, true},
		{"unknown network", "OMNI=1BoatSLRHtKNngkdXEeobR76b53LETtpyT", nil, false},
		{"TRC20 checksum wrong", "TRC20=" + string(typo), nil, false},
		{"TRC20 too short", "TRC20=" + tron[:33], nil, false},
		{"TRC20 not starting with T", "TRC20=A" + tron[1:], nil, false},
		{"TRC20 outside base58", "TRC20=" + tron[:10] + "0" + tron[11:], nil, false},
		{"TRC20 given an EVM address", "TRC20=" + bsc, nil, false},
		{"BEP20 without 0x", "BEP20=" + strings.Repeat("ab", 21), nil, false},
		{"BEP20 too short", "BEP20=" + bsc[:41], nil, false},
		{"BEP20 not hex", "BEP20=0x" + strings.Repeat("zz", 20), nil, false},
		{"BEP20 given a TRON address", "BEP20=" + tron, nil, false},
		{"twice", "TRC20=" + tron + ",TRC20=" + tron, nil, false},
		{"no address", "TRC20", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseUSDTNetworks(tt.in)
			if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v, ok=%v", got, err, tt.want, tt.ok)
			}
		})
	}
	if err := checkUSDTNetworks(SandboxUSDTNetworks()); err != nil {
		t.Fatalf("the sandbox default is malformed: %v", err)
	}
	cfg := Config{PublicURL: testBase, OrderTTL: time.Minute, OrderRetention: time.Hour,
		CreateLimit: platform.Limit{PerSecond: 1}, QueryLimit: platform.Limit{PerSecond: 1},
		USDTSandboxNetworks: []schema.USDTNetwork{usdtNet("TRC20", string(typo))}}
	if cfg.Validate() == nil {
		t.Fatal("Config.Validate took a mistyped address")
	}
}

// usdtOrder is a usdt_direct order awaiting payment: created through
// createorder for the sandbox merchant, stored as createorder would for the
// live one (the test registry offers usdt_direct to no live merchant).
func (h *harness) usdtOrder(sandbox bool) string {
	h.t.Helper()
	if sandbox {
		p := h.baseParams()
		p["paymentMethod"] = "usdt_direct"
		return h.createOK(p)["paymentId"].(string)
	}
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: h.live.AppID, Amount: 100_00,
		Currency: "USD", Method: schema.MethodUSDTDirect, Status: schema.StatusReady, PayableAmount: "100.000123",
		NextAction: schema.NextUSDTDirectPay, CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := h.store.Create(context.Background(), o); err != nil {
		h.t.Fatal(err)
	}
	return o.ID
}

func TestChooseUSDTNetwork(t *testing.T) {
	liveTron := tronOf(9)
	tests := []struct {
		name    string
		live    []schema.USDTNetwork // the live configuration
		order   func(h *harness) string
		choices []string // made first, each must succeed
		choose  string
		want    string // network after, when ok
		kind    platform.Kind
	}{
		{"sandbox default", nil, sandboxUSDT, nil, "TRC20", "TRC20", ""},
		{"name in any case", nil, sandboxUSDT, nil, "bep20", "BEP20", ""},
		{"changed before submit", nil, sandboxUSDT, []string{"TRC20"}, "BEP20", "BEP20", ""},
		{"same choice again", nil, sandboxUSDT, []string{"TRC20"}, "TRC20", "TRC20", ""},
		{"not offered", nil, sandboxUSDT, nil, "ERC20", "", platform.KindInvalidParameter},
		{"unknown network", nil, sandboxUSDT, nil, "OMNI", "", platform.KindInvalidParameter},
		{"live with networks", []schema.USDTNetwork{usdtNet("TRC20", liveTron)}, liveUSDT, nil, "TRC20", "TRC20", ""},
		{"live: sandbox networks not offered", []schema.USDTNetwork{usdtNet("TRC20", liveTron)}, liveUSDT, nil, "BEP20", "", platform.KindInvalidParameter},
		{"live without networks", nil, liveUSDT, nil, "TRC20", "", platform.KindMethodUnavailable},
		{"wrong method", nil, func(h *harness) string { return h.createOK(h.baseParams())["paymentId"].(string) }, nil, "TRC20", "", platform.KindNotFound},
		{"no such order", nil, func(h *harness) string { return "P20261123000000000000" }, nil, "TRC20", "", platform.KindNotFound},
		{"paid order", nil, func(h *harness) string {
			id := sandboxUSDT(h)
			sandboxMove(h.t.(*testing.T), h, id, "pay")
			return id
		}, nil, "TRC20", "", platform.KindConflict},
		{"after submit", nil, func(h *harness) string {
			id := sandboxUSDT(h)
			h.mustChoose(id, "TRC20")
			if _, err := h.uc.USDT.SubmitTxHash(context.Background(), id, strings.Repeat("a1", 32)); err != nil {
				h.t.Fatal(err)
			}
			return id
		}, nil, "BEP20", "", platform.KindConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			h.uc.Create.offer.live = tt.live
			id := tt.order(h)
			for _, c := range tt.choices {
				h.mustChoose(id, c)
			}
			before, _ := h.store.Get(context.Background(), id)
			o, err := h.uc.USDT.ChooseUSDTNetwork(context.Background(), id, tt.choose)
			if kindOf(err) != tt.kind || (err != nil) != (tt.kind != "") {
				t.Fatalf("err = %v, want kind %q", err, tt.kind)
			}
			after, _ := h.store.Get(context.Background(), id)
			if tt.kind != "" {
				if before != nil && *after != *before {
					t.Fatalf("a refused choice changed the order: %+v", after)
				}
				return
			}
			if o.Network != tt.want || after.Network != tt.want || after.NextAction != schema.NextUSDTDirectPay {
				t.Fatalf("network %q (stored %q, next %q), want %q", o.Network, after.Network, after.NextAction, tt.want)
			}
			if changed := before.Network != tt.want; changed != (after.Version == before.Version+1) {
				t.Fatalf("version %d -> %d", before.Version, after.Version)
			} else if changed {
				if ev := h.lastEvent(id); ev.Type != schema.EventChanged || ev.Order.Network != tt.want {
					t.Fatalf("last event %s with network %q", ev.Type, ev.Order.Network)
				}
			}
		})
	}
}

func sandboxUSDT(h *harness) string { return h.usdtOrder(true) }
func liveUSDT(h *harness) string    { return h.usdtOrder(false) }

func (h *harness) mustChoose(id, network string) {
	h.t.Helper()
	if _, err := h.uc.USDT.ChooseUSDTNetwork(context.Background(), id, network); err != nil {
		h.t.Fatalf("choose %s: %v", network, err)
	}
}

// TestUSDTNetworksFromData: with the networks as data wired, payers are
// offered what the store holds as soon as the watcher reloads, the first
// address of each; a sandbox with none configured keeps the null addresses.
func TestUSDTNetworksFromData(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	st := usdt.NewStore(h.rdb)
	w := usdt.NewWatcher(st, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Second)
	h.uc.Create.offer.source = w
	h.uc.Create.offer.live = []schema.USDTNetwork{usdtNet("TRC20", tronOf(9))} // not used once data is wired
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.uc.USDT.USDTNetworks(false); len(got) != 0 {
		t.Fatalf("live networks of an empty store: %v", got)
	}
	bep := "0x" + strings.Repeat("3c", 20)
	if err := st.Set(ctx, usdt.Network{Name: "BEP20", Addresses: []string{bep, "0x" + strings.Repeat("4d", 20)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.uc.USDT.USDTNetworks(false); !slices.Equal(got, []schema.USDTNetwork{usdtNet("BEP20", bep)}) {
		t.Fatalf("live networks: %v", got)
	}
	if got := h.uc.USDT.USDTNetworks(true); !slices.Equal(got, SandboxUSDTNetworks()) {
		t.Fatalf("sandbox networks with none configured: %v", got)
	}
	if _, err := h.uc.USDT.ChooseUSDTNetwork(ctx, liveUSDT(h), "bep20"); err != nil {
		t.Fatalf("choosing the configured network: %v", err)
	}
}
