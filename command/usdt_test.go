package command

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

func TestUSDTBase(t *testing.T) {
	rates, err := ParseUSDTRates("CNY=7.2,BDT=120.5")
	if err != nil {
		t.Fatal(err)
	}
	u := &USDT{rates: usdtRates(rates)}
	tests := []struct {
		name     string
		amount   schema.Amount
		currency string
		want     string
	}{
		{"USD is 1:1", 100_50, "USD", "100.500000"},
		{"CNY exact", 72_00, "CNY", "10.000000"},
		{"CNY rounds up to a cent", 1_00, "CNY", "0.140000"},
		{"BDT", 241_00, "BDT", "2.000000"},
		{"largest amount", schema.MaxAmount, "USD", "1000000000.000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := u.baseMicros(tt.amount, tt.currency)
			if got := formatMicros(base); err != nil || got != tt.want {
				t.Fatalf("base = %s, want %s", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"CNY", "CNY=0", "CNY=-1", "XYZ=1", "CNY=1.1234567"} {
		if _, err := ParseUSDTRates(bad); err == nil {
			t.Errorf("ParseUSDTRates(%q) accepted", bad)
		}
	}
	if _, err := (&USDT{rates: fixedRates{}}).baseMicros(100, "CNY"); err == nil {
		t.Error("a CNY amount converted without a USDT:CNY rate")
	}
}

// TestUSDTPayableAmountsAreUnique creates many usdt_direct orders of one
// amount: every payable amount differs, carries a suffix of 1 to 9999
// micro-USDT over the converted amount, and is reserved for its order.
func TestUSDTPayableAmountsAreUnique(t *testing.T) {
	h := newRedisHarness(t)
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = "usdt_direct", "CNY", "72"
	seen := map[string]string{}
	for range 200 {
		d := h.createOK(p)
		pa := d["payableAmount"].(string)
		if prev, dup := seen[pa]; dup {
			t.Fatalf("payable amount %s given to %s and %s", pa, prev, d["paymentId"])
		}
		seen[pa] = d["paymentId"].(string)
		whole, frac, _ := strings.Cut(pa, ".")
		suffix, _ := strconv.Atoi(frac)
		if whole != "10" || len(frac) != 6 || suffix < 1 || suffix > 9999 {
			t.Fatalf("payable amount %s, want 10.000001 to 10.009999", pa)
		}
		if holder, _ := h.rdb.Get(context.Background(), schema.USDTAmountKey(pa)).Result(); holder != seen[pa] {
			t.Fatalf("amount %s reserved for %q, want %s", pa, holder, seen[pa])
		}
	}
}

func TestClientIPBehindProxy(t *testing.T) {
	tests := []struct {
		name     string
		trusted  []string
		xff      string
		clientip string
		status   int
	}{
		{"no proxy trusted: header ignored", nil, "198.51.100.7", "198.51.100.7", 403},
		{"no proxy trusted: peer counts", nil, "198.51.100.7", testIP, 200},
		{"trusted proxy: client from header", []string{"0.0.0.0/32"}, "198.51.100.7", "198.51.100.7", 200},
		{"trusted proxy: spoofed left part ignored", []string{"0.0.0.0/32"}, "1.1.1.1, 198.51.100.7", "1.1.1.1", 403},
		{"trusted chain: rightmost untrusted", []string{"0.0.0.0/32", "10.0.0.0/8"}, "198.51.100.7, 10.1.2.3", "198.51.100.7", 200},
		{"ipv6 client", []string{"0.0.0.0/32"}, "2001:db8::1", "2001:0db8:0:0:0:0:0:1", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t, withTrustedProxies(tt.trusted...))
			p := h.baseParams()
			p["clientip"] = tt.clientip
			r := h.post(signed(p, h.acct.APIKey), "X-Forwarded-For", tt.xff)
			if r.Status != tt.status {
				t.Fatalf("got %d %s, want %d", r.Status, r.Raw, tt.status)
			}
		})
	}
}
