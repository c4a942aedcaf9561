package fiatpsp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"
	fiatpspsim "github.com/paygate/gateway/web/sandbox/fiatpsp"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// payment is an order charged 1500.50 RUB in system 36, notified to the
// harness's receiver.
func (h *harness) payment(orderID, system string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.MethodFiatPSP, SystemID: system,
		Charge:        provider.Money{Amount: 150050, Currency: "RUB"},
		CustomerEmail: "payer@example.com", ClientIP: "203.0.113.7",
		NotifyURL: h.base + notifyPath,
	}
}

// initialise creates the payment and checks the answer's shape.
func (h *harness) initialise(t *testing.T, p provider.Payment) provider.Init {
	t.Helper()
	in, err := h.adapter.Initialise(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.ProviderURL, h.base+simMount+"/pay/") || in.Ref == "" {
		t.Fatalf("init = %+v", in)
	}
	return in
}

// click opens the provider page and presses pay or fail, as a payer would.
func click(t *testing.T, page, outcome string) *http.Response {
	t.Helper()
	res, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "1500.50") {
		t.Fatalf("page: HTTP %d %s", res.StatusCode, body)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.PostForm(page, url.Values{"outcome": {outcome}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// query checks what the provider says of the order.
func (h *harness) query(t *testing.T, orderID, ref string, want provider.Outcome) provider.Notification {
	t.Helper()
	n, err := h.adapter.Query(context.Background(), orderID, ref)
	if err != nil {
		t.Fatal(err)
	}
	if n.Outcome != want || n.OrderID != orderID || n.Ref != ref {
		t.Fatalf("query = %+v, want %v", n, want)
	}
	return n
}

var paidRUB = provider.Money{Amount: 150050, Currency: "RUB"}

// TestEndToEnd runs the payer's flows over HTTP through the simulator.
func TestEndToEnd(t *testing.T) {
	h := startHarness(t, nil)
	t.Run("pay on the page", func(t *testing.T) {
		in := h.initialise(t, h.payment("P-e2e-pay", "36"))
		h.query(t, "P-e2e-pay", in.Ref, provider.OutcomePending)
		if res := click(t, in.ProviderURL, "pay"); res.StatusCode != 200 {
			t.Fatalf("pay: HTTP %d", res.StatusCode)
		}
		got := h.got.Next(t)
		if got.err != nil || got.n.Outcome != provider.OutcomePaid || got.n.OrderID != "P-e2e-pay" || got.n.Ref != in.Ref || got.n.Paid != paidRUB {
			t.Fatalf("notification = %+v, %v", got.n, got.err)
		}
		if got.form.Get(fiatpsp.FieldAmount) != "1500.50" || got.rep.Body != "YES" {
			t.Errorf("AMOUNT %q, reply %q", got.form.Get(fiatpsp.FieldAmount), got.rep.Body)
		}
		if n := h.query(t, "P-e2e-pay", in.Ref, provider.OutcomePaid); n.Paid != paidRUB {
			t.Errorf("query paid = %+v", n.Paid)
		}
	})
	t.Run("fail on the page", func(t *testing.T) {
		in := h.initialise(t, h.payment("P-e2e-fail", "42"))
		click(t, in.ProviderURL, "fail")
		h.none(t)
		h.query(t, "P-e2e-fail", in.Ref, provider.OutcomeFailed)
	})
	t.Run("settle without a browser, then replay", func(t *testing.T) {
		in := h.initialise(t, h.payment("P-e2e-settle", "36"))
		if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
			t.Fatal(err)
		}
		first := h.got.Next(t)
		if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
			t.Fatal(err)
		}
		again := h.got.Next(t)
		if first.err != nil || !reflect.DeepEqual(first.n, again.n) {
			t.Fatalf("replay verified differently: %+v / %+v", first.n, again.n)
		}
		if err := h.sim.Settle(context.Background(), in.Ref, false); err == nil {
			t.Error("failing a paid order must be refused")
		}
	})
	t.Run("notification retried until YES", func(t *testing.T) {
		in := h.initialise(t, h.payment("P-e2e-retry", "36"))
		h.failNext.Store(1)
		if err := h.sim.Settle(context.Background(), in.Ref, true); !errors.Is(err, fiatpspsim.ErrNotAccepted) {
			t.Fatalf("settle err = %v, want ErrNotAccepted", err)
		}
		if first := h.got.Next(t); first.rep.Status != 500 {
			t.Fatalf("first answer %+v", first.rep)
		}
		if again := h.got.Next(t); again.err != nil || again.rep.Body != "YES" || again.n.OrderID != "P-e2e-retry" {
			t.Fatalf("retry = %+v, %v", again.n, again.err)
		}
	})
	t.Run("page sends the payer back", func(t *testing.T) {
		p := h.payment("P-e2e-back", "36")
		p.SuccessURL = "https://shop.example/ok"
		in := h.initialise(t, p)
		res := click(t, in.ProviderURL, "pay")
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != p.SuccessURL {
			t.Fatalf("pay: HTTP %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
		h.got.Next(t)
	})
}

// TestForgedNotifications posts altered copies of a real notification to
// the receiver: every one is refused with 400, the original accepted.
func TestForgedNotifications(t *testing.T) {
	h := startHarness(t, nil)
	in := h.initialise(t, h.payment("P-forged", "36"))
	if err := h.sim.Settle(context.Background(), in.Ref, true); err != nil {
		t.Fatal(err)
	}
	real := h.got.Next(t).form
	cases := []struct {
		name   string
		change func(url.Values)
		want   error
	}{
		{"replayed as is", func(url.Values) {}, nil},
		{"forged signature", func(f url.Values) { f.Set(fiatpsp.FieldSign, strings.Repeat("0", 32)) }, provider.ErrSignature},
		{"tampered amount", func(f url.Values) { f.Set(fiatpsp.FieldAmount, "15005.00") }, provider.ErrSignature},
		{"amount reformatted", func(f url.Values) { f.Set(fiatpsp.FieldAmount, "1500.5") }, provider.ErrSignature},
		{"signed with the vectors' secret", func(f url.Values) {
			f.Set(fiatpsp.FieldSign, fiatpsp.SignNotification(f.Get(fiatpsp.FieldMerchant), f.Get(fiatpsp.FieldAmount), "fiat_secret2_Qw7e", f.Get(fiatpsp.FieldOrder)))
		}, provider.ErrSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := url.Values{}
			for k, v := range real {
				f[k] = append([]string(nil), v...)
			}
			c.change(f)
			res, err := http.PostForm(h.base+notifyPath, f)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got := h.got.Next(t)
			if !errors.Is(got.err, c.want) || (c.want == nil) != (res.StatusCode == 200) {
				t.Fatalf("HTTP %d, err %v, want %v", res.StatusCode, got.err, c.want)
			}
		})
	}
}
