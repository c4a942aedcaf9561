package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// gatewayBinary builds the real binary once per test run.
func gatewayBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gateway-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "gateway")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build gateway: %v\n%s", buildErr, binPath)
	}
	return binPath
}

type e2e struct {
	t        testing.TB
	bin      string
	redisURL string
	chDSN    string
}

// newE2E is the setup of an end-to-end test: the real binary over the
// test's Redis and ClickHouse (internal/testenv).
func newE2E(t testing.TB) *e2e {
	t.Helper()
	return &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
}

// newE2ERedis is newE2E for a subcommand that needs Redis only.
func newE2ERedis(t testing.TB) *e2e {
	t.Helper()
	return &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t)}
}

// cli runs a gateway subcommand and decodes its --json output into v.
func (e *e2e) cli(v any, args ...string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	// As the servers these tests start: callbacks may name loopback.
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN, "GATEWAY_WEBHOOK_ALLOW_PRIVATE=true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("gateway %v: %v\n%s", args, err, stderr.String())
	}
	if v != nil {
		if err := json.Unmarshal(out, v); err != nil {
			e.t.Fatalf("gateway %v printed %s: %v", args, out, err)
		}
	}
}

// run runs a gateway subcommand that prints no JSON.
func (e *e2e) run(args ...string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("gateway %v: %v\n%s", args, err, out)
	}
}

type server struct {
	cmd  *exec.Cmd
	base string
	ops  string // the operations listener's base URL (/metrics)
	adm  string // the admin listener's base URL (/admin)
	done chan error
	logs *bytes.Buffer
}

// serve starts `gateway serve` on 127.0.0.1:0 (its operations listener
// too, unless env holds opsDefault) and learns its addresses from the log
// line it prints when it serves.
func (e *e2e) serve(env ...string) *server {
	e.t.Helper()
	cmd := exec.Command(e.bin, "serve")
	ops := "GATEWAY_OPS_ADDR=127.0.0.1:0"
	if slices.Contains(env, opsDefault) {
		ops = opsDefault
	}
	cmd.Env = append(os.Environ(), append([]string{"GATEWAY_REDIS_URL=" + e.redisURL, "GATEWAY_CLICKHOUSE_DSN=" + e.chDSN,
		"GATEWAY_HTTP_ADDR=127.0.0.1:0", ops, "GATEWAY_ADMIN_ADDR=127.0.0.1:0", "GATEWAY_ROLES=command,query,projector,dispatcher",
		"GATEWAY_WEBHOOK_ALLOW_PRIVATE=true", "GATEWAY_WEBHOOK_SCHEDULE=200ms,1s"}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1), logs: &bytes.Buffer{}}
	addr := make(chan [3]string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.logs.WriteString(line + "\n")
			var rec struct {
				Msg       string `json:"msg"`
				Addr      string `json:"addr"`
				OpsAddr   string `json:"ops_addr"`
				AdminAddr string `json:"admin_addr"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "gateway serving" {
				addr <- [3]string{rec.Addr, rec.OpsAddr, rec.AdminAddr}
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	e.t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case a := <-addr:
		s.base = "http://" + a[0]
		if a[1] != "" {
			s.ops = "http://" + a[1]
		}
		if a[2] != "" {
			s.adm = "http://" + a[2]
		}
	case err := <-s.done:
		e.t.Fatalf("gateway serve exited: %v\n%s", err, s.logs)
	case <-time.After(15 * time.Second):
		e.t.Fatalf("gateway serve did not start\n%s", s.logs)
	}
	return s
}

// serveRefused starts `gateway serve` with env over the test's servers and
// wants it to exit refusing its configuration: it answers serve's stderr.
func (e *e2e) serveRefused(env ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.bin, "serve")
	cmd.Env = append(os.Environ(), append([]string{"GATEWAY_REDIS_URL=" + e.redisURL, "GATEWAY_CLICKHOUSE_DSN=" + e.chDSN,
		"GATEWAY_HTTP_ADDR=127.0.0.1:0", "GATEWAY_OPS_ADDR=127.0.0.1:0", "GATEWAY_ADMIN_ADDR=127.0.0.1:0"}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			e.t.Fatalf("serve %v exited without an error\n%s", env, stderr.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		e.t.Fatalf("serve started with %v\n%s", env, stderr.String())
	}
	return stderr.String()
}

type apiResponse struct {
	Status     int
	RetryAfter string
	Code       int            `json:"code"`
	Error      string         `json:"error"`
	Msg        string         `json:"msg"`
	Data       map[string]any `json:"data"`
	Raw        string         `json:"-"`
}

func call(t testing.TB, req *http.Request) apiResponse {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := apiResponse{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After"), Raw: string(raw)}
	if strings.Contains(res.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return r
}

func (s *server) create(t testing.TB, p schema.Params, key string) apiResponse {
	t.Helper()
	p["sign"] = schema.Sign(p, key)
	body, _ := json.Marshal(p)
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/createorder", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return call(t, req)
}

func (s *server) order(t *testing.T, appid, key, id string) apiResponse {
	t.Helper()
	q := url.Values{"appid": {appid}, "key": {key}, "action": {"order"}, "paymentId": {id}}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
	return call(t, req)
}

func (s *server) list(t *testing.T, appid, key, extra string) apiResponse {
	t.Helper()
	q := url.Values{"appid": {appid}, "key": {key}, "action": {"orders"}}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode()+"&"+extra, nil)
	return call(t, req)
}

func (s *server) sandbox(t *testing.T, appid, key, id, action string) apiResponse {
	t.Helper()
	form := url.Values{"appid": {appid}, "key": {key}}.Encode()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/sandbox/orders/"+id+"/"+action, strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return call(t, req)
}

type account struct {
	AppID    string `json:"appid"`
	APIKey   string `json:"apiKey"`
	QueryKey string `json:"queryKey"`
	Callback string `json:"callback"`
	Sandbox  bool   `json:"sandbox"`
	Disabled bool   `json:"disabled"`
	// Only create and rotate-webhook-secret print it.
	WebhookSecret string `json:"webhookSecret"`
}

func createParams(appid string) schema.Params {
	return schema.Params{"appid": appid, "clientip": "127.0.0.1", "action": "createorder",
		"amount": "100.50", "currency": "CNY", "paymentMethod": "wallet_a"}
}

// TestEndToEnd drives the real binary against the real Redis: accounts by
// the CLI, creates, queries and sandbox payments over HTTP, account changes
// seen by a running server, and a clean stop on SIGTERM.
func TestEndToEnd(t *testing.T) {
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
	if r := s.create(t, bp, shop.APIKey); r.Status != 400 || r.Error != "insufficient_balance" {
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
