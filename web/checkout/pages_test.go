package checkout

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

var (
	inlineHandler = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	scriptTag     = regexp.MustCompile(`<script[^>]*>`)
)

func TestPaymentPages(t *testing.T) {
	h := newHarness(t)
	h.orders.methods = []schema.MethodOption{
		{Method: schema.MethodWalletA, Limits: schema.AmountLimits{Min: 100, Max: 5000000}, Enabled: true},
		{Method: schema.MethodUSDTDirect, Limits: schema.AmountLimits{Min: 100000}, Reason: "below_min"},
	}
	h.orders.systems = []schema.SystemOption{{ID: 7, Name: "Card RUB", Currency: "RUB", Quote: 1134500, Rate: "91.90", Available: true}}
	h.orders.cryptos = []schema.CryptoOption{{Currency: "BTC", Min: 50000}, {Currency: "USDTTRC20", Min: 1000, Enabled: true}}
	cases := []struct {
		name  string
		order schema.Order
		path  string
		want  []string
	}{
		{"qr", order("o-qr", func(o *schema.Order) { o.QRPayload = "http://127.0.0.1:1/sim/qr/x" }), "/payment/o-qr",
			[]string{`src="/payment/o-qr/qr.png"`, "Scan this code with Wallet A", "data-sandbox-wallet", `data-status-url="/payment/o-qr/status"`, `data-poll-ms="4000"`, `data-timeout-ms="180000"`}},
		{"redirect", order("o-rd", func(o *schema.Order) {
			o.Method, o.ProviderURL = schema.MethodCryptohost, "https://provider.example/pay/1"
		}), "/payment/o-rd",
			[]string{`href="https://provider.example/pay/1"`, "Continue to pay", "Cancel payment"}},
		{"pending", order("o-pe", func(o *schema.Order) { o.Status = schema.StatusPending }), "/payment/o-pe",
			[]string{"preparing your payment"}},
		{"select", order("o-se", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }), "/payment/o-se?step=select",
			[]string{"Choose how to pay", `value="wallet_a"`, "1.00 – 50000.00 USD", "From 1000.00 USD", "below this method&#39;s minimum of 1000.00 USD", `action="/payment/o-se?step=confirm"`}},
		{"fiatpsp", order("o-fi", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodFiatPSP, schema.NextFiatpspSelect }), "/payment/o-fi",
			[]string{"Choose a payment system", `value="7"`, "You pay 11345.00 RUB at 91.90 RUB per USD", `action="/api/fiatpsp/confirm"`}},
		{"cryptopsp", order("o-cr", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodCryptoPSP, schema.NextCryptopspSelect }), "/payment/o-cr",
			[]string{"Choose a cryptocurrency", "below the minimum of 500.00 USD", `value="USDTTRC20"`}},
		{"usdt network", order("o-un", func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "123.450017"
		}), "/payment/o-un/usdt-direct", []string{"Choose the network you send on", `value="TRC20"`, `value="BEP20"`}},
		{"usdt pay", order("o-up", func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "123.450017", "TRC20"
		}), "/payment/o-up/usdt-direct", []string{"123.450017", "TXYZabcdefghijkmnopqrstuvwxyz1234", `data-copy="123.450017"`, "data-countdown", `name="txhash"`, "usdt-qr.png"}},
		{"usdt rejected", order("o-rj", func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "1.000001", "TRC20"
			o.Review, o.ReviewReason = "rejected", "wrong_amount"
		}), "/payment/o-rj/usdt-direct", []string{"data-rejected", "the amount was not exactly the amount shown", "data-simulate"}},
		{"usdt waiting for an administrator", order("o-wa", func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network, o.TxHash, o.Review = schema.MethodUSDTDirect, schema.NextUSDTReview, "1.000001", "TRC20", "ab", "waiting"
		}), "/payment/o-wa/usdt-direct", []string{"An administrator is checking"}},
		{"usdt review", order("o-ur", func(o *schema.Order) {
			o.Method, o.NextAction, o.PayableAmount, o.Network, o.TxHash = schema.MethodUSDTDirect, schema.NextUSDTReview, "1.000001", "TRC20", strings.Repeat("ab", 32)
		}), "/payment/o-ur", []string{"Under review", strings.Repeat("ab", 32)}},
		{"balance login", order("o-bl", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodBalance, schema.NextBalanceLogin }), "/merchant/login?order=o-bl",
			[]string{"Pay with your account balance", `name="password"`, `value="o-bl"`}},
		{"paid with return", order("o-pd", func(o *schema.Order) {
			o.Status, o.ReturnURL = schema.StatusPaid, "https://merchant.example/r/{paymentId}"
		}), "/payment/o-pd",
			[]string{"Payment received", `data-return-now="https://merchant.example/r/o-pd"`}},
		{"failed", order("o-fa", func(o *schema.Order) { o.Status = schema.StatusFailed }), "/payment/o-fa", []string{"The payment failed"}},
		{"cancelled", order("o-ca", func(o *schema.Order) { o.Status = schema.StatusCancelled }), "/payment/o-ca", []string{"The payment was cancelled"}},
		{"zh", order("o-zh", func(o *schema.Order) { o.Lang = "zh"; o.QRPayload = "x" }), "/payment/o-zh", []string{`lang="zh"`, "请使用钱包 A扫描此二维码付款"}},
		{"es by path", order("o-es", func(o *schema.Order) { o.QRPayload = "x" }), "/es/payment/o-es", []string{`lang="es"`, "Escanee este código con Monedero A"}},
		{"script description", order("o-xs", func(o *schema.Order) { o.Description = `<script>alert(1)</script>`; o.QRPayload = "x" }), "/payment/o-xs",
			[]string{"&lt;script&gt;alert(1)&lt;/script&gt;"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.orders.add(tc.order)
			r := h.get(t, tc.path)
			if r.code != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", tc.path, r.code, r.body)
			}
			checkPage(t, r)
			for _, w := range tc.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("page lacks %q\n%s", w, r.body)
				}
			}
			if !strings.Contains(r.body, `<strong data-merchant>Tea &amp; Cake &lt;Shop&gt;</strong>`) {
				t.Error("the page does not name the merchant (escaped)")
			}
			for _, leak := range []string{"payer@example.com", "shop-1", "merchant.example/notify", ">m1<"} {
				if strings.Contains(r.body, leak) {
					t.Errorf("page shows %q", leak)
				}
			}
			if strings.Contains(r.body, "<script>alert") {
				t.Error("description rendered as markup")
			}
		})
	}
}

