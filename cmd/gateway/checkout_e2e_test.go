package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

// payerClient is a browser without a browser: cookies kept, redirects not
// followed, pages read as text.
type payerClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newPayerClient(t *testing.T, base string) *payerClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &payerClient{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	code int
	body string
	loc  string
}

func (p *payerClient) do(req *http.Request) page {
	p.t.Helper()
	res, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{code: res.StatusCode, body: string(b), loc: res.Header.Get("Location")}
}

func (p *payerClient) get(path string) page {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.base+path, nil)
	return p.do(req)
}

func (p *payerClient) post(path string, form url.Values) page {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Dest", "document")
	return p.do(req)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token is the CSRF token of the page at path, as a browser would have it.
func (p *payerClient) token(path string) string {
	p.t.Helper()
	pg := p.get(path)
	m := csrfRe.FindStringSubmatch(pg.body)
	if pg.code != 200 || m == nil {
		p.t.Fatalf("GET %s: %d, no CSRF token\n%s", path, pg.code, pg.body)
	}
	return m[1]
}

// TestPayerPagesRefuseBadInput: through the real binary, every refused
// form is answered with a page that says why, and the order is unchanged.
func TestPayerPagesRefuseBadInput(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var a, b account
	e.cli(&a, "merchant", "create", "--name", "a", "--sandbox", "--json")
	e.cli(&b, "merchant", "create", "--name", "b", "--sandbox", "--json")
	s := e.serve()
	create := func(m account, method, cur string) string {
		t.Helper()
		p := createParams(m.AppID)
		p["paymentMethod"], p["currency"], p["amount"] = method, cur, "60.00"
		r := s.create(t, p, m.APIKey)
		if r.Status != 200 {
			t.Fatalf("create %s: %+v", method, r)
		}
		return r.Data["paymentId"].(string)
	}
	nextAction := func(id string) any { return s.order(t, a.AppID, a.QueryKey, id).Data["nextAction"] }
	refused := func(t *testing.T, pg page, code int, says string) {
		t.Helper()
		if pg.code != code || !strings.Contains(pg.body, says) || !strings.Contains(pg.body, "<html") {
			t.Fatalf("answer %d, want %d with a page saying %q:\n%s", pg.code, code, says, pg.body)
		}
	}

	t.Run("GET createorder answers the page itself, and a refresh the same order", func(t *testing.T) {
		p := createParams(a.AppID)
		p["paymentMethod"], p["currency"], p["clientOrderId"] = "select", "USD", "page-refresh"
		p["sign"] = schema.Sign(p, a.APIKey)
		q := url.Values{}
		for k, v := range p {
			q.Set(k, v)
		}
		c := newPayerClient(t, s.base)
		first, again := c.get("/api/createorder?"+q.Encode()), c.get("/api/createorder?"+q.Encode())
		if first.code != 200 || !strings.Contains(first.body, "Choose how to pay") {
			t.Fatalf("GET /api/createorder: %d %s", first.code, first.loc)
		}
		idRe := regexp.MustCompile(`<code>(P[0-9a-f]+)</code>`)
		if idRe.FindString(first.body) == "" || idRe.FindString(first.body) != idRe.FindString(again.body) {
			t.Fatal("a refresh showed another order")
		}
	})
	t.Run("forged and missing CSRF tokens", func(t *testing.T) {
		id := create(a, "select", "USD")
		c := newPayerClient(t, s.base)
		c.token("/payment/" + id)
		refused(t, c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_a"}, "csrf": {"forged"}}), 403, "The form has expired")
		refused(t, c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_a"}}), 403, "The form has expired")
		other := newPayerClient(t, s.base) // another browser's valid token
		refused(t, other.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_a"}, "csrf": {c.token("/payment/" + id)}}), 403, "The form has expired")
		if nextAction(id) != "payment_method_select" {
			t.Fatalf("order changed: nextAction %v", nextAction(id))
		}
	})
	t.Run("a second confirm, and a confirm on a paid order", func(t *testing.T) {
		id := create(a, "select", "USD")
		c := newPayerClient(t, s.base)
		tok := c.token("/payment/" + id)
		if pg := c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_a"}, "csrf": {tok}}); pg.code != 303 {
			t.Fatalf("confirm: %d\n%s", pg.code, pg.body)
		}
		refused(t, c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_b"}, "csrf": {tok}}), 409, "already moved on")
		s.sandbox(t, a.AppID, a.QueryKey, id, "pay")
		refused(t, c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_b"}, "csrf": {tok}}), 409, "already moved on")
		if got := s.order(t, a.AppID, a.QueryKey, id).Data; got["paymentMethod"] != "wallet_a" || got["status"] != 2.0 {
			t.Fatalf("order %+v", got)
		}
	})
	t.Run("a transaction hash used twice", func(t *testing.T) {
		c := newPayerClient(t, s.base)
		hash := strings.Repeat("c3", 32)
		for i, want := range []int{303, 409} {
			id := create(a, "usdt_direct", "USD")
			tok := c.token("/payment/" + id + "/usdt-direct")
			c.post("/payment/"+id+"/usdt-direct", url.Values{"action": {"network"}, "network": {"TRC20"}, "csrf": {tok}})
			pg := c.post("/payment/"+id+"/usdt-direct", url.Values{"action": {"hash"}, "txhash": {hash}, "csrf": {tok}})
			if pg.code != want {
				t.Fatalf("submit %d: %d, want %d\n%s", i, pg.code, want, pg.body)
			}
			if want == 409 && (!strings.Contains(pg.body, "already submitted") || nextAction(id) != "usdt_direct_pay") {
				t.Fatalf("reuse: %s, nextAction %v", pg.body, nextAction(id))
			}
		}
	})
	t.Run("another merchant's order", func(t *testing.T) {
		id := create(a, "select", "USD")
		if r := s.sandbox(t, b.AppID, b.QueryKey, id, "pay"); r.Status != 404 {
			t.Fatalf("merchant b drove a's order: %+v", r)
		}
		if r := s.order(t, b.AppID, b.QueryKey, id); r.Status != 404 {
			t.Fatalf("merchant b read a's order: %+v", r)
		}
		// A merchant cannot pay its own order with its own balance.
		e.stdin("a password long enough", "merchant", "set-password", a.AppID)
		e.cli(nil, "merchant", "credit", a.AppID, "--currency", "USD", "--amount", "100.00", "--json")
		c := newPayerClient(t, s.base)
		tok := c.token("/payment/" + id)
		c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"balance"}, "csrf": {tok}})
		c.post("/merchant/login", url.Values{"appid": {a.AppID}, "password": {"a password long enough"}, "order": {id}, "csrf": {tok}})
		refused(t, c.post("/merchant/pay", url.Values{"order": {id}, "csrf": {tok}}), 403, "cannot pay this order")
		if got := s.order(t, a.AppID, a.QueryKey, id).Data; got["status"] != 1.0 {
			t.Fatalf("order %+v", got)
		}
	})
	t.Run("languages in the path", func(t *testing.T) {
		id := create(a, "wallet_a", "CNY")
		c := newPayerClient(t, s.base)
		for _, path := range []string{"/xx/payment/" + id, "/..%2f..%2fetc/payment/" + id, "/%2e%2e/payment/" + id, "/EN/payment/" + id} {
			if pg := c.get(path); pg.code != 404 {
				t.Errorf("GET %s: %d, want 404", path, pg.code)
			}
		}
		if pg := c.get("/zh/payment/" + id); pg.code != 200 || !strings.Contains(pg.body, `lang="zh"`) {
			t.Errorf("zh page: %d", pg.code)
		}
	})
	t.Run("an oversized form", func(t *testing.T) {
		id := create(a, "select", "USD")
		c := newPayerClient(t, s.base)
		tok := c.token("/payment/" + id)
		refused(t, c.post("/payment/"+id+"?step=confirm", url.Values{"paymentMethod": {"wallet_a"}, "csrf": {tok}, "pad": {strings.Repeat("x", 20<<10)}}), 413, "too large")
		if nextAction(id) != "payment_method_select" {
			t.Fatal("order changed")
		}
	})
	t.Run("the status address tells nothing else", func(t *testing.T) {
		id := create(a, "wallet_a", "CNY")
		pg := newPayerClient(t, s.base).get("/payment/" + id + "/status")
		var got map[string]any
		if err := json.Unmarshal([]byte(pg.body), &got); err != nil || len(got) != 3 || got["status_str"] != "ready" {
			t.Fatalf("status: %d %s", pg.code, pg.body)
		}
	})
}
