package schema

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestOrderIDs(t *testing.T) {
	now := time.Date(2026, 11, 21, 22, 33, 20, 123e6, time.UTC)
	seen := map[string]bool{}
	for s := Shard(0); s < NumShards; s++ {
		id := NewOrderID(now, s)
		got, ok := ParseOrderID(id)
		if !ok || got != s {
			t.Fatalf("ParseOrderID(%s) = %d, %v; want shard %d", id, got, ok, s)
		}
		if at, ok := OrderIDTime(id); !ok || !at.Equal(now) {
			t.Fatalf("OrderIDTime(%s) = %v, want %v", id, at, now)
		}
		seen[id] = true
	}
	if len(seen) != NumShards {
		t.Fatal("ids repeat")
	}
	later := NewOrderID(now.Add(time.Millisecond), 0)
	if !(NewOrderID(now, 15) < later) {
		t.Fatal("ids must sort by creation time before shard")
	}
	for _, bad := range []string{"", "P123", "X" + later[1:], later[:len(later)-1] + "G", later[:18] + "ff" + later[20:], later + "0"} {
		if _, ok := ParseOrderID(bad); ok {
			t.Errorf("ParseOrderID(%q) accepted", bad)
		}
	}
}

func TestShardsAreStable(t *testing.T) {
	if ShardFor("1001", "A-77") != ShardFor("1001", "A-77") {
		t.Fatal("ShardFor is not a function of its input")
	}
	counts := make([]int, NumShards)
	for i := range 1600 {
		counts[RandomShard()]++
		counts[ShardFor("1001", fmt.Sprint("order-", i))]++
	}
	for s, n := range counts {
		if n == 0 {
			t.Fatalf("shard %d never chosen in 3200 draws", s)
		}
	}
}

func TestStatusTransitions(t *testing.T) {
	tests := []struct {
		name     string
		from, to Status
		ok       bool
	}{
		{"pending to ready", StatusPending, StatusReady, true},
		{"ready to paid", StatusReady, StatusPaid, true},
		{"pending to paid", StatusPending, StatusPaid, true},
		{"late payment after failure", StatusFailed, StatusPaid, true},
		{"late payment after cancel", StatusCancelled, StatusPaid, true},
		{"ready to failed", StatusReady, StatusFailed, true},
		{"pending to cancelled", StatusPending, StatusCancelled, true},
		{"paid is final", StatusPaid, StatusFailed, false},
		{"paid twice", StatusPaid, StatusPaid, false},
		{"ready twice", StatusReady, StatusReady, false},
		{"ready back to pending", StatusReady, StatusPending, false},
		{"failed to cancelled", StatusFailed, StatusCancelled, false},
		{"failed to ready", StatusFailed, StatusReady, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.from.CanMoveTo(tt.to); got != tt.ok {
				t.Fatalf("%s -> %s = %v, want %v", tt.from, tt.to, got, tt.ok)
			}
		})
	}
}

func sampleOrder() Order {
	at := time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC)
	return Order{
		ID: "P20261121223320000030123456789abcdef", AppID: "1001", Sandbox: true, ClientOrderID: "A-77", Amount: 10050,
		Currency: "USD", Method: MethodWalletA, Status: StatusReady, Description: "订单 #42",
		NotifyURL: "https://shop.example/hook", ReturnURL: "https://shop.example/r/{paymentId}", Lang: "zh",
		QRPayload: "qr://x", CreatedAt: at, UpdatedAt: at, Version: 2,
		// Not a usdt_direct order's: here so the round trip covers them.
		Network: "TRC20", TxHash: "9f0c" + strings.Repeat("ab", 30), Expired: true,
	}
}

func TestOrderFieldsRoundTrip(t *testing.T) {
	o := sampleOrder()
	f := o.Fields()
	h := map[string]string{}
	for i := 0; i < len(f); i += 2 {
		h[f[i]] = f[i+1]
	}
	got, err := OrderFromFields(h)
	if err != nil {
		t.Fatal(err)
	}
	if got != o {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, o)
	}
}