func TestStatusAddress(t *testing.T) {
	h := newHarness(t)
	h.orders.add(order("s-ready"))
	h.orders.add(order("s-paid", func(o *schema.Order) {
		o.Status, o.ReturnURL = schema.StatusPaid, "https://merchant.example/done?id={paymentId}"
	}))
	h.orders.add(order("s-paid-noreturn", func(o *schema.Order) { o.Status = schema.StatusPaid }))
	cases := []struct {
		name, path string
		code       int
		want       map[string]any
	}{
		{"ready", "/payment/s-ready/status", 200, map[string]any{"status": 1.0, "status_str": "ready", "next": ""}},
		{"paid", "/payment/s-paid/status", 200, map[string]any{"status": 2.0, "status_str": "paid", "next": "https://merchant.example/done?id=s-paid"}},
		{"paid without return_url", "/payment/s-paid-noreturn/status", 200, map[string]any{"status": 2.0, "status_str": "paid", "next": ""}},
		{"under a language", "/zh/payment/s-ready/status", 200, map[string]any{"status": 1.0, "status_str": "ready", "next": ""}},
		{"unknown order", "/payment/nope/status", 404, nil},
		{"unknown language", "/xx/payment/s-ready/status", 404, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.get(t, tc.path)
			if r.code != tc.code {
				t.Fatalf("status %d, want %d: %s", r.code, tc.code, r.body)
			}
			if tc.want == nil {
				return
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(r.body), &got); err != nil {
				t.Fatalf("%s: %v", r.body, err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("body %s has other fields than %v", r.body, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
			}
		})
	}
}

func TestFormsRefuseBadInput(t *testing.T) {
	big := url.Values{"paymentMethod": {"wallet_a"}, "pad": {strings.Repeat("x", 9<<10)}}
	cases := []struct {
		name      string
		order     schema.Order
		path      string
		form      url.Values
		withToken bool
		code      int
		says      string
	}{
		{"missing csrf", order("b1", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }),
			"/payment/b1?step=confirm", url.Values{"paymentMethod": {"wallet_a"}}, false, 403, "The form has expired"},
		{"forged csrf", order("b2", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }),
			"/payment/b2?step=confirm", url.Values{"paymentMethod": {"wallet_a"}, "csrf": {"forged"}}, false, 403, "The form has expired"},
		{"confirm on a paid order", order("b3", func(o *schema.Order) { o.Status = schema.StatusPaid }),
			"/payment/b3?step=confirm", url.Values{"paymentMethod": {"wallet_a"}}, true, 409, "already moved on"},
		{"oversized form", order("b4", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }),
			"/payment/b4?step=confirm", big, true, 413, "too large"},
		{"cancel without csrf", order("b5"), "/payment/b5?step=cancel", url.Values{}, false, 403, "The form has expired"},
		{"traversal in lang", order("b6"), "/..%2f..%2fetc/payment/b6?step=cancel", url.Values{}, true, 404, ""},
		{"unknown order", schema.Order{ID: "other"}, "/payment/nope?step=cancel", url.Values{}, true, 404, "does not exist"},
		{"browser form to the fiatpsp API without csrf", order("b7", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodFiatPSP, schema.NextFiatpspSelect }),
			"/api/fiatpsp/confirm", url.Values{"paymentId": {"b7"}, "fiatpspSystemId": {"7"}, "csrf": {"forged"}}, false, 403, "The form has expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.orders.add(tc.order)
			before := *h.orders.orders[tc.order.ID]
			r := h.post(t, tc.path, tc.form, tc.withToken)
			if r.code != tc.code {
				t.Fatalf("status %d, want %d\n%s", r.code, tc.code, r.body)
			}
			if tc.says != "" && !strings.Contains(r.body, tc.says) {
				t.Errorf("page does not say %q:\n%s", tc.says, r.body)
			}
			if len(h.orders.calls) != 0 && tc.code != 409 && tc.code != 404 {
				t.Errorf("the command side was called: %v", h.orders.calls)
			}
			if after := *h.orders.orders[tc.order.ID]; after != before {
				t.Errorf("order changed: %+v", after)
			}
		})
	}
}

