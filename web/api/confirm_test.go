package api

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

func (h *harness) deferred(method, currency, amount string) string {
	h.t.Helper()
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = method, currency, amount
	return h.createOK(p)["paymentId"].(string)
}

// confirm is the merchant's signed confirm of the choice in form.
func (h *harness) confirm(path string, form url.Values) *response {
	h.t.Helper()
	return h.do(newPost(path, signedForm(form, h.acct.AppID, h.acct.APIKey).Encode()))
}

// signedForm is form with appid and its sign under key.
func signedForm(form url.Values, appid, key string) url.Values {
	p := schema.Params{"appid": appid}
	for k := range form {
		p[k] = form.Get(k)
	}
	out := url.Values{}
	for k, v := range signed(p, key) {
		out.Set(k, v)
	}
	return out
}

// TestFiatpspConfirm: the payer sees each payment system with its quote,
// picks one, and the order is charged in the system's currency at the rate
// of that moment, recorded; the provider is asked once, and a choice is
// fixed once.
func TestFiatpspConfirm(t *testing.T) {
	h := newRedisHarness(t)
	id := h.deferred("fiatpsp", "USD", "100")
	r := h.get("/api/fiatpsp/currencies", url.Values{"paymentId": {id}})
	d := r.Data(t)
	systems, _ := d["systems"].([]any)
	if r.Status != 200 || len(systems) != 3 {
		t.Fatalf("systems for the payer: %s", r.Raw)
	}
	want := map[float64]string{12: "90.00/true", 7: "100.00/true", 36: "/false"} // no USD to RUB rate
	for _, s := range systems {
		m := s.(map[string]any)
		quote, _ := m["quote"].(string)
		if got := fmt.Sprintf("%s/%v", quote, m["available"]); got != want[m["id"].(float64)] {
			t.Fatalf("system %v: %s, want %s", m["id"], got, want[m["id"].(float64)])
		}
	}
	tests := []struct {
		name, system string
		status       int
		kind         string
	}{
		{"not a number", "twelve", 400, "invalid_parameter"},
		{"not a system", "99", 400, "invalid_parameter"},
		{"no rate to its currency", "36", 400, "method_unavailable"},
		{"a system in EUR", "12", 200, ""},
		{"a second confirm", "7", 409, "conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.confirm("/api/fiatpsp/confirm", url.Values{"paymentId": {id}, "fiatpspSystemId": {tt.system}})
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("confirm %s: %d %s", tt.system, r.Status, r.Raw)
			}
		})
	}
	o, err := h.store.Get(context.Background(), id)
	if err != nil || o.FiatpspSystemID != "12" || o.ChargeAmount != 90_00 || o.ChargeCurrency != "EUR" || o.FXRate != "0.9" ||
		o.NextAction != "" || o.ProviderRef == "" || o.ProviderURL == "" || o.Status != schema.StatusReady {
		t.Fatalf("order after confirm: %+v %v", o, err)
	}
	if p := h.prov.Last.Load().(provider.Payment); p.Charge != (provider.Money{Amount: 90_00, Currency: "EUR"}) || p.SystemID != "12" {
		t.Fatalf("provider asked for %+v", p)
	}
	shard, _ := schema.ParseOrderID(id)
	if n := countEvents(t, h, shard, id); n != 3 {
		t.Fatalf("%d events, want created and two changes (the choice, the provider's answer)", n)
	}
	// Merchants read the same list to pass fiatpspSystemId at create.
	r = h.get("/api/fiatpsp/currencies", url.Values{"appid": {h.acct.AppID}, "key": {h.acct.QueryKey}})
	if list, _ := r.RawList(t); r.Status != 200 || len(list) != 3 {
		t.Fatalf("systems for the merchant: %s", r.Raw)
	}
	// A create with the system charges in its currency at once.
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["fiatpspSystemId"] = "fiatpsp", "USD", "12"
	direct := h.createOK(p)["paymentId"].(string)
	if o, _ := h.store.Get(context.Background(), direct); o.ChargeAmount != 90_00 || o.ChargeCurrency != "EUR" {
		t.Fatalf("create with fiatpspSystemId: %+v", o)
	}
}

