package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/schema"
)

// The security review's low-severity findings, each attacked through the
// real binary.

// confirm is a merchant's signed confirm of a two-step choice (the API
// form of /api/fiatpsp/confirm and /api/cryptopsp/confirm).
func (s *server) confirm(t *testing.T, m account, path string, form url.Values) apiResponse {
	t.Helper()
	p := schema.Params{"appid": m.AppID}
	for k := range form {
		p[k] = form.Get(k)
	}
	p["sign"] = schema.Sign(p, m.APIKey)
	signed := url.Values{}
	for k, v := range p {
		signed.Set(k, v)
	}
	return s.postForm(t, path, signed)
}

// fakeCryptohost is a live cryptohost API that creates charges (codes C1,
// C2, ...) and remembers which order each is for.
type fakeCryptohost struct {
	*httptest.Server
	mu      sync.Mutex
	charges map[string]string // order id → charge code
}

func newFakeCryptohost(t *testing.T) *fakeCryptohost {
	t.Helper()
	f := &fakeCryptohost{charges: map[string]string{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			LocalPrice struct{ Amount, Currency string } `json:"local_price"`
			Metadata   struct {
				OrderID string `json:"order_id"`
			} `json:"metadata"`
		}
		if r.Method != http.MethodPost || r.URL.Path != "/charges" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"type":"not_found","message":"no"}}`, http.StatusNotFound)
			return
		}
		f.mu.Lock()
		code := fmt.Sprintf("C%dX%d", len(f.charges)+1, time.Now().UnixNano()%1e6)
		f.charges[req.Metadata.OrderID] = code
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{
			"code": code, "hosted_url": "https://pay.example/charges/" + code, "pricing_type": "fixed_price",
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
			"pricing":    map[string]any{"local": req.LocalPrice}, "metadata": req.Metadata,
		}})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeCryptohost) code(order string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.charges[order]
}

// confirmed is a charge:confirmed webhook for charge code carrying order
// id order, priced at 100.50 USD and paid in payCur.
func confirmed(code, order, payCur string) []byte {
	return []byte(`{"id":"w-` + code + order + payCur + `","event":{"id":"e-` + code + payCur + `","type":"charge:confirmed","data":{` +
		`"code":"` + code + `","metadata":{"order_id":"` + order + `"},"pricing":{"local":{"amount":"100.50","currency":"USD"}},` +
		`"payments":[{"status":"CONFIRMED","value":{"local":{"amount":"100.50","currency":"` + payCur + `"},"crypto":{"amount":"100.5","currency":"USDC"}}}],` +
		`"timeline":[{"status":"NEW"},{"status":"COMPLETED"}]}}}`)
}

// TestCryptohostNotificationMustBeTheOrdersCharge: with a live cryptohost
// and its webhook secret, a confirmed charge of merchant L does not pay
// merchant L2's order even when it names L2's order id, and a charge of
// L2's order paid in another currency than its price does not pay it
// either; L2's own charge paid in the price's currency does.
func TestCryptohostNotificationMustBeTheOrdersCharge(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var l, l2 account
	e.cli(&l, "merchant", "create", "--name", "L", "--json")
	e.cli(&l2, "merchant", "create", "--name", "L2", "--json")
	api := newFakeCryptohost(t)
	const secret = "whsec-live-lowholes-4c1e"
	s := e.serve(`GATEWAY_PROVIDER_CRYPTOHOST={"base_url":"` + api.URL + `","api_key":"k-live","webhook_secret":"` + secret + `"}`)

	order := func(m account) string {
		p := createParams(m.AppID)
		p["paymentMethod"], p["currency"] = "cryptohost", "USD"
		r := s.create(t, p, m.APIKey)
		id, _ := r.Data["paymentId"].(string)
		if r.Status != 200 || id == "" || api.code(id) == "" {
			t.Fatalf("create: %+v", r)
		}
		return id
	}
	idL, idL2 := order(l), order(l2)
	notify := func(body []byte) {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/api/gatewaynotification/cryptohost/"+cryptohost.NotifyPath, bytes.NewReader(body))
		req.Header.Set(cryptohost.DefaultSignatureHeader, cryptohost.Sign(secret, body))
		req.Header.Set("Content-Type", "application/json")
		if r := call(t, req); r.Status != 200 {
			t.Fatalf("webhook answered %d %s", r.Status, r.Raw)
		}
	}
	status := func() string {
		return fmt.Sprint(s.order(t, l2.AppID, l2.QueryKey, idL2).Data["status_str"])
	}
	notify(confirmed(api.code(idL), idL2, "USD"))
	if st := status(); st != "ready" {
		t.Fatalf("L's charge naming L2's order: L2's order is %s, want ready", st)
	}
	notify(confirmed(api.code(idL2), idL2, "EUR"))
	if st := status(); st != "ready" {
		t.Fatalf("L2's charge paid in EUR for a USD price: L2's order is %s, want ready", st)
	}
	notify(confirmed(api.code(idL2), idL2, "USD"))
	if st := status(); st != "paid" {
		t.Fatalf("L2's own charge paid in USD: L2's order is %s, want paid", st)
	}
	if st := s.order(t, l.AppID, l.QueryKey, idL).Data["status_str"]; st != "ready" {
		t.Fatalf("L's order is %v, want ready", st)
	}
}

// TestWebhookAddressesEndToEnd: with the default policy (no
// GATEWAY_WEBHOOK_ALLOW_PRIVATE), a notify_url naming loopback in the
// IPv4-compatible IPv6 form is never called, and what the merchant reads
// in action=webhooks names neither that address nor our DNS server.
func TestWebhookAddressesEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	ln, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skipf("no IPv6 listener: %v", err)
	}
	defer ln.Close()
	called := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			called <- struct{}{}
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	s := e.serve("GATEWAY_WEBHOOK_ALLOW_PRIVATE=false")

	tests := []struct {
		name, notify, says string
	}{
		{"IPv4-compatible loopback", fmt.Sprintf("http://[::127.0.0.1]:%d/hook", port), "refused: the notify_url host resolves to a non-public address"},
		{"unknown name", "http://no-such-host.invalid/hook", "DNS: no such host no-such-host.invalid"},
	}
	leaks := []string{"GATEWAY_", "7f00:1", "127.0.0.1", ":53"}
	if raw, err := os.ReadFile("/etc/resolv.conf"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "nameserver" {
				leaks = append(leaks, f[1])
			}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := createParams(shop.AppID)
			p["notify_url"] = tt.notify
			r := s.create(t, p, shop.APIKey)
			id, _ := r.Data["paymentId"].(string)
			if r.Status != 200 || id == "" {
				t.Fatalf("create: %+v", r)
			}
			if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
				t.Fatalf("sandbox pay: %+v", r)
			}
			var first map[string]any
			testenv.Eventually(t, 10*time.Second, "condition", func() bool {
				q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"webhooks"}, "paymentId": {id}}
				req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
				attempts, _ := call(t, req).Data["attempts"].([]any)
				if len(attempts) == 0 {
					return false
				}
				first, _ = attempts[0].(map[string]any)
				return true
			})
			msg, _ := first["error"].(string)
			if !strings.HasPrefix(msg, tt.says) {
				t.Errorf("attempt error %q, want it to start %q", msg, tt.says)
			}
			for _, leak := range leaks {
				if strings.Contains(msg, leak) {
					t.Errorf("attempt error %q names %q", msg, leak)
				}
			}
		})
	}
	select {
	case <-called:
		t.Fatal("the loopback listener was called")
	default:
	}
}

// TestPaymentIDAloneMovesNothingEndToEnd: someone holding only a
// paymentId (it is in the payer's address bar) can neither fix the
// payer's currency or payment system through the API form of the confirms
// nor fail the order through the old /sandbox/checkout form from another
// site; the merchant's signed confirm still works afterwards, so the order
// was still the payer's to choose.
func TestPaymentIDAloneMovesNothingEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(nil, "fx", "set", "USD", "EUR", "0.92", "--json")
	s := e.serve()
	create := func(method string) string {
		p := createParams(shop.AppID)
		p["paymentMethod"], p["currency"], p["amount"] = method, "USD", "150"
		r := s.create(t, p, shop.APIKey)
		id, _ := r.Data["paymentId"].(string)
		if r.Status != 200 || id == "" {
			t.Fatalf("create %s: %+v", method, r)
		}
		return id
	}
	for _, tt := range []struct{ method, path, choice, value string }{
		{"cryptopsp", "/api/cryptopsp/confirm", "pay_currency", "btc"},
		{"fiatpsp", "/api/fiatpsp/confirm", "fiatpspSystemId", "9"},
	} {
		t.Run(tt.method, func(t *testing.T) {
			id := create(tt.method)
			r := s.postForm(t, tt.path, url.Values{"paymentId": {id}, tt.choice: {tt.value}})
			if r.Status != 400 || r.Error != "missing_parameter" {
				t.Errorf("confirm with a paymentId alone: %d %s, want 400 missing_parameter", r.Status, r.Raw)
			}
			if r := s.confirm(t, shop, tt.path, url.Values{"paymentId": {id}, tt.choice: {tt.value}}); r.Status != 200 {
				t.Fatalf("the merchant's signed confirm after it: %+v", r)
			}
		})
	}
	t.Run("sandbox checkout form from another site", func(t *testing.T) {
		p := createParams(shop.AppID)
		p["paymentMethod"], p["currency"] = "cryptohost", "USD"
		id, _ := s.create(t, p, shop.APIKey).Data["paymentId"].(string)
		req, _ := http.NewRequest(http.MethodPost, s.base+"/sandbox/checkout/"+id, strings.NewReader("outcome=fail"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://attacker.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if r := call(t, req); r.Status != 404 {
			t.Errorf("cross-site POST: %d %s, want 404", r.Status, r.Raw)
		}
		if st := s.order(t, shop.AppID, shop.QueryKey, id).Data["status_str"]; st != "ready" {
			t.Fatalf("order after the cross-site POST: %v, want ready", st)
		}
	})
}

// opsDefault in e.serve's env leaves GATEWAY_OPS_ADDR unset, so that the
// process takes its default operations listener.
const opsDefault = "GATEWAY_E2E_OPS_DEFAULT=1"

// TestMetricsNeverOnThePublicListener: /metrics is served on the
// operations listener only: by default on 127.0.0.1:9464 (checked when that
// port is free here), and no configuration puts it on the merchant-facing
// listener (an empty GATEWAY_OPS_ADDR is refused at start).
func TestMetricsNeverOnThePublicListener(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	status := func(u string) int {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	t.Run("default address", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:9464")
		if err != nil {
			t.Skipf("the default operations port is taken here (%v): the default is checked by platform's tests", err)
		}
		ln.Close()
		s := e.serve(opsDefault)
		defer s.stop(t)
		if s.ops != "http://127.0.0.1:9464" {
			t.Fatalf("operations listener at %q, want http://127.0.0.1:9464", s.ops)
		}
		if got := status(s.base + "/metrics"); got != 404 {
			t.Errorf("public /metrics: %d, want 404", got)
		}
		if got := status(s.ops + "/metrics"); got != 200 {
			t.Errorf("operations /metrics: %d, want 200", got)
		}
	})
	t.Run("empty GATEWAY_OPS_ADDR refused", func(t *testing.T) {
		if msg := e.serveRefused("GATEWAY_OPS_ADDR="); !strings.Contains(msg, "ops-addr") {
			t.Fatalf("stderr %s; want a refusal naming ops-addr", msg)
		}
	})
}
