package fiatpsp_test

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"net/url"
	"testing"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"
	fiatpspsim "github.com/paygate/gateway/web/sandbox/fiatpsp"

	"github.com/paygate/gateway/provider"
)

// vectorHarness runs the simulator (the systems list Verify reads) and an
// adapter with the vectors' shop and secrets.
func vectorHarness(t *testing.T, v vectors, allowed ...netip.Prefix) *harness {
	t.Helper()
	return startHarness(t, func(s *fiatpspsim.SimConfig, c *fiatpsp.Config) {
		s.ShopID, s.APIKey, s.Secret2 = 41200, v.APIKey, v.Secret2
		c.ShopID, c.APIKey, c.Secret2, c.AllowedIPs = 41200, v.APIKey, v.Secret2, allowed
	})
}

func formOf(fields map[string]string) url.Values {
	f := url.Values{}
	for k, v := range fields {
		f.Set(k, v)
	}
	return f
}

var local = netip.MustParseAddr("127.0.0.1")

// TestVerifyVectors runs every notification vector through Verify: valid
// ones are paid with the vector's order, reference and amount in the
// currency of system CUR_ID; invalid ones are refused as forged.
func TestVerifyVectors(t *testing.T) {
	v := loadVectors(t)
	h := vectorHarness(t, v)
	for _, c := range v.Cases {
		if c.Fields == nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			n, err := h.adapter.Verify(context.Background(), &provider.Request{Form: formOf(c.Fields), RemoteIP: local})
			if !c.Valid {
				if !errors.Is(err, provider.ErrSignature) {
					t.Fatalf("err = %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := provider.Money{Amount: 150050, Currency: "RUB"}
			if n.Outcome != provider.OutcomePaid || n.OrderID != c.Fields[fiatpsp.FieldOrder] || n.Ref != c.Fields[fiatpsp.FieldIntID] || n.InitRef != c.Fields[fiatpsp.FieldIntID] || n.Paid != want {
				t.Errorf("notification = %+v", n)
			}
			if _, ok := n.Fields[fiatpsp.FieldSign]; ok || n.Fields[fiatpsp.FieldAmount] != c.Fields[fiatpsp.FieldAmount] {
				t.Errorf("fields = %v: SIGN must go, the rest stay", n.Fields)
			}
		})
	}
}

// validVector is the first valid notification of the vectors.
func validVector(t *testing.T, v vectors) map[string]string {
	t.Helper()
	for _, c := range v.Cases {
		if c.Fields != nil && c.Valid {
			return maps.Clone(c.Fields)
		}
	}
	t.Fatal("no valid notification vector")
	return nil
}

// resign signs fields again with secret2, as the provider would have.
func resign(f map[string]string, secret2 string) map[string]string {
	f[fiatpsp.FieldSign] = fiatpsp.SignNotification(f[fiatpsp.FieldMerchant], f[fiatpsp.FieldAmount], secret2, f[fiatpsp.FieldOrder])
	return f
}

// TestVerifyRefuses covers the refusals beyond the vectors, each with the
// error the command side tells them apart by.
func TestVerifyRefuses(t *testing.T) {
	v := loadVectors(t)
	h := vectorHarness(t, v)
	edit := func(change func(f map[string]string)) url.Values {
		f := validVector(t, v)
		change(f)
		return formOf(f)
	}
	cases := []struct {
		name string
		form url.Values
		want error
	}{
		{"no SIGN", edit(func(f map[string]string) { delete(f, fiatpsp.FieldSign) }), provider.ErrSignature},
		{"upper-case SIGN", edit(func(f map[string]string) { f[fiatpsp.FieldSign] = "6B45491E0B50480CB8E4BE14680A613A" }), provider.ErrSignature},
		{"signed with another secret", edit(func(f map[string]string) { resign(f, "guess") }), provider.ErrSignature},
		{"tampered order id", edit(func(f map[string]string) { f[fiatpsp.FieldOrder] += "x" }), provider.ErrSignature},
		{"another shop, validly signed", edit(func(f map[string]string) { f[fiatpsp.FieldMerchant] = "41201"; resign(f, v.Secret2) }), provider.ErrSignature},
		{"three decimals, validly signed", edit(func(f map[string]string) { f[fiatpsp.FieldAmount] = "1500.505"; resign(f, v.Secret2) }), provider.ErrMalformed},
		{"unknown system", edit(func(f map[string]string) { f[fiatpsp.FieldCurID] = "777" }), provider.ErrMalformed},
		{"CUR_ID not a number", edit(func(f map[string]string) { f[fiatpsp.FieldCurID] = "RUB" }), provider.ErrMalformed},
		{"no intid", edit(func(f map[string]string) { delete(f, fiatpsp.FieldIntID) }), provider.ErrMalformed},
		{"repeated AMOUNT", func() url.Values { f := edit(func(map[string]string) {}); f.Add(fiatpsp.FieldAmount, "1.00"); return f }(), provider.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.adapter.Verify(context.Background(), &provider.Request{Form: c.form, RemoteIP: local})
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if rep := h.adapter.Reply(provider.Notification{}, err); rep.Status != 400 || rep.Body == "YES" {
				t.Errorf("reply = %+v, want 400", rep)
			}
		})
	}
}

