package checkout

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// A page where the payer still has to choose shows no "waiting for your
// payment" and does not poll; a page where the payment can arrive does.
func TestNoWaitingWhileThePayerChooses(t *testing.T) {
	h := newHarness(t)
	h.orders.methods = []schema.MethodOption{{Method: schema.MethodWalletA, Enabled: true}}
	h.orders.systems = []schema.SystemOption{{ID: 7, Name: "Card", Currency: "USD", Quote: 100, Available: true}}
	h.orders.cryptos = []schema.CryptoOption{{Currency: "btc", Min: 1, Enabled: true}}
	cases := []struct {
		name    string
		order   schema.Order
		path    string
		waiting bool
	}{
		{"select", order("w-se", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }), "/payment/w-se", false},
		{"fiatpsp", order("w-fi", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodFiatPSP, schema.NextFiatpspSelect }), "/payment/w-fi", false},
		{"cryptopsp", order("w-cr", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodCryptoPSP, schema.NextCryptopspSelect }), "/payment/w-cr", false},
		{"usdt network", order("w-un", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodUSDTDirect, schema.NextUSDTDirectPay }), "/payment/w-un/usdt-direct", false},
		{"balance login", order("w-bl", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodBalance, schema.NextBalanceLogin }), "/merchant/login?order=w-bl", false},
		{"qr", order("w-qr", func(o *schema.Order) { o.QRPayload = "x" }), "/payment/w-qr", true},
		{"usdt pay", order("w-up", func(o *schema.Order) {
			o.Method, o.NextAction, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "TRC20"
		}), "/payment/w-up/usdt-direct", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.orders.add(tc.order)
			r := h.get(t, tc.path)
			if r.code != http.StatusOK {
				t.Fatalf("%d\n%s", r.code, r.body)
			}
			for _, mark := range []string{"Waiting for your payment", `class="spinner"`, "data-status-url"} {
				if strings.Contains(r.body, mark) != tc.waiting {
					t.Errorf("page has %q: %v, want %v", mark, !tc.waiting, tc.waiting)
				}
			}
		})
	}
}

// What an operator must fix is not the payer's to read: a fiatpsp system
// without a rate is left out (and counted), a cryptocurrency reads as
// payers know it.
func TestPayersSeeNoOperatorDetails(t *testing.T) {
	h := newHarness(t)
	h.orders.systems = []schema.SystemOption{
		{ID: 7, Name: "Card EUR", Currency: "EUR", Quote: 9200, Rate: "0.92", Available: true},
		{ID: 8, Name: "Card XYZ", Currency: "XYZ"},
	}
	h.orders.cryptos = []schema.CryptoOption{{Currency: "usdttrc20", Min: 100, Enabled: true}, {Currency: "btc", Min: 100, Enabled: true}}
	h.orders.add(order("d-fi", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodFiatPSP, schema.NextFiatpspSelect }))
	h.orders.add(order("d-cr", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodCryptoPSP, schema.NextCryptopspSelect }))
	fi := h.get(t, "/payment/d-fi")
	if !strings.Contains(fi.body, `value="7"`) || strings.Contains(fi.body, `value="8"`) || strings.Contains(fi.body, "Card XYZ") ||
		strings.Contains(fi.body, "exchange rate") {
		t.Errorf("fiatpsp page offers the system without a rate, or says why:\n%s", fi.body)
	}
	if n := testutil.ToFloat64(h.pages.m.hidden.WithLabelValues("fiatpsp", "no_rate")); n != 1 {
		t.Errorf("gateway_checkout_options_hidden_total{fiatpsp,no_rate} = %v, want 1", n)
	}
	cr := h.get(t, "/payment/d-cr")
	for _, want := range []string{`<span class="name">USDT (TRC20)</span>`, `<span class="name">BTC</span>`, `value="usdttrc20"`} {
		if !strings.Contains(cr.body, want) {
			t.Errorf("cryptopsp page lacks %s", want)
		}
	}
	if strings.Contains(cr.body, `"name">usdttrc20<`) {
		t.Error("cryptopsp page shows the provider's code")
	}
}