func TestDecodeEvent(t *testing.T) {
	o := sampleOrder()
	at := time.Date(2026, 11, 21, 22, 40, 0, 0, time.UTC)
	good := func() map[string]any {
		f := EventFields(EventPaid, at, &o)
		m := map[string]any{}
		for i := 0; i < len(f); i += 2 {
			m[f[i].(string)] = f[i+1]
		}
		return m
	}
	edit := func(k string, v any) map[string]any {
		m := good()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name   string
		values map[string]any
		ok     bool
	}{
		{"good", good(), true},
		{"unknown type", edit(EvType, "refunded"), false},
		{"bad version", edit(FVersion, "x"), false},
		{"no version", edit(FVersion, nil), false},
		{"bad time", edit(EvAt, "soon"), false},
		{"no order id", edit(FID, nil), false},
		{"bad amount", edit(FAmount, "1.5"), false},
		// A field a newer writer added (a later order detail) is ignored,
		// so a changed event carrying it still projects.
		{"unknown field", edit("zz_future", "x"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := DecodeEvent("1-0", tt.values)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && (ev.Order != o || ev.Version != o.Version || ev.Type != EventPaid || !ev.At.Equal(at)) {
				t.Fatalf("decoded %+v", ev)
			}
		})
	}
}

// BenchmarkDecodeEvent is the projector's and dispatcher's per-event cost.
func BenchmarkDecodeEvent(b *testing.B) {
	o := sampleOrder()
	f := EventFields(EventPaid, time.Now(), &o)
	m := map[string]any{}
	for i := 0; i < len(f); i += 2 {
		m[f[i].(string)] = f[i+1]
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeEvent("1-0", m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOrderLinks(t *testing.T) {
	base := "https://pay.example"
	o := sampleOrder()
	tests := []struct {
		name         string
		edit         func(*Order)
		redirect     string
		sel, qr      string
		merchantGoTo string
	}{
		{"qr method", func(*Order) {}, base + "/payment/" + o.ID, "", base + "/payment/" + o.ID + "/qr.png", base + "/payment/" + o.ID},
		{"provider redirect", func(x *Order) { x.Method, x.QRPayload, x.ProviderURL = MethodBDCard, "", "https://psp/x" }, "https://psp/x", "", "", "https://psp/x"},
		{"select with lang", func(x *Order) { x.Method, x.QRPayload, x.NextAction = MethodSelect, "", NextMethodSelect },
			base + "/zh/payment/" + o.ID + "?step=select", base + "/zh/payment/" + o.ID + "?step=select", "", base + "/zh/payment/" + o.ID + "?step=select"},
		{"select in en", func(x *Order) { x.Method, x.QRPayload, x.NextAction, x.Lang = MethodSelect, "", NextMethodSelect, "en" },
			base + "/payment/" + o.ID + "?step=select", base + "/payment/" + o.ID + "?step=select", "", base + "/payment/" + o.ID + "?step=select"},
		{"usdt direct", func(x *Order) { x.Method, x.QRPayload, x.NextAction = MethodUSDTDirect, "", NextUSDTDirectPay },
			base + "/payment/" + o.ID + "/usdt-direct", base + "/payment/" + o.ID + "/usdt-direct", "", base + "/payment/" + o.ID + "/usdt-direct"},
		{"balance", func(x *Order) { x.Method, x.QRPayload = MethodBalance, "" }, "", "", "", base + "/payment/" + o.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := sampleOrder()
			tt.edit(&x)
			l := OrderLinks(&x, base)
			if l.RedirectURL != tt.redirect || l.SelectURL != tt.sel || l.QRImageURL != tt.qr {
				t.Fatalf("links = %+v", l)
			}
			if got := l.MerchantRedirect(base, x.ID); got != tt.merchantGoTo {
				t.Fatalf("merchant redirect = %s, want %s", got, tt.merchantGoTo)
			}
		})
	}
}

// TestPackOrderID: a packed id unpacks to itself, in 18 bytes; anything
// else is kept as it is.
func TestPackOrderID(t *testing.T) {
	for _, id := range []string{NewOrderID(time.Now(), 0), NewOrderID(time.Now(), 15), "Pnot-an-id", ""} {
		p := PackOrderID(id)
		if got := UnpackOrderID(p); got != id {
			t.Fatalf("%q packs to %q, unpacks to %q", id, p, got)
		}
		if _, ok := ParseOrderID(id); ok && len(p) != 18 {
			t.Fatalf("%q packs to %d bytes", id, len(p))
		}
	}
}
