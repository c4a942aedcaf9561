package walleta_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	walleta "github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"
	walletasim "github.com/paygate/gateway/web/sandbox/walleta"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// received is one notification as the receiver verified it.
type received struct {
	n    provider.Notification
	err  error
	body []byte
}

// harness is a gateway in miniature over real HTTP: the simulator mounted
// where the gateway mounts it, and a receiver that verifies notifications
// with the sandbox adapter and answers its Reply.
type harness struct {
	base    string
	sim     *walletasim.Simulator
	adapter *walleta.Adapter
	got     *providertest.Inbox[received]
}

func newHarness(t *testing.T) *harness { t.Helper(); return newHarnessWith(t, nil) }

// newHarnessWith is newHarness with the simulator's configuration changed
// by change (nil: none).
func newHarnessWith(t *testing.T, change func(*walletasim.SimConfig)) *harness {
	t.Helper()
	srv := providertest.Listen(t)
	h := &harness{base: srv.Base, got: providertest.NewInbox[received]()}
	simBase := h.base + "/sandbox/provider/wallet_a"
	notifier := &provider.Notifier{Delays: []time.Duration{}, Log: providertest.QuietLog()}
	simCfg := walletasim.SandboxSimConfig(simBase).WithCost(simkit.FixedCost(providertest.StatementSchedule))
	if change != nil {
		change(&simCfg)
	}
	h.sim = walletasim.NewSimulator(simCfg, &provider.MemState{}, notifier, providertest.QuietLog())
	h.adapter = newAdapter(t, walleta.SandboxConfig(simBase))
	app := sandboxtest.App()
	h.sim.Register(app.Group("/sandbox/provider/wallet_a"))
	app.Post("/api/gatewaynotification/wallet_a/notify", sandboxtest.Handle(h.receive))
	srv.Serve(app)
	return h
}

func (h *harness) receive(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
	form, _ := url.ParseQuery(string(d.Body))
	n, err := h.adapter.Verify(ctx, &provider.Request{Body: d.Body, Form: form, Path: "notify"})
	h.got.Put(received{n: n, err: err, body: d.Body})
	return h.adapter.Reply(n, err)
}

func (h *harness) payment(orderID string, amount schema.Amount, currency string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.MethodWalletA, Charge: provider.Money{Amount: amount, Currency: currency},
		Description: "Order 42 & more", NotifyURL: h.base + "/api/gatewaynotification/wallet_a/notify",
		ExpiresAt: time.Now().Add(30 * time.Minute),
	}
}

func TestEndToEnd(t *testing.T) {
	tests := []struct {
		name     string
		currency string
		settle   func(t *testing.T, h *harness, init provider.Init)
		want     provider.Outcome
	}{
		{"page pays", "CNY", func(t *testing.T, _ *harness, in provider.Init) { providertest.Choose(t, in.QRPayload, "pay") }, provider.OutcomePaid},
		{"page fails", "CNY", func(t *testing.T, _ *harness, in provider.Init) { providertest.Choose(t, in.QRPayload, "fail") }, provider.OutcomeFailed},
		{"settle pays", "CNY", func(t *testing.T, h *harness, in provider.Init) { settle(t, h, in.Ref, true) }, provider.OutcomePaid},
		{"settle fails", "CNY", func(t *testing.T, h *harness, in provider.Init) { settle(t, h, in.Ref, false) }, provider.OutcomeFailed},
		{"usd charge pays", "USD", func(t *testing.T, _ *harness, in provider.Init) { providertest.Choose(t, in.QRPayload, "pay") }, provider.OutcomePaid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			p := h.payment("P-"+strings.ReplaceAll(tt.name, " ", "-"), 12345, tt.currency)
			init, err := h.adapter.Initialise(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			if init.Ref != p.OrderID || !strings.HasPrefix(init.QRPayload, h.base+"/sandbox/provider/wallet_a/qr/") {
				t.Fatalf("init = %+v", init)
			}
			tt.settle(t, h, init)
			r := h.got.Next(t)
			if r.err != nil {
				t.Fatalf("Verify: %v", r.err)
			}
			if r.n.Outcome != tt.want || r.n.OrderID != p.OrderID || r.n.Ref == "" {
				t.Fatalf("notification = %+v", r.n)
			}
			if tt.want == provider.OutcomePaid {
				checkPaid(t, r.n, p.OrderID, "123.45", tt.currency)
			}
			q, err := h.adapter.Query(t.Context(), p.OrderID, init.Ref)
			if err != nil || q.Outcome != tt.want || q.Ref != r.n.Ref || q.Paid != r.n.Paid {
				t.Fatalf("Query = %+v, %v; notification said %+v", q, err, r.n)
			}
		})
	}
}