// TestCryptopspConfirm: below the provider's minimum a currency is shown
// disabled and refused; above it the invoice is made.
func TestCryptopspConfirm(t *testing.T) {
	h := newRedisHarness(t)
	id := h.deferred("cryptopsp", "USD", "10")
	r := h.get("/api/cryptopsp/currencies", url.Values{"paymentId": {id}})
	curs, _ := r.Data(t)["currencies"].([]any)
	if r.Status != 200 || len(curs) != 2 || fmt.Sprint(curs[0]) != "map[currency:btc enabled:false minAmount:30.00]" ||
		fmt.Sprint(curs[1]) != "map[currency:eth enabled:true minAmount:1.00]" {
		t.Fatalf("currencies: %s", r.Raw)
	}
	tests := []struct {
		name, cur string
		status    int
		kind      string
	}{
		{"below the minimum", "btc", 400, "below_minimum"},
		{"not offered", "doge", 400, "invalid_parameter"},
		{"above the minimum", "eth", 200, ""},
		{"a second confirm", "eth", 409, "conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.confirm("/api/cryptopsp/confirm", url.Values{"paymentId": {id}, "pay_currency": {tt.cur}})
			if r.Status != tt.status || r.Body.Error != tt.kind {
				t.Fatalf("confirm %s: %d %s", tt.cur, r.Status, r.Raw)
			}
		})
	}
	o, _ := h.store.Get(context.Background(), id)
	if o.PayCurrency != "eth" || o.ProviderURL == "" || o.NextAction != "" {
		t.Fatalf("order after confirm: %+v", o)
	}
}

// TestConfirmRace: two confirms at once, one wins; the provider is asked once.
func TestConfirmRace(t *testing.T) {
	h := newRedisHarness(t)
	for range 5 {
		id := h.deferred("cryptopsp", "USD", "50")
		before := h.prov.Calls.Load()
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i := range statuses {
			wg.Go(func() {
				req := newPost("/api/cryptopsp/confirm", signedForm(url.Values{"paymentId": {id}, "pay_currency": {"eth"}}, h.acct.AppID, h.acct.APIKey).Encode())
				res, err := h.app.Test(req, 5000)
				if err == nil {
					statuses[i] = res.StatusCode
					res.Body.Close()
				}
			})
		}
		wg.Wait()
		if fmt.Sprint(statuses) != "[200 409]" && fmt.Sprint(statuses) != "[409 200]" {
			t.Fatalf("statuses %v, want one 200 and one 409", statuses)
		}
		if n := h.prov.Calls.Load() - before; n != 1 {
			t.Fatalf("provider asked %d times", n)
		}
	}
}

// TestConfirmProviderDown: the choice is kept, the order fails, the payer
// is told.
func TestConfirmProviderDown(t *testing.T) {
	h := newRedisHarness(t)
	id := h.deferred("cryptopsp", "USD", "50")
	down := fmt.Errorf("fake: %w", provider.ErrUnavailable)
	h.prov.Fail.Store(&down)
	defer h.prov.Fail.Store(nil)
	r := h.confirm("/api/cryptopsp/confirm", url.Values{"paymentId": {id}, "pay_currency": {"eth"}})
	if r.Status != 503 {
		t.Fatalf("confirm with the provider down: %d %s", r.Status, r.Raw)
	}
	if o, _ := h.store.Get(context.Background(), id); o.Status != schema.StatusFailed || o.PayCurrency != "eth" {
		t.Fatalf("order: %+v", o)
	}
}

// TestConfirmByAPIIsTheMerchants: holding a paymentId is not enough to fix
// the payer's choice through the API form of either confirm (a security
// review finding: the payer then met a 409 on their own page). Unsigned,
// wrongly signed, signed by another merchant, or carrying a parameter outside
// the fixed set, it changes nothing; the merchant's own signed call does.
func TestConfirmByAPIIsTheMerchants(t *testing.T) {
	h := newRedisHarness(t)
	for _, tt := range []struct {
		method, path, choice, value string
	}{
		{"cryptopsp", "/api/cryptopsp/confirm", "pay_currency", "eth"},
		{"fiatpsp", "/api/fiatpsp/confirm", "fiatpspSystemId", "12"},
	} {
		t.Run(tt.method, func(t *testing.T) {
			id := h.deferred(tt.method, "USD", "100")
			choice := url.Values{"paymentId": {id}, tt.choice: {tt.value}}
			other := signedForm(choice, h.live.AppID, h.live.APIKey)
			forged := signedForm(choice, h.acct.AppID, "not-the-key")
			extra := signedForm(url.Values{"paymentId": {id}, tt.choice: {tt.value}, "lang": {"en"}}, h.acct.AppID, h.acct.APIKey)
			refused := []struct {
				name string
				form url.Values
				want int
			}{
				{"paymentId alone", choice, 400},
				{"a forged sign", forged, 401},
				{"another merchant's signed call", other, 404},
				{"a parameter outside the set", extra, 400},
			}
			for _, r := range refused {
				if got := h.do(newPost(tt.path, r.form.Encode())); got.Status != r.want {
					t.Errorf("%s: %d %s, want %d", r.name, got.Status, got.Raw, r.want)
				}
			}
			if o, _ := h.store.Get(context.Background(), id); o.PayCurrency != "" || o.FiatpspSystemID != "" || o.ProviderRef != "" {
				t.Fatalf("the refused confirms fixed a choice: %+v", o)
			}
			if r := h.confirm(tt.path, choice); r.Status != 200 {
				t.Fatalf("the merchant's signed confirm: %d %s", r.Status, r.Raw)
			}
		})
	}
}
