package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/schema"
)

// epayTypesEnv is the operator's mapping the epay tests serve with.
const epayTypesEnv = "GATEWAY_EPAY_TYPES=t1=wallet_a,t2=wallet_b"

// epayAnswer is mapi.php's JSON.
type epayAnswer struct {
	Code      int    `json:"code"`
	Msg       string `json:"msg"`
	TradeNo   string `json:"trade_no"`
	PayURL    string `json:"payurl"`
	QRCode    string `json:"qrcode"`
	URLScheme string `json:"urlscheme"`
}

// epayPost signs p with key (unless it holds a sign already) and posts it
// to path as the protocol's plugins do: a urlencoded form.
func (s *server) epayPost(t *testing.T, path string, p epay.Params, key string) (int, epayAnswer, string) {
	t.Helper()
	if _, given := p["sign"]; !given && key != "" {
		p["sign"], p["sign_type"] = epay.Sign(p, key), "MD5"
	}
	form := url.Values{}
	for k, v := range p {
		form.Set(k, v)
	}
	res, err := http.Post(s.base+path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var a epayAnswer
	if strings.Contains(res.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return res.StatusCode, a, string(raw)
}

// epaySubmitURL is submit.php's signed GET link, as a plugin's getPayLink
// builds it.
func epaySubmitURL(base string, p epay.Params, key string) string {
	p["sign"], p["sign_type"] = epay.Sign(p, key), "MD5"
	q := url.Values{}
	for k, v := range p {
		q.Set(k, v)
	}
	return base + "/submit.php?" + q.Encode()
}

// noFollow is a client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// epayReceiver is a merchant's notify_url: each GET's query, answered
// "success".
func epayReceiver(t *testing.T) (*httptest.Server, chan url.Values) {
	got := make(chan url.Values, 10)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("notification by %s, want GET", r.Method)
		}
		got <- r.URL.Query()
		_, _ = io.WriteString(w, "success")
	}))
	t.Cleanup(rcv.Close)
	return rcv, got
}

func nextEpayHook(t *testing.T, got chan url.Values) url.Values {
	t.Helper()
	select {
	case q := <-got:
		return q
	case <-time.After(10 * time.Second):
		t.Fatal("no epay notification within 10s")
	}
	return nil
}

// verifyEpayHook checks a notification's sign with the merchant's key.
func verifyEpayHook(t *testing.T, q url.Values, key string) epay.Params {
	t.Helper()
	p := epay.Params{}
	for k := range q {
		p[k] = q.Get(k)
	}
	if p["sign_type"] != "MD5" || !epay.Verify(p, key) {
		t.Fatalf("notification does not verify: %v", q)
	}
	return p
}

