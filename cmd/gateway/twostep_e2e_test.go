package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// postForm posts a form to the gateway and decodes the JSON answer.
func (s *server) postForm(t *testing.T, path string, form url.Values) apiResponse {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return call(t, req)
}

func (s *server) getJSON(t *testing.T, path string, q url.Values) apiResponse {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.base+path+"?"+q.Encode(), nil)
	return call(t, req)
}

// TestTwoStepFlowsEndToEnd drives fiatpsp and cryptopsp through the real
// binary and their simulators: the payer's choice (with an FX quote for
// fiatpsp, the provider's minimum for cryptopsp), the provider's page, its
// signed notification, the order paid; fiatpsp also with fiatpspSystemId at
// create, and a fiatpsp failure, which its provider never notifies, found
// by the sandbox driver's query.
func TestTwoStepFlowsEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(nil, "fx", "set", "USD", "EUR", "0.92", "--json")
	hooks := newHookReceiver(t)
	s := e.serve()
	create := func(t *testing.T, method, amount string, extra ...string) string {
		t.Helper()
		p := createParams(shop.AppID)
		p["paymentMethod"], p["currency"], p["amount"], p["notify_url"] = method, "USD", amount, hooks.url
		for i := 0; i+1 < len(extra); i += 2 {
			p[extra[i]] = extra[i+1]
		}
		r := s.create(t, p, shop.APIKey)
		if r.Status != 200 {
			t.Fatalf("create %s: %+v", method, r)
		}
		return r.Data["paymentId"].(string)
	}
	paid := func(t *testing.T, id string, want float64) {
		t.Helper()
		testenv.Eventually(t, 10*time.Second, "condition", func() bool { return s.order(t, shop.AppID, shop.QueryKey, id).Data["status"] == want })
		if want == 2 {
			testenv.Eventually(t, 10*time.Second, "condition", func() bool { return hooks.got(id).Get("status") == "2" })
		}
	}

	t.Run("fiatpsp: choice with a quote, then pay", func(t *testing.T) {
		id := create(t, "fiatpsp", "100")
		sys := s.getJSON(t, "/api/fiatpsp/currencies", url.Values{"paymentId": {id}})
		if !strings.Contains(sys.Raw, `"id":9,"name":"Bank card EUR","currency":"EUR","quote":"92.00","rate":"0.92","available":true`) {
			t.Fatalf("systems: %s", sys.Raw)
		}
		r := s.confirm(t, shop, "/api/fiatpsp/confirm", url.Values{"paymentId": {id}, "fiatpspSystemId": {"9"}})
		redirect, _ := r.Data["redirectUrl"].(string)
		if r.Status != 200 || !strings.HasPrefix(redirect, s.base+"/sandbox/provider/fiatpsp/") {
			t.Fatalf("confirm: %+v", r)
		}
		payOnPage(t, redirect, "pay")
		paid(t, id, 2)
		q := s.order(t, shop.AppID, shop.QueryKey, id)
		if q.Data["chargeAmount"] != "92.00" || q.Data["chargeCurrency"] != "EUR" || q.Data["fxRate"] != "0.92" {
			t.Fatalf("order: %+v", q.Data)
		}
	})
	t.Run("fiatpsp: system at create, then fail", func(t *testing.T) {
		id := create(t, "fiatpsp", "25.50", "fiatpspSystemId", "7")
		if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "fail"); r.Status != 200 || r.Data["status"] != 3.0 {
			t.Fatalf("sandbox fail: %+v", r)
		}
	})
	t.Run("cryptopsp: below the minimum refused, above it paid", func(t *testing.T) {
		small := create(t, "cryptopsp", "5")
		if r := s.confirm(t, shop, "/api/cryptopsp/confirm", url.Values{"paymentId": {small}, "pay_currency": {"btc"}}); r.Status != 400 || r.Error != "below_minimum" {
			t.Fatalf("below the minimum: %+v", r)
		}
		id := create(t, "cryptopsp", "150")
		curs := s.getJSON(t, "/api/cryptopsp/currencies", url.Values{"paymentId": {id}})
		if curs.Status != 200 || !strings.Contains(curs.Raw, `"currency":"btc"`) {
			t.Fatalf("currencies: %s", curs.Raw)
		}
		r := s.confirm(t, shop, "/api/cryptopsp/confirm", url.Values{"paymentId": {id}, "pay_currency": {"btc"}})
		redirect, _ := r.Data["redirectUrl"].(string)
		if r.Status != 200 || !strings.HasPrefix(redirect, s.base+"/sandbox/provider/cryptopsp/") {
			t.Fatalf("confirm: %+v", r)
		}
		payOnPage(t, redirect, "pay")
		paid(t, id, 2)
	})
}