// The balance login asks for an account, and a sandbox order's page says
// where the demo payer is.
func TestLoginWords(t *testing.T) {
	h := newHarness(t)
	h.orders.add(order("lw", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodBalance, schema.NextBalanceLogin }))
	r := h.get(t, "/merchant/login?order=lw")
	if !strings.Contains(r.body, `<label for="appid">Account</label>`) || strings.Contains(r.body, "appid)") {
		t.Errorf("login label:\n%s", r.body)
	}
	if !strings.Contains(r.body, "data-demo-payer") || !strings.Contains(r.body, "make run") {
		t.Errorf("sandbox login does not say where the demo payer is:\n%s", r.body)
	}
	h.orders.add(order("lw-live", func(o *schema.Order) {
		o.Method, o.NextAction, o.Sandbox = schema.MethodBalance, schema.NextBalanceLogin, false
	}))
	if r := h.get(t, "/merchant/login?order=lw-live"); strings.Contains(r.body, "data-demo-payer") {
		t.Error("a live order's login mentions the demo payer")
	}
}

// The deployment's method names replace the neutral words, per language,
// falling back to the English name; bad settings are refused at start.
func TestMethodNames(t *testing.T) {
	names, err := ParseMethodNames(`{"en": {"wallet_a": "Alipay"}, "es": {"wallet_a": "Alipay ES"}}`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.PublicURL, cfg.CSRFKey, cfg.MethodNames = "http://127.0.0.1:8080", []byte(strings.Repeat("k", 32)), names
	ips, _ := platform.NewClientIP(nil)
	h := &harness{orders: newFakeOrders(), payers: &fakePayers{}}
	h.pages, err = New(cfg, Deps{Orders: allPorts(h.orders), Payers: h.payers, ClientIP: ips, Merchants: fakeMerchants{}},
		prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h.app = fiber.New()
	h.pages.Register(h.app)
	h.orders.add(order("mn", func(o *schema.Order) { o.QRPayload = "x" }))
	for path, want := range map[string]string{
		"/payment/mn": "Scan this code with Alipay", "/zh/payment/mn": "Alipay", "/es/payment/mn": "Alipay ES",
	} {
		if r := h.get(t, path); !strings.Contains(r.body, want) || strings.Contains(r.body, "Wallet A") || strings.Contains(r.body, "钱包 A") {
			t.Errorf("%s lacks %q or shows the neutral name", path, want)
		}
	}
	bad := map[string]string{
		"unknown language": `{"fr": {"wallet_a": "Alipay"}}`,
		"unknown method":   `{"en": {"wallet_c": "X"}}`,
		"empty name":       `{"en": {"wallet_a": " "}}`,
		"not JSON":         `{"en": `,
		"missing file":     "/nonexistent/names.json",
	}
	for name, v := range bad {
		if _, err := ParseMethodNames(v); err == nil {
			t.Errorf("%s: %s accepted", name, v)
		}
	}
}

// A refused hosted create is a checkout page: plain words for the payer,
// the detail folded for the developer, the way back only when given.
func TestCreateErrorPage(t *testing.T) {
	h := newHarness(t)
	back := ""
	h.app.Get("/api/createorder", func(c *fiber.Ctx) error {
		return h.pages.RenderCreateError(c, platform.Errorf(platform.KindInvalidSign, "sign does not match"), c.Query("lang"), back)
	})
	get := func(path string) response { return h.get(t, path) }
	r := get("/api/createorder")
	if r.code != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", r.code)
	}
	checkPage(t, r)
	for _, want := range []string{"This payment could not be started", "nothing was charged", "<details class=\"tech\">",
		"<code data-error-kind>invalid_sign</code> (HTTP 401)", "sign does not match", `class="card"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("error page lacks %q\n%s", want, r.body)
		}
	}
	if strings.Contains(r.body, "data-shop") {
		t.Error("a way back is offered though none was given")
	}
	back = "https://shop.example/"
	r = get("/api/createorder?lang=zh")
	if !strings.Contains(r.body, `href="https://shop.example/"`) || !strings.Contains(r.body, "无法发起此次付款") {
		t.Errorf("zh page with a way back:\n%s", r.body)
	}
}
