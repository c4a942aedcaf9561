package walletb_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	walletb "github.com/paygate/gateway/provider/walletb"
	"github.com/paygate/gateway/web/sandbox/sandboxtest"
	walletbsim "github.com/paygate/gateway/web/sandbox/walletb"

	"github.com/paygate/gateway/internal/config"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// received is one notification as the receiver verified it.
type received struct {
	n      provider.Notification
	err    error
	header http.Header
	body   []byte
}

// harness is a gateway in miniature over real HTTP: the simulator mounted
// where the gateway mounts it, and a receiver that verifies notifications
// with the sandbox adapter and answers its Reply.
type harness struct {
	base    string
	sim     *walletbsim.Simulator
	adapter *walletb.Adapter
	got     *providertest.Inbox[received]
}

const simPrefix = "/sandbox/provider/wallet_b"

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := providertest.Listen(t)
	h := &harness{base: srv.Base, got: providertest.NewInbox[received]()}
	notifier := &provider.Notifier{Delays: []time.Duration{}, Log: providertest.QuietLog()}
	h.sim = walletbsim.NewSimulator(walletbsim.SandboxSimConfig(h.base+simPrefix).WithCost(simkit.FixedCost(providertest.StatementSchedule)), &provider.MemState{}, notifier, providertest.QuietLog())
	h.adapter = newAdapter(t, walletb.SandboxConfig(h.base+simPrefix))
	app := sandboxtest.App()
	h.sim.Register(app.Group(simPrefix))
	app.Post("/api/gatewaynotification/wallet_b/notify", sandboxtest.Handle(h.receive))
	srv.Serve(app)
	return h
}

func (h *harness) receive(ctx context.Context, d sandboxtest.Delivery) provider.Reply {
	req := &provider.Request{Header: d.Header, Body: d.Body, Path: "notify"}
	n, err := h.adapter.Verify(ctx, req)
	h.got.Put(received{n: n, err: err, header: req.Header, body: req.Body})
	return h.adapter.Reply(n, err)
}

func (h *harness) payment(orderID string, amount schema.Amount, currency string) provider.Payment {
	return provider.Payment{
		OrderID: orderID, Method: schema.MethodWalletB, Charge: provider.Money{Amount: amount, Currency: currency},
		Description: "Order 42", NotifyURL: h.base + "/api/gatewaynotification/wallet_b/notify",
		ExpiresAt: time.Now().Add(30 * time.Minute),
	}
}

func settle(t *testing.T, h *harness, ref string, paid bool) {
	t.Helper()
	if err := h.sim.Settle(t.Context(), ref, paid); err != nil {
		t.Fatal(err)
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
			if init.Ref != p.OrderID || !strings.HasPrefix(init.QRPayload, h.base+simPrefix+"/qr/") {
				t.Fatalf("init = %+v", init)
			}
			q, err := h.adapter.Query(t.Context(), p.OrderID, init.Ref)
			if err != nil || q.Outcome != provider.OutcomePending {
				t.Fatalf("Query before paying = %+v, %v", q, err)
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
				checkPaid(t, r.n, p.OrderID, 12345, tt.currency)
			}
			q, err = h.adapter.Query(t.Context(), p.OrderID, init.Ref)
			if err != nil || q.Outcome != tt.want || q.Ref != r.n.Ref || q.Paid != r.n.Paid {
				t.Fatalf("Query = %+v, %v; notification said %+v", q, err, r.n)
			}
		})
	}
}