func TestFormsMoveThePayerOn(t *testing.T) {
	cases := []struct {
		name  string
		order schema.Order
		path  string
		form  url.Values
		to    string
		call  string
	}{
		{"choose a method", order("f1", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodSelect, schema.NextMethodSelect }),
			"/zh/payment/f1?step=confirm", url.Values{"paymentMethod": {"wallet_a"}}, "/zh/payment/f1", "choose wallet_a"},
		{"cancel", order("f2"), "/payment/f2?step=cancel", url.Values{}, "/payment/f2", "cancel"},
		{"fiatpsp system", order("f3", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodFiatPSP, schema.NextFiatpspSelect }),
			"/api/fiatpsp/confirm", url.Values{"paymentId": {"f3"}, "fiatpspSystemId": {"7"}, "lang": {"es"}}, "/es/payment/f3", "fiatpsp 7"},
		{"usdt network", order("f4", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodUSDTDirect, schema.NextUSDTDirectPay }),
			"/payment/f4/usdt-direct", url.Values{"action": {"network"}, "network": {"TRC20"}}, "/payment/f4/usdt-direct", "network TRC20"},
		{"usdt hash", order("f5", func(o *schema.Order) {
			o.Method, o.NextAction, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "TRC20"
		}),
			"/payment/f5/usdt-direct", url.Values{"action": {"hash"}, "txhash": {"ab"}}, "/payment/f5/usdt-direct", "hash ab"},
		{"simulate a transfer", order("f7", func(o *schema.Order) {
			o.Method, o.NextAction, o.Network = schema.MethodUSDTDirect, schema.NextUSDTDirectPay, "TRC20"
		}),
			"/payment/f7/usdt-direct", url.Values{"action": {"simulate"}}, "/payment/f7/usdt-direct?simhash=abf7", "simulate"},
		{"pay with balance", order("f6", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodBalance, schema.NextBalanceLogin }),
			"/merchant/pay", url.Values{"order": {"f6"}}, "/payment/f6", "balance payer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.orders.add(tc.order)
			r := h.post(t, tc.path, tc.form, true)
			if r.code != http.StatusSeeOther || r.header.Get("Location") != tc.to {
				t.Fatalf("%d to %q, want 303 to %q\n%s", r.code, r.header.Get("Location"), tc.to, r.body)
			}
			if len(h.orders.calls) != 1 || h.orders.calls[0] != tc.call {
				t.Errorf("calls %v, want [%s]", h.orders.calls, tc.call)
			}
		})
	}
}

