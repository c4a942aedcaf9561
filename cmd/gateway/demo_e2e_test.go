package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// demoSeedLine is how scripts/run.sh makes the demo's state: the tests run
// the same command, so what they pay from is what make run prints.
var demoSeedLine = regexp.MustCompile(`(?m)^demo=\$\(bin/gateway demo seed --dir "\$data"\)$`)

// seededDemo runs make run's own seeding into a fresh directory and starts
// the gateway as make run does.
func seededDemo(t *testing.T) (*e2e, *server, demoState) {
	t.Helper()
	script, err := os.ReadFile("../../scripts/run.sh")
	if err != nil || !demoSeedLine.Match(script) {
		t.Fatalf("scripts/run.sh no longer seeds with `gateway demo seed --dir \"$data\"` (%v): update this test with it", err)
	}
	e := newE2E(t)
	e.run("migrate")
	var st demoState
	e.cli(&st, "demo", "seed", "--dir", t.TempDir(), "--json")
	return e, e.serve(), st
}

// demoMethods are the methods of the README's table as a USD order (the
// demo's currency) reaches the provider: fiatpsp and cryptopsp after the
// payer's choice, with a fiatpsp system in another currency than the order.
var demoMethods = []struct {
	method  string
	confirm func(t *testing.T, s *server, m account, id string)
}{
	{"wallet_a", nil}, {"wallet_b", nil}, {"cryptohost", nil}, {"bdcard", nil}, {"bdpsp_a", nil}, {"bdpsp_b", nil},
	{"fiatpsp", func(t *testing.T, s *server, m account, id string) {
		t.Helper()
		sys := s.getJSON(t, "/api/fiatpsp/currencies", url.Values{"paymentId": {id}})
		if sys.Status != 200 || strings.Contains(sys.Raw, `"available":false`) {
			t.Fatalf("a fiatpsp system is not payable: %s", sys.Raw)
		}
		if r := s.confirm(t, m, "/api/fiatpsp/confirm", url.Values{"paymentId": {id}, "fiatpspSystemId": {"36"}}); r.Status != 200 {
			t.Fatalf("fiatpsp confirm: %+v", r)
		}
	}},
	{"cryptopsp", func(t *testing.T, s *server, m account, id string) {
		t.Helper()
		if r := s.confirm(t, m, "/api/cryptopsp/confirm", url.Values{"paymentId": {id}, "pay_currency": {"btc"}}); r.Status != 200 {
			t.Fatalf("cryptopsp confirm: %+v", r)
		}
	}},
	{"usdt_direct", nil},
}

// createDemo creates a 150.00 USD order of method for the demo merchant and
// takes it through the payer's choice where the method has one.
func createDemo(t *testing.T, s *server, st demoState, method string, confirm func(*testing.T, *server, account, string)) string {
	t.Helper()
	p := createParams(st.Merchant.AppID)
	p["paymentMethod"], p["currency"], p["amount"] = method, "USD", "150.00"
	r := s.create(t, p, st.Merchant.APIKey)
	if r.Status != 200 {
		t.Fatalf("create %s: %+v", method, r)
	}
	id := r.Data["paymentId"].(string)
	if confirm != nil {
		confirm(t, s, account{AppID: st.Merchant.AppID, APIKey: st.Merchant.APIKey}, id)
	}
	return id
}

