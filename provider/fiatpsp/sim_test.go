package fiatpsp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	fiatpsp "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/paygate/gateway/provider"
)

// TestSimulatorRefuses: the simulator checks our calls like the provider.
func TestSimulatorRefuses(t *testing.T) {
	h := startHarness(t, nil)
	api := h.base + simMount
	signed := func(change func(map[string]string)) string {
		v := map[string]string{"shopId": "10001", "nonce": "5", "paymentId": "P-x"}
		v["signature"] = fiatpsp.SignRequest(v, fiatpsp.SandboxAPIKey)
		change(v)
		q := url.Values{}
		for k, s := range v {
			q.Set(k, s)
		}
		return api + "/orders?" + q.Encode()
	}
	cases := []struct {
		name, method, url, body string
		status                  int
	}{
		{"status, correctly signed", "GET", signed(func(map[string]string) {}), "", 200},
		{"status, tampered parameter", "GET", signed(func(v map[string]string) { v["paymentId"] = "P-y" }), "", 401},
		{"status, another shop", "GET", signed(func(v map[string]string) { v["shopId"] = "10002" }), "", 401},
		{"status, no nonce", "GET", signed(func(v map[string]string) { delete(v, "nonce") }), "", 401},
		{"systems, unsigned", "GET", api + "/currencies?shopId=10001&nonce=1", "", 401},
		{"create, nested body", "POST", api + "/orders/create", `{"shopId":10001,"x":{"a":1}}`, 400},
		{"create, not JSON", "POST", api + "/orders/create", `shopId=10001`, 400},
		{"page of no order", "GET", api + "/pay/123456789", "", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("HTTP %d %s, want %d", res.StatusCode, body, c.status)
			}
		})
	}
}

// TestSimulatorCreateTerms: a repeated create must carry the same terms.
func TestSimulatorCreateTerms(t *testing.T) {
	h := startHarness(t, nil)
	h.initialise(t, h.payment("P-terms", "36"))
	p := h.payment("P-terms", "36")
	p.Charge.Amount++
	if _, err := h.adapter.Initialise(context.Background(), p); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
	if err := h.sim.Settle(context.Background(), "42", true); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("settle of no order: err = %v, want ErrNotFound", err)
	}
}
