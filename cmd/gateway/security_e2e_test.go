package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/provider/cryptohost"
	"github.com/paygate/gateway/schema"
)

// secretCLI runs a gateway subcommand at debug level with stdin, decodes
// its --json stdout into v, and returns its stderr: the log a secret must
// not reach (stdout is where the CLI prints keys on purpose).
func (e *e2e) secretCLI(v any, stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL, "GATEWAY_CLICKHOUSE_DSN="+e.chDSN, "GATEWAY_LOG_LEVEL=debug")
	cmd.Stdin = strings.NewReader(stdin)
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
	return stderr.String()
}

// stop ends a server with SIGTERM and waits, so that its whole log is in.
func (s *server) stop(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(25 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// TestSecurityEndToEnd drives the real binary, at debug level, through the
// flows that handle every kind of secret and through the attacks a payment
// gateway must turn away; each subtest says what it proves. The last one
// greps everything the run logged, and /metrics, for every secret used.
func TestSecurityEndToEnd(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := newE2E(t)
	e.run("migrate")
	var cliLogs strings.Builder
	var a, b, live account
	cliLogs.WriteString(e.secretCLI(&a, "", "merchant", "create", "--name", "a", "--sandbox", "--json"))
	cliLogs.WriteString(e.secretCLI(&b, "", "merchant", "create", "--name", "b", "--sandbox", "--json"))
	cliLogs.WriteString(e.secretCLI(&live, "", "merchant", "create", "--name", "live", "--json"))
	const password = "correct horse battery staple"
	cliLogs.WriteString(e.secretCLI(nil, password+"\n", "merchant", "set-password", b.AppID, "--json"))
	secrets := map[string]string{"a api key": a.APIKey, "a query key": a.QueryKey, "a webhook secret": a.WebhookSecret,
		"b api key": b.APIKey, "b query key": b.QueryKey, "b webhook secret": b.WebhookSecret,
		"live api key": live.APIKey, "live query key": live.QueryKey, "b password": password}

	// A live provider that never answers, configured with secrets of its own.
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	provKey, provHook := "provider-api-key-5e3c7a91d2", "provider-webhook-secret-8b1f04c6e7"
	secrets["provider api key"], secrets["provider webhook secret"] = provKey, provHook
	provCfg := `{"base_url": "` + hang.URL + `", "api_key": "` + provKey + `", "webhook_secret": "` + provHook + `"}`

	hooks := newHookReceiver(t)
	s := e.serve("GATEWAY_LOG_LEVEL=debug", "GATEWAY_HTTP_READ_TIMEOUT=1s", "GATEWAY_PROVIDER_CRYPTOHOST="+provCfg,
		"GATEWAY_PROVIDER_TIMEOUT=300ms")

	t.Run("unknown paths and methods get the error shape", func(t *testing.T) { checkRoutes(t, s) })
	t.Run("one merchant cannot read or move another's order", func(t *testing.T) { checkCrossMerchant(t, s, a, b, hooks) })
	t.Run("oversized bodies are refused", func(t *testing.T) { checkBodyLimits(t, s) })
	t.Run("slow clients are cut off", func(t *testing.T) { checkSlowClients(t, s) })

	// Flows that carry every secret: signed creates and resends, queries,
	// a webhook signed with the webhook secret, rotations, a live provider
	// call and a provider notification signed with its secret, and failed
	// attempts that send another merchant's real keys.
	p := createParams(a.AppID)
	p["paymentMethod"], p["currency"], p["notify_url"] = "cryptohost", "USD", hooks.url
	r := s.create(t, p, a.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r := s.sandbox(t, a.AppID, a.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return hooks.got(id).Get("status") == "2" })
	_ = s.resend(t, a.AppID, a.APIKey, id)
	_ = s.order(t, a.AppID, b.QueryKey, id)
	_ = s.create(t, createParams(a.AppID), b.APIKey)
	lp := createParams(live.AppID)
	lp["paymentMethod"], lp["currency"] = "cryptohost", "USD"
	if r := s.create(t, lp, live.APIKey); r.Status != 503 {
		t.Fatalf("live create with the provider down: %+v", r)
	}
	note := []byte(`{"event":{"id":"e1","type":"charge:confirmed","data":{"code":"ABCD1234","metadata":{"order_id":"P1"}}}}`)
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/gatewaynotification/cryptohost/"+cryptohost.NotifyPath, bytes.NewReader(note))
	req.Header.Set(cryptohost.DefaultSignatureHeader, cryptohost.Sign(provHook, note))
	_ = call(t, req)
	var rotated account
	cliLogs.WriteString(e.secretCLI(&rotated, "", "merchant", "rotate-key", a.AppID, "--grace", "1h", "--json"))
	secrets["a rotated api key"] = rotated.APIKey
	cliLogs.WriteString(e.secretCLI(&rotated, "", "merchant", "rotate-query-key", a.AppID, "--json"))
	secrets["a rotated query key"] = rotated.QueryKey
	cliLogs.WriteString(e.secretCLI(&rotated, "", "merchant", "rotate-webhook-secret", a.AppID, "--json"))
	secrets["a rotated webhook secret"] = rotated.WebhookSecret
	cliLogs.WriteString(e.secretCLI(nil, "", "merchant", "show", a.AppID, "--json"))
	_ = s.create(t, createParams(a.AppID), rotated.APIKey)

	t.Run("a disabled merchant's orders in flight complete", func(t *testing.T) { checkDisabled(t, e, s, b, hooks) })
	consoleSecretsUsed, consoleCLILogs := consoleSecrets(t, e, s, a.AppID)
	maps.Copy(secrets, consoleSecretsUsed)
	cliLogs.WriteString(consoleCLILogs)

	metrics := get(t, s.ops+"/metrics")
	s.stop(t)
	logs := s.logs.String() + cliLogs.String()
	if !strings.Contains(logs, `"level":"DEBUG"`) {
		t.Fatalf("the run logged nothing at debug level: the grep below would prove little\n%.3000s", logs)
	}
	for name, v := range secrets {
		if v == "" {
			t.Errorf("%s: empty, the check would pass vacuously", name)
			continue
		}
		if i := strings.Index(logs, v); i >= 0 {
			t.Errorf("%s is in the logs: …%s…", name, logs[max(0, i-200):min(len(logs), i+len(v)+50)])
		}
		if strings.Contains(metrics, v) {
			t.Errorf("%s is in /metrics", name)
		}
	}
}

// checkRoutes: a path nobody serves is 404, a method a path does not take
// is 405 with Allow, and a method no route knows is 400, all in the JSON
// error shape; none reaches a handler.
func checkRoutes(t *testing.T, s *server) {
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/no/such/path", 404}, {http.MethodPost, "/api/createorder/x/../../../etc/passwd", 404},
		{http.MethodGet, "/api/gatewaynotification", 404}, {http.MethodDelete, "/api/createorder", 405},
		{http.MethodPut, "/api/order/cancel", 405}, {http.MethodPatch, "/api/order", 405},
		{"PROPFIND", "/api/order", 400}, {"BREW", "/no/such/path", 400},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, s.base+tt.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var body struct {
			Code       int
			Error, Msg string
		}
		if res.StatusCode != tt.want {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, res.StatusCode, tt.want)
		}
		if err := json.Unmarshal(raw, &body); err != nil || body.Code != res.StatusCode || body.Error == "" || body.Msg == "" {
			t.Errorf("%s %s: body %s is not the error shape", tt.method, tt.path, raw)
		}
		if res.StatusCode == 405 && res.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tt.method, tt.path)
		}
	}
}