// TestDemoEveryMethodPays: from the state make run's own seeding creates,
// an order of every method of the README's table is paid: the provider
// methods through their simulators (the sandbox driver), balance from the
// demo merchant's balance, and select → balance by the demo payer's login.
func TestDemoEveryMethodPays(t *testing.T) {
	e, s, st := seededDemo(t)
	for _, m := range demoMethods {
		t.Run(m.method, func(t *testing.T) {
			id := createDemo(t, s, st, m.method, m.confirm)
			if r := s.sandbox(t, st.Merchant.AppID, st.Merchant.QueryKey, id, "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
				t.Fatalf("sandbox pay: %+v", r)
			}
		})
	}
	t.Run("balance", func(t *testing.T) {
		p := createParams(st.Merchant.AppID)
		p["paymentMethod"], p["currency"], p["amount"] = "balance", "USD", "150.00"
		if r := s.create(t, p, st.Merchant.APIKey); r.Status != 200 || r.Data["status"] != 2.0 || r.Data["paidWithBalance"] != true {
			t.Fatalf("balance create: %+v", r)
		}
	})
	t.Run("select, then balance by the demo payer", func(t *testing.T) {
		id := createDemo(t, s, st, "select", nil)
		c := newPayerClient(t, s.base)
		tok := c.token("/payment/" + id)
		c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"balance"}, "csrf": {tok}})
		if pg := c.post("/merchant/login", url.Values{"appid": {st.Payer.Account}, "password": {st.Payer.Password}, "order": {id}, "csrf": {tok}}); pg.code >= 400 {
			t.Fatalf("demo payer login: %d\n%s", pg.code, pg.body)
		}
		if pg := c.post("/merchant/pay", url.Values{"order": {id}, "csrf": {tok}}); pg.code >= 400 {
			t.Fatalf("pay from the demo payer's balance: %d\n%s", pg.code, pg.body)
		}
		testenv.Eventually(t, 10*time.Second, "condition", func() bool { return s.order(t, st.Merchant.AppID, st.Merchant.QueryKey, id).Data["status"] == 2.0 })
	})
	// A second run (make run again) finds the same accounts and changes no
	// operator's rate.
	e.cli(nil, "fx", "set", "USD", "BDT", "118.00", "--json")
	var again demoState
	dir := st.Merchant.File[:strings.LastIndex(st.Merchant.File, "/")]
	e.cli(&again, "demo", "seed", "--dir", dir, "--json")
	if again.Merchant != st.Merchant || again.Payer != st.Payer {
		t.Fatalf("a second seed made new accounts: %+v, was %+v", again, st)
	}
	for _, r := range again.Rates {
		if r.Base == "USD" && r.Quot == "BDT" && (r.Rate != "118" || r.By == "seed") {
			t.Fatalf("the seed replaced the operator's rate: %+v", r)
		}
	}
}

// TestSandboxDriverEveryMethod: for every method, POST
// /sandbox/orders/{id}/fail ends the order failed (3) with 200 and /pay
// paid (2), through the method's simulator; and the simulated provider
// page's Fail button fails the order too.
func TestSandboxDriverEveryMethod(t *testing.T) {
	e, s, st := seededDemo(t)
	for _, m := range demoMethods {
		for _, tt := range []struct {
			action string
			want   float64
		}{{"pay", 2}, {"fail", 3}} {
			t.Run(m.method+" "+tt.action, func(t *testing.T) {
				id := createDemo(t, s, st, m.method, m.confirm)
				r := s.sandbox(t, st.Merchant.AppID, st.Merchant.QueryKey, id, tt.action)
				if r.Status != 200 || r.Data["status"] != tt.want {
					t.Fatalf("sandbox %s: %+v", tt.action, r)
				}
				if q := s.order(t, st.Merchant.AppID, st.Merchant.QueryKey, id); q.Data["status"] != tt.want {
					t.Fatalf("order after %s: %+v", tt.action, q.Data)
				}
			})
		}
		if m.method == "usdt_direct" {
			continue // no provider page: the payer submits a transaction hash
		}
		t.Run(m.method+" page Fail", func(t *testing.T) {
			id := createDemo(t, s, st, m.method, m.confirm)
			var show struct {
				Order struct{ QRPayload, ProviderURL string }
			}
			e.cli(&show, "order", "show", id, "--json")
			page := show.Order.ProviderURL
			if page == "" {
				page = show.Order.QRPayload
			}
			clickThrough(t, page, "fail")
			testenv.Eventually(t, 10*time.Second, "condition", func() bool {
				return s.order(t, st.Merchant.AppID, st.Merchant.QueryKey, id).Data["status"] == 3.0
			})
		})
	}
}

// clickThrough clicks outcome on the provider's page like payOnPage, then
// goes where the provider sends the payer, as a browser does: a redirect is
// followed, and a provider's return form (bdpsp_b's page posts the outcome
// back to the merchant through the browser) is submitted.
func clickThrough(t *testing.T, page, outcome string) {
	t.Helper()
	res, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for i := 0; i < 3; i++ {
		m := formRe.FindStringSubmatch(string(body))
		if m == nil {
			if res.StatusCode >= 400 {
				t.Fatalf("%s: %d\n%s", res.Request.URL, res.StatusCode, body)
			}
			return
		}
		action, err := res.Request.URL.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
		if err != nil {
			t.Fatal(err)
		}
		form := url.Values{}
		if i == 0 {
			form.Set("outcome", outcome)
		}
		for _, in := range inputRe.FindAllStringSubmatch(string(body), -1) {
			form.Set(in[1], in[2])
		}
		if res, err = http.PostForm(action.String(), form); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode >= 400 {
			t.Fatalf("posting to %s: %d\n%s", action, res.StatusCode, body)
		}
		if !strings.HasPrefix(res.Request.URL.Path, "/sandbox/provider/") {
			return // back on our pages
		}
	}
}