func settle(t *testing.T, h *harness, ref string, paid bool) {
	t.Helper()
	if err := h.sim.Settle(t.Context(), ref, paid); err != nil {
		t.Fatal(err)
	}
}

// TestNotificationRefusals takes a real notification off the wire and
// changes it the ways an attacker would.
func TestNotificationRefusals(t *testing.T) {
	h := newHarness(t)
	p := h.payment("P-refusals", 12345, "CNY")
	init, err := h.adapter.Initialise(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	settle(t, h, init.Ref, true)
	orig := h.got.Next(t)
	if orig.err != nil {
		t.Fatal(orig.err)
	}
	tests := []struct {
		name   string
		change func(url.Values)
		want   error
	}{
		{"replayed as is", func(url.Values) {}, nil},
		{"forged signature", func(f url.Values) { f.Set("sign", strings.Repeat("A", 344)) }, provider.ErrSignature},
		{"no signature", func(f url.Values) { f.Del("sign") }, provider.ErrSignature},
		{"tampered amount", func(f url.Values) { f.Set("total_amount", "1.00") }, provider.ErrSignature},
		{"other order", func(f url.Values) { f.Set("out_trade_no", "P-other") }, provider.ErrSignature},
		{"weaker sign_type", func(f url.Values) { f.Set("sign_type", "RSA") }, provider.ErrSignature},
		{"field twice", func(f url.Values) { f.Add("trade_status", "TRADE_SUCCESS") }, provider.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, err := url.ParseQuery(string(orig.body))
			if err != nil {
				t.Fatal(err)
			}
			tt.change(form)
			n, err := h.adapter.Verify(t.Context(), &provider.Request{Form: form, Body: []byte(form.Encode())})
			if tt.want == nil {
				if err != nil || !reflect.DeepEqual(n, orig.n) {
					t.Fatalf("replay = %+v, %v; first %+v", n, err, orig.n)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if rep := h.adapter.Reply(n, err); rep.Body == "success" {
				t.Fatal("a refused notification was answered success")
			}
		})
	}
	big := &provider.Request{Body: make([]byte, walleta.MaxNotifyBody+1)}
	if _, err := h.adapter.Verify(t.Context(), big); !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("oversized body: %v", err)
	}
}

// TestQueryBeforeScan: the provider knows no trade until the payer scans.
func TestQueryBeforeScan(t *testing.T) {
	h := newHarness(t)
	p := h.payment("P-scan", 500, "CNY")
	init, err := h.adapter.Initialise(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.adapter.Query(t.Context(), p.OrderID, init.Ref); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("Query before scan = %v, want ErrNotFound", err)
	}
	res, err := http.Get(init.QRPayload)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	q, err := h.adapter.Query(t.Context(), p.OrderID, init.Ref)
	if err != nil || q.Outcome != provider.OutcomePending {
		t.Fatalf("Query after scan = %+v, %v", q, err)
	}
	again, err := h.adapter.Initialise(t.Context(), p)
	if err != nil || again != init {
		t.Fatalf("second precreate = %+v, %v; first %+v", again, err, init)
	}
	p.Charge.Amount = 600
	if _, err := h.adapter.Initialise(t.Context(), p); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("precreate with another amount = %v, want ErrRefused", err)
	}
}

// TestSimulatorChecksOurSignature: calls signed with a key the simulator
// does not know, or for another app, are refused.
func TestSimulatorChecksOurSignature(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name   string
		change func(*walleta.Config)
	}{
		{"other app key", func(c *walleta.Config) { c.AppPrivateKeyPEM = freshKeyPEM(t) }},
		{"other app id", func(c *walleta.Config) { c.AppID = "2000000000000999" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := walleta.SandboxConfig(h.base + "/sandbox/provider/wallet_a")
			tt.change(&cfg)
			a := newAdapter(t, cfg)
			if _, err := a.Initialise(t.Context(), h.payment("P-forged", 100, "CNY")); !errors.Is(err, provider.ErrRefused) {
				t.Fatalf("Initialise = %v, want ErrRefused", err)
			}
		})
	}
}

