package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
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
	env := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	checkJournalAfter(t, env.redisURL)
	return env
}

// newE2ERedis is newE2E for a subcommand that needs Redis only.
func newE2ERedis(t testing.TB) *e2e {
	t.Helper()
	env := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t)}
	checkJournalAfter(t, env.redisURL)
	return env
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
	Replayed   bool           // Idempotent-Replayed: true
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
	r := apiResponse{Status: res.StatusCode, RetryAfter: res.Header.Get("Retry-After"), Raw: string(raw),
		Replayed: res.Header.Get("Idempotent-Replayed") == "true"}
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

// checkJournalAfter ends the test with the journal's check on the Redis at
// url: whatever the binary moved kept its invariants.
func checkJournalAfter(t testing.TB, url string) {
	t.Helper()
	// testenv.Client reads a single node's URL and a cluster seed's alike
	// (make test-cluster); its own cleanup closes it after the check.
	rdb := testenv.Client(t, url)
	t.Cleanup(func() { journaltest.Check(t, rdb) })
}
