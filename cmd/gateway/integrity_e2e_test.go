package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// integrityOrders is how many orders TestCreateIntegrityUnderLoad creates
// at once: enough that fasthttp reuses every request buffer many times
// while earlier requests' values are still on their way to Redis, the
// stream, ClickHouse and the webhook.
const integrityOrders = 2000

// integrityWorkers are the concurrent clients.
const integrityWorkers = 48

// sentOrder is what one create sent, to be read back byte for byte.
type sentOrder struct {
	id                                    string
	clientOrderID, description            string
	customerName, customerEmail, customer string
	notifyURL, returnURL                  string
}

// randomText is n runes drawn from ASCII punctuation and letters, CJK,
// accented letters and emoji: bytes a reused buffer would visibly change.
// Every ASCII character but '&', which no plain signed value may hold
// (schema.SignedForm: an '&' would let a payer re-split the signed string).
func randomText(n int) string {
	pools := []string{
		`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !"#$%'()*+,-./:;<=>?@[\]^_{|}~`,
		"支付订单测试商品中文描述東京ÄÖÜßéèçñ", "😀🚀💳🧾",
	}
	var b strings.Builder
	for range n {
		p := []rune(pools[randInt(len(pools))])
		b.WriteRune(p[randInt(len(p))])
	}
	return b.String()
}

func randInt(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err)
	}
	return int(v.Int64())
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newSentOrder draws one order's free-text fields; i keeps the
// clientOrderId distinct.
func newSentOrder(i int, hookBase string) sentOrder {
	const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-"
	var cid strings.Builder
	fmt.Fprintf(&cid, "IT%d-", i)
	for range 1 + randInt(40) {
		cid.WriteByte(idChars[randInt(len(idChars))])
	}
	return sentOrder{
		clientOrderID: cid.String(),
		description:   randomText(1 + randInt(200)),
		customerName:  randomText(1 + randInt(100)),
		customerEmail: randomHex(1+randInt(20)) + "@" + randomHex(4) + ".example",
		customer:      "+" + fmt.Sprint(1000000+randInt(1000000000)),
		notifyURL:     hookBase + "/hook/" + randomHex(8) + "?n=" + url.QueryEscape(randomText(1+randInt(30))),
		returnURL:     "https://shop.example/return/" + randomHex(8) + "?o={paymentId}&r=" + url.QueryEscape(randomText(1+randInt(30))),
	}
}

// integrityHooks keeps every webhook by paymentId: its request URI and
// form, to compare with what the create sent.
type integrityHooks struct {
	mu   sync.Mutex
	uri  map[string]string
	form map[string]url.Values
}

func (h *integrityHooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(raw))
	h.mu.Lock()
	h.uri[form.Get("paymentId")], h.form[form.Get("paymentId")] = r.RequestURI, form
	h.mu.Unlock()
	_, _ = io.WriteString(w, "success")
}

func (h *integrityHooks) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.form)
}