// TestAnswerSignatureChecked: an answer not signed by the provider's key is
// not believed.
func TestAnswerSignatureChecked(t *testing.T) {
	h := newHarness(t)
	cfg := walleta.SandboxConfig(h.base + "/sandbox/provider/wallet_a")
	cfg.ProviderPublicKeyPEM = walleta.SandboxAppPublicPEM
	a := newAdapter(t, cfg)
	if _, err := a.Initialise(t.Context(), h.payment("P-answer", 100, "CNY")); !errors.Is(err, provider.ErrSignature) {
		t.Fatalf("Initialise = %v, want ErrSignature", err)
	}
}

func freshKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// TestProviderTrouble: a provider that fails, hangs or answers too much is
// ErrUnavailable, within the time-out.
func TestProviderTrouble(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc // nil: hang
	}{
		{"answers 500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }},
		{"hangs", nil},
		{"answer over MaxBody", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(make([]byte, 4096)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			handler := tt.handler
			if handler == nil { // hangs until the case ends
				handler = func(http.ResponseWriter, *http.Request) { <-release }
			}
			srv := httptest.NewServer(handler)
			defer srv.Close()
			defer close(release)
			cfg := walleta.SandboxConfig(srv.URL)
			cfg.Caller = provider.CallerConfig{Timeout: 200 * time.Millisecond, MaxBody: 1024}
			a := newAdapter(t, cfg)
			p := provider.Payment{OrderID: "P-trouble", Charge: provider.Money{Amount: 100, Currency: "CNY"}}
			start := time.Now()
			_, err := a.Initialise(t.Context(), p)
			if !errors.Is(err, provider.ErrUnavailable) {
				t.Fatalf("Initialise = %v, want ErrUnavailable", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	err := walleta.Config{BaseURL: "ftp://x"}.Validate()
	if err == nil {
		t.Fatal("empty config validated")
	}
	for _, want := range []string{"base URL", "app id", "app private key", "provider public key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not in %v", want, err)
		}
	}
	if err := walleta.SandboxConfig("http://sim.example").Validate(); err != nil {
		t.Fatalf("sandbox config: %v", err)
	}
}

func TestReply(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"accepted", nil, 200, "success"},
		{"forged", provider.ErrSignature, 400, "fail"},
		{"malformed", provider.ErrMalformed, 400, "fail"},
		{"our trouble", errors.New("store down"), 500, "fail"},
	}
	a := newAdapter(t, walleta.SandboxConfig("http://sim.example"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.Reply(provider.Notification{}, tt.err)
			if r.Status != tt.status || r.Body != tt.body {
				t.Fatalf("Reply = %+v", r)
			}
		})
	}
}

// TestSimulatorTakesCommonParametersInQuery: the provider's SDKs send the
// common parameters in the query string and biz_content in the body; the
// simulator answers such a call as the real gateway does, and refuses a
// parameter given twice with two values.
func TestSimulatorTakesCommonParametersInQuery(t *testing.T) {
	h := newHarness(t)
	biz := walleta.PrecreateBiz{OutTradeNo: "P-query", TotalAmount: "1.00", Subject: "s"}
	tests := []struct {
		name     string
		split    func(all url.Values) (query, body url.Values)
		wantCode string
	}{
		{"common in query", func(all url.Values) (url.Values, url.Values) {
			body := url.Values{"biz_content": all["biz_content"]}
			all.Del("biz_content")
			return all, body
		}, walleta.CodeSuccess},
		{"all in body", func(all url.Values) (url.Values, url.Values) { return url.Values{}, all }, walleta.CodeSuccess},
		{"sign twice, differing", func(all url.Values) (url.Values, url.Values) {
			query := url.Values{"sign": all["sign"]}
			all.Set("sign", "AAAA")
			return query, all
		}, "40002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := h.adapter.SignedForm("trade.precreate", biz, "")
			if err != nil {
				t.Fatal(err)
			}
			all, _ := url.ParseQuery(signed)
			query, body := tt.split(all)
			res, err := http.Post(h.base+"/sandbox/provider/wallet_a/gateway?"+query.Encode(),
				"application/x-www-form-urlencoded;charset=utf-8", strings.NewReader(body.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var env map[string]json.RawMessage
			if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
				t.Fatal(err)
			}
			var node struct {
				Code string `json:"code"`
			}
			raw, ok := env["trade_precreate_response"]
			if !ok {
				raw = env["error_response"]
			}
			if err := json.Unmarshal(raw, &node); err != nil || node.Code != tt.wantCode {
				t.Fatalf("code %q, want %q (%s)", node.Code, tt.wantCode, raw)
			}
		})
	}
}
