package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestEndToEnd drives the real binary against the real Redis: accounts by
// the CLI, creates, queries and sandbox payments over HTTP, account changes
// seen by a running server, and a clean stop on SIGTERM.
func TestEndToEnd(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	e.run("migrate") // a second run applies nothing and does not fail
	var shop, live account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--callback", "http://127.0.0.1:9/hook", "--sandbox", "--json")
	e.cli(&live, "merchant", "create", "--name", "live shop", "--json")
	if !shop.Sandbox || live.Sandbox || shop.Callback != "http://127.0.0.1:9/hook" || len(shop.APIKey) < 32 {
		t.Fatalf("accounts: %+v %+v", shop, live)
	}
	var credited map[string]string
	e.cli(&credited, "merchant", "credit", shop.AppID, "--currency", "USD", "--amount", "20.00", "--json")
	if credited["balance"] != "20.00" {
		t.Fatalf("credit: %v", credited)
	}
	s := e.serve()

	p := createParams(shop.AppID)
	p["clientOrderId"] = "E2E-1"
	r := s.create(t, p, shop.APIKey)
	if r.Status != 200 || r.Data["status"] != 1.0 || r.Data["qrImageUrl"] == nil {
		t.Fatalf("create: %+v", r)
	}
	id := r.Data["paymentId"].(string)
	if again := s.create(t, createParams(shop.AppID), shop.APIKey); again.Data["paymentId"] == id {
		t.Fatal("create without clientOrderId replayed an order")
	}
	p2 := createParams(shop.AppID)
	p2["clientOrderId"] = "E2E-1"
	if again := s.create(t, p2, shop.APIKey); again.Data["paymentId"] != id || again.Data["idempotent"] != true {
		t.Fatalf("replay: %+v", again)
	}
	q := s.order(t, shop.AppID, shop.QueryKey, id)
	if q.Status != 200 || q.Data["status_str"] != "ready" || q.Data["notify_url"] != "http://127.0.0.1:9/hook" {
		t.Fatalf("query: %+v", q)
	}
	if q := s.order(t, live.AppID, live.QueryKey, id); q.Status != 404 {
		t.Fatalf("another merchant's order: %+v", q)
	}
	if r := s.sandbox(t, live.AppID, live.QueryKey, id, "pay"); r.Status != 403 {
		t.Fatalf("live merchant on the sandbox: %+v", r)
	}
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 || r.Data["status"] != 2.0 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	q = s.order(t, shop.AppID, shop.QueryKey, id)
	checkWebhook(t, s, shop)
	checkWebhookSecretShown(t, e, shop)
	if q.Data["status"] != 2.0 || q.Data["completedTime"] == nil {
		t.Fatalf("query after pay: %+v", q)
	}

	bp := createParams(shop.AppID)
	bp["paymentMethod"], bp["currency"], bp["amount"] = "balance", "USD", "15"
	if r := s.create(t, bp, shop.APIKey); r.Status != 200 || r.Data["paidWithBalance"] != true {
		t.Fatalf("balance: %+v", r)
	}
	if r := s.create(t, bp, shop.APIKey); r.Status != 422 || r.Error != "insufficient_balance" {
		t.Fatalf("overdraft: %+v", r)
	}
	if r := s.create(t, createParams(live.AppID), live.APIKey); r.Status != 400 || r.Error != "method_unavailable" {
		t.Fatalf("live without provider: %+v", r)
	}

	// Every order created above (the webhook check's too) reaches the
	// listing, in its latest state.
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		l := s.list(t, shop.AppID, shop.QueryKey, "limit=50")
		listed, _ := l.Data["orders"].([]any)
		return l.Status == 200 && l.Data["total"] == 4.0 && len(listed) == 4
	})
	testenv.Eventually(t, 10*time.Second, "condition", func() bool {
		l := s.list(t, shop.AppID, shop.QueryKey, "status=paid")
		return l.Data["total"] == 3.0 // the sandbox payments reached the listing too
	})

	// Account changes reach the running server within a second.
	e.cli(nil, "merchant", "disable", shop.AppID, "--json")
	testenv.Eventually(t, 2*time.Second, "condition", func() bool { return s.create(t, createParams(shop.AppID), shop.APIKey).Status == 403 })
	e.cli(nil, "merchant", "enable", shop.AppID, "--json")
	testenv.Eventually(t, 2*time.Second, "condition", func() bool { return s.create(t, createParams(shop.AppID), shop.APIKey).Status == 200 })
	var rotated account
	e.cli(&rotated, "merchant", "rotate-key", shop.AppID, "--grace", "1h", "--json")
	testenv.Eventually(t, 2*time.Second, "condition", func() bool { return s.create(t, createParams(shop.AppID), rotated.APIKey).Status == 200 })
	if r := s.create(t, createParams(shop.AppID), shop.APIKey); r.Status != 200 {
		t.Fatalf("old key within grace: %+v", r)
	}
	e.cli(&rotated, "merchant", "rotate-key", shop.AppID, "--json")
	testenv.Eventually(t, 2*time.Second, "condition", func() bool { return s.create(t, createParams(shop.AppID), shop.APIKey).Status == 401 })
	var shown account
	e.cli(&shown, "merchant", "show", shop.AppID, "--json")
	if shown.APIKey != rotated.APIKey {
		t.Fatal("show does not print the current key")
	}
	var all []account
	e.cli(&all, "merchant", "list", "--json")
	if len(all) != 2 {
		t.Fatalf("list: %+v", all)
	}
	e.cli(&shown, "merchant", "set-callback", shop.AppID, "", "--json")
	if shown.Callback != "" {
		t.Fatal("set-callback with an empty URL must clear it")
	}

	checkMetricsLint(t, s)

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, s.logs)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