// TestEpayEndToEnd: through the binary, a merchant's plugin orders by
// mapi.php (type t1 → wallet_a), a replay of the same out_trade_no answers
// the same order and one with other values is refused; the sandbox pays it
// and the merchant's notify_url gets the protocol's signed GET (its own
// query kept) and acknowledges it with "success"; the payer page's return
// link carries the same signed parameters; the delivery log shows the
// notification delivered and a resend sends it again as a GET.
func TestEpayEndToEnd(t *testing.T) {
	e := newE2E(t)
	rcv, got := epayReceiver(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve(epayTypesEnv)

	order := func(money string) epay.Params {
		return epay.Params{"pid": shop.AppID, "type": "t1", "out_trade_no": "E-1", "notify_url": rcv.URL + "/notify?shop=7",
			"return_url": "https://shop.example/back", "name": "Tom & Jerry = 2", "money": money, "clientip": "203.0.113.5",
			"param": "a&b=c <i>x</i>"}
	}
	st, a, raw := s.epayPost(t, "/mapi.php", order("12.30"), shop.APIKey)
	if st != 200 || a.Code != 1 || a.TradeNo == "" || a.QRCode == "" {
		t.Fatalf("mapi.php: %d %s", st, raw)
	}
	p := order("12.30")
	p["device"] = "mobile"
	if _, again, raw := s.epayPost(t, "/mapi.php", p, shop.APIKey); again.Code != 1 || again.TradeNo != a.TradeNo ||
		!strings.HasPrefix(again.PayURL, s.base+"/payment/") {
		t.Fatalf("replay of E-1 from a phone: %s, want order %s and a payurl", raw, a.TradeNo)
	}
	if _, other, raw := s.epayPost(t, "/mapi.php", order("12.31"), shop.APIKey); other.Code != -1 {
		t.Fatalf("E-1 again with another money: %s", raw)
	}
	o := s.order(t, shop.AppID, shop.QueryKey, a.TradeNo)
	if o.Data["amount"] != "12.30" || o.Data["currency"] != "CNY" || o.Data["paymentMethod"] != "wallet_a" ||
		o.Data["clientOrderId"] != "E-1" || o.Data["description"] != "Tom & Jerry = 2" {
		t.Fatalf("order made by mapi.php: %s", o.Raw)
	}

	if r := s.sandbox(t, shop.AppID, shop.QueryKey, a.TradeNo, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	q := nextEpayHook(t, got)
	// notify_url's own query is kept, the protocol's parameters appended
	// after '&'; the merchant's code verifies without it (the protocol's
	// plugins sign all they get, so docs/epay.md says to give none).
	if q.Get("shop") != "7" {
		t.Fatalf("notify_url's own query lost: %v", q)
	}
	q.Del("shop")
	n := verifyEpayHook(t, q, shop.APIKey)
	want := epay.Params{"pid": shop.AppID, "trade_no": a.TradeNo, "out_trade_no": "E-1", "type": "t1", "name": "Tom & Jerry = 2",
		"money": "12.30", "trade_status": "TRADE_SUCCESS", "param": "a&b=c <i>x</i>"}
	for k, v := range want {
		if n[k] != v {
			t.Fatalf("notification %s=%q, want %q (all: %v)", k, n[k], v, q)
		}
	}

	// The payer page's poll, once paid, sends the payer to return_url with
	// the notification's signed parameters.
	res, err := http.Get(s.base + "/payment/" + a.TradeNo + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Next string `json:"next"`
	}
	_ = json.NewDecoder(res.Body).Decode(&status)
	res.Body.Close()
	back, err := url.Parse(status.Next)
	if err != nil || !strings.HasPrefix(status.Next, "https://shop.example/back?") {
		t.Fatalf("return link %q", status.Next)
	}
	if r := verifyEpayHook(t, back.Query(), shop.APIKey); r["trade_no"] != a.TradeNo || r["money"] != "12.30" {
		t.Fatalf("return link parameters %v", back.Query())
	}

	// The paid page itself links there too (html-escaped in the page).
	page, err := http.Get(s.base + "/payment/" + a.TradeNo)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(html), "https://shop.example/back?") || !strings.Contains(string(html), "sign_type=MD5") {
		t.Fatalf("the paid page has no signed return link:\n%s", html)
	}

	// The delivery log has it; a resend (SPEC.md's signed call) sends the
	// same notification again.
	r := s.signedPost(t, "/api/order/webhooks/resend", schema.Params{"appid": shop.AppID, "action": "resend",
		"paymentId": a.TradeNo}, shop.APIKey, "")
	if r.Status != 200 {
		t.Fatalf("resend: %s", r.Raw)
	}
	resent := nextEpayHook(t, got)
	resent.Del("shop")
	if again := verifyEpayHook(t, resent, shop.APIKey); again["trade_no"] != a.TradeNo {
		t.Fatalf("resent notification %v", again)
	}

	// submit.php by the plugins' auto-submitted POST form, without a type:
	// the payer is sent to our select page.
	form := epay.Params{"pid": shop.AppID, "out_trade_no": "E-2", "notify_url": rcv.URL + "/notify",
		"return_url": "https://shop.example/back", "name": "Box", "money": "5"}
	form["sign"], form["sign_type"] = epay.Sign(form, shop.APIKey), "MD5"
	values := url.Values{}
	for k, v := range form {
		values.Set(k, v)
	}
	res, err = noFollow.PostForm(s.base+"/submit.php", values)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusFound || !strings.Contains(loc, "step=select") {
		t.Fatalf("submit.php POST answered %d to %q, want the select page", res.StatusCode, loc)
	}
}