// checkCrossMerchant: merchant b, with its own valid keys, can neither see
// nor move merchant a's order through any API (query, webhook log, resend,
// cancel, the sandbox drivers): each answers 404 as for an order that does
// not exist, so b learns nothing; a's appid with b's keys is 401. The
// order is untouched afterwards.
func checkCrossMerchant(t *testing.T, s *server, a, b account, hooks *hookReceiver) {
	p := createParams(a.AppID)
	p["notify_url"] = hooks.url
	r := s.create(t, p, a.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r.Status != 200 || id == "" {
		t.Fatalf("create: %+v", r)
	}
	webhooks := func(appid, key string) apiResponse {
		q := url.Values{"appid": {appid}, "key": {key}, "action": {"webhooks"}, "paymentId": {id}}
		req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
		return call(t, req)
	}
	cancel := func(appid, key string) apiResponse {
		return s.signedPost(t, "/api/order/cancel", schema.Params{"appid": appid, "action": "cancel", "paymentId": id}, key, "")
	}
	tests := []struct {
		name string
		do   func() apiResponse
		want int
	}{
		{"query", func() apiResponse { return s.order(t, b.AppID, b.QueryKey, id) }, 404},
		{"webhook log", func() apiResponse { return webhooks(b.AppID, b.QueryKey) }, 404},
		{"resend", func() apiResponse { return s.resend(t, b.AppID, b.APIKey, id) }, 404},
		{"cancel", func() apiResponse { return cancel(b.AppID, b.APIKey) }, 404},
		{"sandbox pay", func() apiResponse { return s.sandbox(t, b.AppID, b.QueryKey, id, "pay") }, 404},
		{"sandbox fail", func() apiResponse { return s.sandbox(t, b.AppID, b.QueryKey, id, "fail") }, 404},
		{"a's appid, b's query key", func() apiResponse { return s.order(t, a.AppID, b.QueryKey, id) }, 401},
		{"a's appid, b's query key, sandbox", func() apiResponse { return s.sandbox(t, a.AppID, b.QueryKey, id, "pay") }, 401},
		{"a's appid signed with b's key", func() apiResponse { return cancel(a.AppID, b.APIKey) }, 401},
	}
	for _, tt := range tests {
		if r := tt.do(); r.Status != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, r.Status, r.Raw, tt.want)
		}
	}
	if q := s.order(t, a.AppID, a.QueryKey, id); q.Data["status_str"] != "ready" {
		t.Fatalf("a's order after b's attempts: %+v", q)
	}
}