func TestInitialiseAgainAndUnknown(t *testing.T) {
	h := newHarness(t)
	p := h.payment("P-again", 500, "CNY")
	first, err := h.adapter.Initialise(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.adapter.Initialise(t.Context(), p)
	if err != nil || again != first {
		t.Fatalf("second native = %+v, %v; first %+v", again, err, first)
	}
	p.Charge.Amount = 600
	if _, err := h.adapter.Initialise(t.Context(), p); !errors.Is(err, provider.ErrRefused) {
		t.Fatalf("native with another amount = %v, want ErrRefused", err)
	}
	if _, err := h.adapter.Query(t.Context(), "P-unknown", ""); !errors.Is(err, provider.ErrNotFound) {
		t.Fatalf("Query unknown = %v, want ErrNotFound", err)
	}
}

// TestNotificationRefusals takes a real notification off the wire and
// changes it the ways an attacker (or time) would.
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
	later := walletb.SandboxConfig(h.base + simPrefix)
	later.Now = func() time.Time { return time.Now().Add(10 * time.Minute) }
	tests := []struct {
		name    string
		adapter *walletb.Adapter
		change  func(t *testing.T, hd http.Header, body []byte) []byte
		want    error
	}{
		{"replayed as is", h.adapter, nil, nil},
		{"forged signature", h.adapter, func(_ *testing.T, hd http.Header, b []byte) []byte {
			hd.Set("Signature", strings.Repeat("A", 344))
			return b
		}, provider.ErrSignature},
		{"tampered amount, sealed again", h.adapter, resealAmount, provider.ErrSignature},
		{"other serial", h.adapter, func(_ *testing.T, hd http.Header, b []byte) []byte {
			hd.Set("Serial", "0000")
			return b
		}, provider.ErrSignature},
		{"replayed ten minutes later", newAdapter(t, later), nil, provider.ErrSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hd, body := orig.header.Clone(), bytes.Clone(orig.body)
			if tt.change != nil {
				body = tt.change(t, hd, body)
			}
			n, err := tt.adapter.Verify(t.Context(), &provider.Request{Header: hd, Body: body})
			if tt.want == nil {
				if err != nil || !reflect.DeepEqual(n, orig.n) {
					t.Fatalf("replay = %+v, %v; first %+v", n, err, orig.n)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if rep := tt.adapter.Reply(n, err); rep.Status < 400 || rep.Status >= 500 {
				t.Fatalf("refused notification answered %+v", rep)
			}
		})
	}
	big := &provider.Request{Header: orig.header, Body: make([]byte, walletb.MaxNotifyBody+1)}
	if _, err := h.adapter.Verify(t.Context(), big); !errors.Is(err, provider.ErrMalformed) {
		t.Fatalf("oversized body: %v", err)
	}
}

// resealAmount decrypts the resource, lowers the amount and seals it again
// with the API v3 key, keeping the old signature: what an attacker holding
// the API v3 key but not the platform key could send.
func resealAmount(t *testing.T, _ http.Header, body []byte) []byte {
	t.Helper()
	var ev walletb.Event
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	plain, err := ev.Resource.Decrypt([]byte(walletb.SandboxAPIv3Key))
	if err != nil {
		t.Fatal(err)
	}
	var tx walletb.Transaction
	if err := json.Unmarshal(plain, &tx); err != nil {
		t.Fatal(err)
	}
	tx.Amount.Total = 1
	plain, _ = json.Marshal(tx)
	if ev.Resource, err = walletb.Seal([]byte(walletb.SandboxAPIv3Key), plain, "transaction"); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(ev)
	return out
}

// TestSimulatorChecksOurSignature: calls signed with a key the simulator
// does not know, for another merchant or serial, or at a time far from the
// provider's are refused (401, signed; ErrRefused). A clock that far off
// also fails our own replay window on the answer (ErrSignature).
func TestSimulatorChecksOurSignature(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name   string
		change func(*walletb.Config)
		want   error
	}{
		{"other merchant key", func(c *walletb.Config) { c.MerchantPrivateKeyPEM = freshKeyPEM(t) }, provider.ErrRefused},
		{"other merchant id", func(c *walletb.Config) { c.MerchantID = "1900000999" }, provider.ErrRefused},
		{"other certificate serial", func(c *walletb.Config) { c.MerchantSerial = "00AA" }, provider.ErrRefused},
		{"clock off by ten minutes", func(c *walletb.Config) { c.Now = func() time.Time { return time.Now().Add(-10 * time.Minute) } }, provider.ErrSignature},
		{"clock off, wide window", func(c *walletb.Config) {
			c.Now = func() time.Time { return time.Now().Add(-10 * time.Minute) }
			c.MaxSkew = config.Duration(time.Hour)
		}, provider.ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := walletb.SandboxConfig(h.base + simPrefix)
			tt.change(&cfg)
			_, err := newAdapter(t, cfg).Initialise(t.Context(), h.payment("P-forged", 100, "CNY"))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Initialise = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestAnswerSignatureChecked: an answer not signed with the platform key is
// not believed.
func TestAnswerSignatureChecked(t *testing.T) {
	h := newHarness(t)
	cfg := walletb.SandboxConfig(h.base + simPrefix)
	cfg.PlatformPublicKeyPEM = walletb.SandboxMerchantPublicPEM
	if _, err := newAdapter(t, cfg).Initialise(t.Context(), h.payment("P-answer", 100, "CNY")); !errors.Is(err, provider.ErrSignature) {
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
