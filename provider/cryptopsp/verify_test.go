package cryptopsp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
)

// newTestAdapter is an adapter whose IPN secret is secret; its API is never
// called.
func newTestAdapter(t testing.TB, secret string) *Adapter {
	t.Helper()
	cfg := Defaults()
	cfg.BaseURL, cfg.APIKey, cfg.IPNSecret = "http://127.0.0.1:1", "k", secret
	a, err := New(cfg,
		providertest.Caller(t, Family, provider.CallerConfig{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// signedIPN is an IPN as the provider sends it: body as given, signature
// over its canonical form.
func signedIPN(t *testing.T, secret, body string) *provider.Request {
	t.Helper()
	form, err := Canonical([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(DefaultSignatureHeader, Sign(secret, form))
	return &provider.Request{Header: h, Body: []byte(body), Path: NotifyPath}
}

func ipn(status, price string) string {
	return `{"payment_id": 42, "payment_status": "` + status + `", "price_amount": ` + price +
		`, "price_currency": "eur", "pay_amount": 0.0017, "actually_paid": 0.0017, "pay_currency": "btc", "order_id": "P1", "fee": {"serviceFee": 1e-05}}`
}

func TestVerifyStatuses(t *testing.T) {
	const secret = "ipn"
	a := newTestAdapter(t, secret)
	tests := []struct {
		status string
		want   provider.Outcome
	}{
		{"waiting", provider.OutcomePending},
		{"confirming", provider.OutcomePending},
		{"confirmed", provider.OutcomePending},
		{"sending", provider.OutcomePending},
		{"partially_paid", provider.OutcomePartial},
		{"finished", provider.OutcomePaid},
		{"failed", provider.OutcomeFailed},
		{"expired", provider.OutcomeExpired},
		{"refunded", provider.OutcomeRefunded},
		{"something_new", provider.OutcomePending},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			n, err := a.Verify(context.Background(), signedIPN(t, secret, ipn(tt.status, "12.5")))
			if err != nil {
				t.Fatal(err)
			}
			if n.Outcome != tt.want || n.OrderID != "P1" || n.Ref != "42" {
				t.Fatalf("got %+v", n)
			}
			wantPaid := provider.Money{}
			if tt.want == provider.OutcomePaid {
				wantPaid = provider.Money{Amount: 12_50, Currency: "EUR"}
			}
			if n.Paid != wantPaid {
				t.Fatalf("paid %+v, want %+v", n.Paid, wantPaid)
			}
			if n.Fields["payment_status"] != tt.status || n.Fields["fee.serviceFee"] != "1e-05" {
				t.Fatalf("fields %v", n.Fields)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	const secret = "ipn"
	a := newTestAdapter(t, secret)
	good := ipn("finished", "100")
	unsigned := &provider.Request{Header: http.Header{}, Body: []byte(good), Path: NotifyPath}
	otherPath := signedIPN(t, secret, good)
	otherPath.Path = "webhook"
	tests := []struct {
		name string
		req  *provider.Request
		want error
	}{
		{"no signature", unsigned, provider.ErrSignature},
		{"signed with another secret", signedIPN(t, "other", good), provider.ErrSignature},
		{"not JSON", signedIPNRaw("finished"), provider.ErrMalformed},
		{"duplicate key", signedIPNRaw(`{"payment_status":"failed","payment_status":"finished"}`), provider.ErrMalformed},
		{"no order id", signedIPN(t, secret, strings.Replace(good, `"order_id": "P1"`, `"order_id": ""`, 1)), provider.ErrMalformed},
		{"no payment id", signedIPN(t, secret, strings.Replace(good, `"payment_id": 42`, `"payment_id": null`, 1)), provider.ErrMalformed},
		{"finished with three decimals", signedIPN(t, secret, ipn("finished", "100.001")), provider.ErrMalformed},
		{"finished without a price", signedIPN(t, secret, strings.Replace(good, `"price_amount": 100, `, ``, 1)), provider.ErrMalformed},
		{"finished in no currency", signedIPN(t, secret, strings.Replace(good, `"eur"`, `"euro"`, 1)), provider.ErrMalformed},
		{"over the size bound", signedIPN(t, secret, good+strings.Repeat(" ", MaxNotifyBody)), provider.ErrMalformed},
		{"another path", otherPath, provider.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Verify(context.Background(), tt.req); !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
}

// signedIPNRaw is a body that has no canonical form, with some signature.
func signedIPNRaw(body string) *provider.Request {
	h := http.Header{}
	h.Set(DefaultSignatureHeader, Sign("ipn", []byte(body)))
	return &provider.Request{Header: h, Body: []byte(body), Path: NotifyPath}
}

func TestReply(t *testing.T) {
	a := newTestAdapter(t, "s")
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"accepted", nil, http.StatusOK},
		{"forged", provider.ErrSignature, http.StatusUnauthorized},
		{"malformed", provider.ErrMalformed, http.StatusBadRequest},
		{"our trouble", errors.New("store down"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.Reply(provider.Notification{}, tt.err).Status; got != tt.want {
				t.Fatalf("status %d, want %d", got, tt.want)
			}
		})
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	err := Config{BaseURL: "nowhere", OutcomeCurrency: "BTC!"}.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"base URL", "API key", "IPN secret", "outcome currency"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not listed in %v", want, err)
		}
	}
	if err := SandboxConfig("http://localhost:8080/sandbox/provider/cryptopsp").Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestInitialiseAsksForTheCurrencyFirst(t *testing.T) {
	a := newTestAdapter(t, "s")
	in, err := a.Initialise(context.Background(), provider.Payment{OrderID: "P1", Charge: provider.Money{Amount: 100, Currency: "USD"}})
	if err != nil || in.NextAction != "cryptopsp_select" || in.ProviderURL != "" || in.Ref != "" {
		t.Fatalf("init %+v %v", in, err)
	}
}

// TestVerifyNamesTheInvoice: a payment made on an invoice names it, and the
// command side matches it against the invoice Initialise created for the
// order; one that names none leaves the match to the order id.
func TestVerifyNamesTheInvoice(t *testing.T) {
	const secret = "s3cret"
	a := newTestAdapter(t, secret)
	for _, tt := range []struct{ name, body, want string }{
		{"on an invoice", strings.Replace(ipn("finished", "12.5"), `"order_id"`, `"invoice_id": 5077125, "order_id"`, 1), "5077125"},
		{"no invoice named", ipn("finished", "12.5"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := a.Verify(context.Background(), signedIPN(t, secret, tt.body))
			if err != nil || n.InitRef != tt.want {
				t.Fatalf("InitRef %q, %v; want %q", n.InitRef, err, tt.want)
			}
		})
	}
}