// checkMetricsLint scrapes the running gateway after real traffic and runs
// `promtool check metrics` on it: names, units, help texts. promtool runs in
// a subtest so that, without it on a developer's machine, only that check is
// skipped and the rest of the end-to-end test runs; under CI=true a missing
// promtool fails (testenv.Tool).
func checkMetricsLint(t *testing.T, s *server) {
	t.Helper()
	res, err := http.Get(s.ops + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "gateway_orders_created_total") {
		t.Fatalf("/metrics: %d\n%.2000s", res.StatusCode, body)
	}
	t.Run("promtool check metrics", func(t *testing.T) {
		cmd := exec.Command(testenv.Tool(t, "promtool"), "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("promtool check metrics: %v\n%s", err, out)
		}
	})
}

// checkWebhook pays an order whose notify_url is a receiver on loopback: the
// signed callback arrives once, verifies with the merchant's key and, in its
// headers, with the merchant's webhook secret; the merchant sees the
// attempt with action=webhooks and asks for a resend through the API.
func checkWebhook(t *testing.T, s *server, shop account) {
	t.Helper()
	got := make(chan hookRequest, 10)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		got <- hookRequest{form: form, header: r.Header.Clone(), body: string(raw)}
		_, _ = io.WriteString(w, "SUCCESS\n")
	}))
	defer rcv.Close()
	p := createParams(shop.AppID)
	p["paymentMethod"], p["currency"], p["notify_url"], p["clientOrderId"] = "cryptohost", "USD", rcv.URL+"/hook", "HOOK-1"
	r := s.create(t, p, shop.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay: %+v", r)
	}
	var first hookRequest
	select {
	case first = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook within 10s")
	}
	form := first.form
	params := schema.Params{}
	for k := range form {
		params[k] = form.Get(k)
	}
	if !schema.VerifySign(params, shop.APIKey, form.Get("sign")) || form.Get("sign_type") != "MD5" {
		t.Fatalf("webhook signature does not verify: %v", form)
	}
	if form.Get("paymentId") != id || form.Get("paymentMethod") != "crypto" || form.Get("amount") != "100.50" ||
		form.Get("status") != "2" || form.Get("status_str") != "paid" || form.Get("clientOrderId") != "HOOK-1" {
		t.Fatalf("webhook fields: %v", form)
	}
	first.verify(t, shop.WebhookSecret, "evt_paid_"+id)
	q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"webhooks"}, "paymentId": {id}}
	testenv.Eventually(t, 5*time.Second, "condition", func() bool {
		req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
		l := call(t, req)
		attempts, _ := l.Data["attempts"].([]any)
		return l.Status == 200 && len(attempts) == 1
	})
	select {
	case extra := <-got:
		t.Fatalf("a second webhook after success: %v", extra.form)
	case <-time.After(500 * time.Millisecond):
	}
	checkResend(t, s, shop, id, got)
}