// checkBodyLimits: a create body over its 64 KiB bound and a body over the
// server's 1 MiB backstop are both refused with 413, not read into a
// handler. The first is read and answered by the handler; the second is
// refused from its Content-Length alone, before any of it is read, so it is
// sent as headers only on a connection of our own: the server answers and
// closes without unread bytes (which would turn its close into a reset and
// lose the answer). A transport error fails either.
func checkBodyLimits(t *testing.T, s *server) {
	body := `{"appid":"1","description":"` + strings.Repeat("x", 65<<10) + `"}`
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/createorder", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%d-byte create: %v", len(body), err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("%d-byte create: %d, want 413", len(body), res.StatusCode)
	}

	conn, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	const backstop = 2 << 20
	if _, err := fmt.Fprintf(conn, "POST /api/createorder HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", backstop); err != nil {
		t.Fatal(err)
	}
	res, err = http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%d-byte create: no answer: %v", backstop, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("%d-byte create: %d, want 413", backstop, res.StatusCode)
	}
}

// checkSlowClients: connections that send their headers, or their body, a
// byte at a time are closed by the server once the read bound (1s here)
// passes, and while they are held the server keeps answering others.
func checkSlowClients(t *testing.T, s *server) {
	host := strings.TrimPrefix(s.base, "http://")
	starts := map[string]string{
		"slow headers": "POST /api/createorder HTTP/1.1\r\nHost: gw\r\nX-Slow: ",
		"slow body":    "POST /api/createorder HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for _, start := range starts {
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- slowClient(host, start, 30*time.Second)
			}()
		}
	}
	time.Sleep(300 * time.Millisecond)
	if body := get(t, s.base+"/healthz"); body != "ok" {
		t.Errorf("healthz while slow clients are held: %q", body)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// slowClient sends start, then a byte every 100ms, until the server closes
// the connection (nil) or give passes (an error: the server held it).
func slowClient(host, start string, give time.Duration) error {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return err
	}
	defer c.Close()
	held := fmt.Errorf("a slow client (%q) was still connected after %v", start[:24], give)
	closed := make(chan error, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(give))
		_, err := io.Copy(io.Discard, bufio.NewReader(c))
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			closed <- held // our own deadline, not the server
			return
		}
		closed <- nil
	}()
	if _, err := io.WriteString(c, start); err != nil {
		return <-closed
	}
	for {
		select {
		case err := <-closed:
			return err
		case <-time.After(100 * time.Millisecond):
			if _, err := c.Write([]byte("a")); err != nil {
				return <-closed
			}
		}
	}
}

// checkDisabled: what disabling a merchant does to what is already under
// way (merchant.Account.Disabled says why): the merchant's own API is
// refused (create, query, resend, the sandbox driver: 403), but an order
// a payer already has in hand can still be paid at the provider, the
// provider's notification settles it, and its webhook is delivered.
func checkDisabled(t *testing.T, e *e2e, s *server, m account, hooks *hookReceiver) {
	p := createParams(m.AppID)
	p["paymentMethod"], p["currency"], p["notify_url"] = "cryptohost", "USD", hooks.url
	r := s.create(t, p, m.APIKey)
	id, _ := r.Data["paymentId"].(string)
	if r.Status != 200 || id == "" {
		t.Fatalf("create: %+v", r)
	}
	var show struct {
		Order struct{ ProviderURL, QRPayload string }
	}
	e.cli(&show, "order", "show", id, "--json")
	page := show.Order.ProviderURL
	if page == "" {
		page = show.Order.QRPayload
	}
	e.cli(nil, "merchant", "disable", m.AppID, "--json")
	testenv.Eventually(t, 3*time.Second, "condition", func() bool { return s.create(t, createParams(m.AppID), m.APIKey).Status == 403 })
	for name, r := range map[string]apiResponse{
		"query":       s.order(t, m.AppID, m.QueryKey, id),
		"sandbox pay": s.sandbox(t, m.AppID, m.QueryKey, id, "pay"),
		"resend":      s.resend(t, m.AppID, m.APIKey, id),
	} {
		if r.Status != 403 || r.Error != "merchant_disabled" {
			t.Errorf("%s by a disabled merchant: %d %s", name, r.Status, r.Raw)
		}
	}
	payOnPage(t, page, "pay")
	testenv.Eventually(t, 10*time.Second, "condition", func() bool { return hooks.got(id).Get("status") == "2" })
}