// TestCreateIntegrityUnderLoad: thousands of concurrent creates, each with
// its own random description, customer fields, notify_url, return_url and
// clientOrderId, are paid and then read back byte-identical from
// action=order, from the listing (action=orders, ClickHouse) and in the
// webhook each one's notify_url receives; the customer fields of a sample
// from `gateway order show`. A value of one request kept without a copy
// would show another request's bytes here.
func TestCreateIntegrityUnderLoad(t *testing.T) {
	t.Parallel() // on a database and a server of its own; its bounds are not timings, so it runs beside the others
	e := newE2E(t)
	e.run("migrate")
	hooks := &integrityHooks{uri: map[string]string{}, form: map[string]url.Values{}}
	rcv := httptest.NewServer(hooks)
	t.Cleanup(rcv.Close)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve("GATEWAY_RATE_CREATE=100000/s:100000", "GATEWAY_RATE_QUERY=100000/s:100000", "GATEWAY_RATE_REPORT=100000/s:100000")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute) // a bound, not an assertion
	defer cancel()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: integrityWorkers}}

	orders := make([]sentOrder, integrityOrders)
	for i := range orders {
		orders[i] = newSentOrder(i, rcv.URL)
	}
	parallel(t, ctx, len(orders), func(i int) error {
		o := &orders[i]
		p := createParams(shop.AppID)
		p["clientOrderId"], p["description"], p["notify_url"], p["return_url"] = o.clientOrderID, o.description, o.notifyURL, o.returnURL
		p["customerName"], p["customerEmail"], p["customerPhone"] = o.customerName, o.customerEmail, o.customer
		p["sign"] = schema.Sign(p, shop.APIKey)
		body, _ := json.Marshal(p)
		var r apiResponse
		if err := doJSON(ctx, client, http.MethodPost, s.base+"/api/createorder", body, &r); err != nil {
			return err
		}
		id, _ := r.Data["paymentId"].(string)
		if id == "" || r.Data["clientOrderId"] != o.clientOrderID {
			return fmt.Errorf("create %d: %+v", i, r)
		}
		o.id = id
		form := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}}.Encode()
		var pay apiResponse
		if err := doForm(ctx, client, s.base+"/sandbox/orders/"+id+"/pay", form, &pay); err != nil {
			return err
		}
		if pay.Data["status"] != 2.0 {
			return fmt.Errorf("pay %s: %+v", id, pay)
		}
		return nil
	})

	byID := make(map[string]*sentOrder, len(orders))
	for i := range orders {
		byID[orders[i].id] = &orders[i]
	}
	// action=order, from Redis.
	parallel(t, ctx, len(orders), func(i int) error {
		o := &orders[i]
		q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"order"}, "paymentId": {o.id}}
		var r apiResponse
		if err := doJSON(ctx, client, http.MethodGet, s.base+"/api/order?"+q.Encode(), nil, &r); err != nil {
			return err
		}
		return o.compare("action=order", r.Data)
	})
	// The listing, from ClickHouse, once the projector has every order.
	listed := map[string]bool{}
	for len(listed) < len(orders) && ctx.Err() == nil {
		for page := 1; ; page++ {
			q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"orders"}, "limit": {"50"}, "page": {fmt.Sprint(page)}}
			var r apiResponse
			if err := doJSON(ctx, client, http.MethodGet, s.base+"/api/order?"+q.Encode(), nil, &r); err != nil {
				t.Fatal(err)
			}
			rows, _ := r.Data["orders"].([]any)
			for _, row := range rows {
				m, _ := row.(map[string]any)
				id, _ := m["paymentId"].(string)
				o, ok := byID[id]
				if !ok {
					t.Fatalf("the listing shows an order nobody created: %v", m)
				}
				if err := o.compare("the listing", m); err != nil {
					t.Fatal(err)
				}
				listed[id] = true
			}
			if len(rows) < 50 {
				break
			}
		}
		if len(listed) < len(orders) {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if len(listed) != len(orders) {
		t.Fatalf("the listing shows %d of %d orders", len(listed), len(orders))
	}
	// Every webhook, at its own notify_url.
	for hooks.count() < len(orders) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	hooks.mu.Lock()
	for i := range orders {
		o := &orders[i]
		f, ok := hooks.form[o.id]
		u, _ := url.Parse(o.notifyURL)
		switch {
		case !ok:
			t.Errorf("%s: no webhook", o.id)
		case hooks.uri[o.id] != u.RequestURI():
			t.Errorf("%s: webhook posted to %q, notify_url was %q", o.id, hooks.uri[o.id], o.notifyURL)
		case f.Get("description") != o.description || f.Get("clientOrderId") != o.clientOrderID:
			t.Errorf("%s: webhook description %q clientOrderId %q, sent %q %q", o.id, f.Get("description"), f.Get("clientOrderId"), o.description, o.clientOrderID)
		}
	}
	hooks.mu.Unlock()
	// The customer fields are in no API answer: a sample through the CLI.
	for i := 0; i < len(orders); i += len(orders) / 10 {
		o := &orders[i]
		var show struct {
			Order struct{ CustomerName, CustomerEmail, CustomerPhone string }
		}
		e.cli(&show, "order", "show", o.id, "--json")
		if c := show.Order; c.CustomerName != o.customerName || c.CustomerEmail != o.customerEmail || c.CustomerPhone != o.customer {
			t.Errorf("%s: customer %+v, sent %q %q %q", o.id, c, o.customerName, o.customerEmail, o.customer)
		}
	}
}

// compare checks an order object's free-text fields against what was sent.
func (o *sentOrder) compare(where string, m map[string]any) error {
	for _, f := range []struct{ name, want string }{
		{"paymentId", o.id}, {"clientOrderId", o.clientOrderID}, {"description", o.description},
		{"notify_url", o.notifyURL}, {"return_url", o.returnURL},
	} {
		if got, _ := m[f.name].(string); got != f.want {
			return fmt.Errorf("%s of %s: %s is %q, sent %q", where, o.id, f.name, got, f.want)
		}
	}
	return nil
}

// parallel runs do(0..n-1) on integrityWorkers goroutines and fails the
// test with the first error.
func parallel(t *testing.T, ctx context.Context, n int, do func(i int) error) {
	t.Helper()
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range integrityWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := do(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 10 {
			t.Error(err)
		}
	}
	if failed > 0 || ctx.Err() != nil {
		t.Fatalf("%d of %d failed (%v)", failed, n, ctx.Err())
	}
}

func doJSON(ctx context.Context, client *http.Client, method, target string, body []byte, v *apiResponse) error {
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return send(client, req, v)
}

func doForm(ctx context.Context, client *http.Client, target, form string, v *apiResponse) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return send(client, req, v)
}

func send(client *http.Client, req *http.Request, v *apiResponse) error {
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	if err := json.Unmarshal(raw, v); err != nil || res.StatusCode != 200 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	return nil
}