func TestFiatpspAPICallsPassThrough(t *testing.T) {
	h := newHarness(t)
	req := httptest.NewRequest(http.MethodPost, "/api/fiatpsp/confirm", strings.NewReader("paymentId=x&fiatpspSystemId=7"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r := h.do(t, req); r.body != "json api" {
		t.Fatalf("an API call was answered by the pages: %d %s", r.code, r.body)
	}
}

func TestLogin(t *testing.T) {
	h := newHarness(t)
	h.orders.add(order("l1", func(o *schema.Order) { o.Method, o.NextAction = schema.MethodBalance, schema.NextBalanceLogin }))
	req := func(form url.Values, session bool) response {
		form.Set("csrf", h.pages.csrfToken(strings.Repeat("s", 43)))
		r := httptest.NewRequest(http.MethodPost, "/merchant/login", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: strings.Repeat("s", 43)})
		return h.do(t, r)
	}
	bad := req(url.Values{"appid": {"payer"}, "password": {"wrong"}, "order": {"l1"}}, false)
	if bad.code != http.StatusUnauthorized || !strings.Contains(bad.body, "data-problem") || !strings.Contains(bad.body, `value="payer"`) {
		t.Fatalf("wrong password: %d\n%s", bad.code, bad.body)
	}
	ok := req(url.Values{"appid": {"payer"}, "password": {"correct horse"}, "order": {"l1"}}, false)
	if ok.code != http.StatusSeeOther || ok.header.Get("Location") != "/merchant/login?order=l1" {
		t.Fatalf("login: %d %s", ok.code, ok.header.Get("Location"))
	}
	var sess *http.Cookie
	for _, c := range ok.cookies {
		if c.Name == sessionCookie {
			sess = c
		}
	}
	if sess == nil || !sess.HttpOnly || sess.SameSite != http.SameSiteLaxMode || sess.Value != "tok-payer" {
		t.Fatalf("session cookie %+v", sess)
	}
	r := httptest.NewRequest(http.MethodGet, "/merchant/login?order=l1", nil)
	r.AddCookie(sess)
	page := h.do(t, r)
	if !strings.Contains(page.body, "Pay 123.45 USD from your balance of 500.00 USD") {
		t.Fatalf("confirm offer missing:\n%s", page.body)
	}
	h.payers.balances["USD"] = 100
	page = h.do(t, r)
	if strings.Contains(page.body, "data-pay") || !strings.Contains(page.body, "does not cover") {
		t.Fatalf("short balance offered:\n%s", page.body)
	}
}

func TestConfigValidate(t *testing.T) {
	good := Defaults()
	good.PublicURL, good.CSRFKey = "http://x", make([]byte, 32)
	cases := []struct {
		name string
		mut  func(*Config)
		ok   bool
	}{
		{"defaults", func(*Config) {}, true},
		{"no public URL", func(c *Config) { c.PublicURL = "" }, false},
		{"short key", func(c *Config) { c.CSRFKey = make([]byte, 16) }, false},
		{"timeout below interval", func(c *Config) { c.PollTimeout = time.Second }, false},
		{"tiny forms", func(c *Config) { c.MaxFormBytes = 10 }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.mut(&c)
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