// TestVerifyAllowList checks the optional source allow-list.
func TestVerifyAllowList(t *testing.T) {
	v := loadVectors(t)
	h := vectorHarness(t, v, netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"))
	cases := []struct {
		name string
		ip   netip.Addr
		ok   bool
	}{
		{"inside IPv4", netip.MustParseAddr("203.0.113.9"), true},
		{"inside, IPv4-mapped", netip.MustParseAddr("::ffff:203.0.113.9"), true},
		{"inside IPv6", netip.MustParseAddr("2001:db8::1"), true},
		{"outside", netip.MustParseAddr("198.51.100.1"), false},
		{"unknown source", netip.Addr{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.adapter.Verify(context.Background(), &provider.Request{Form: formOf(validVector(t, v)), RemoteIP: c.ip})
			if c.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, c.ok)
			}
			if !c.ok && (!errors.Is(err, fiatpsp.ErrSourceNotAllowed) || !errors.Is(err, provider.ErrSignature)) {
				t.Errorf("err = %v, want ErrSourceNotAllowed wrapping ErrSignature", err)
			}
		})
	}
}

// TestVerifyBodyForm reads the form from the raw body when the gateway
// passes no parsed form, and refuses a body over the bound.
func TestVerifyBodyForm(t *testing.T) {
	v := loadVectors(t)
	h := vectorHarness(t, v)
	body := []byte(formOf(validVector(t, v)).Encode())
	if _, err := h.adapter.Verify(context.Background(), &provider.Request{Body: body, RemoteIP: local}); err != nil {
		t.Fatalf("raw body: %v", err)
	}
	big := append(body, "&pad="+string(make([]byte, fiatpsp.MaxNotifyBody))...)
	if _, err := h.adapter.Verify(context.Background(), &provider.Request{Body: big}); !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("big body: err = %v, want ErrMalformed", err)
	}
}

// TestReply checks the answers the provider reads.
func TestReply(t *testing.T) {
	a := &fiatpsp.Adapter{}
	cases := []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"accepted", nil, 200, "YES"},
		{"forged", provider.ErrSignature, 400, "bad signature"},
		{"malformed", provider.ErrMalformed, 400, "malformed notification"},
		{"other refusal", errors.New("amount differs"), 400, "refused"},
		{"provider down", provider.ErrUnavailable, 503, "try again later"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := a.Reply(provider.Notification{}, c.err)
			if r.Status != c.status || r.Body != c.body {
				t.Errorf("reply = %+v, want %d %q", r, c.status, c.body)
			}
		})
	}
}
