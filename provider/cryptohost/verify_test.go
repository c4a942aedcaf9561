package cryptohost

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/providertest"
	"github.com/paygate/gateway/schema"
)

// newTestAdapter is an adapter whose webhook secret is secret; its API is
// never called.
func newTestAdapter(t testing.TB, secret string) *Adapter {
	t.Helper()
	cfg := Defaults()
	cfg.BaseURL, cfg.APIKey, cfg.WebhookSecret = "http://127.0.0.1:1", "k", secret
	a, err := New(cfg,
		providertest.Caller(t, Family, provider.CallerConfig{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// signed is a webhook request as the provider sends it.
func signed(secret, body string) *provider.Request {
	h := http.Header{}
	h.Set(DefaultSignatureHeader, Sign(secret, []byte(body)))
	return &provider.Request{Header: h, Body: []byte(body), Path: NotifyPath}
}

func TestVerifyVectors(t *testing.T) {
	f := loadVectors(t)
	a := newTestAdapter(t, f.Secret)
	for _, tc := range f.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			h := http.Header{}
			h.Set("X-Signature", tc.Signature)
			n, err := a.Verify(context.Background(), &provider.Request{Header: h, Body: []byte(tc.Body), Path: NotifyPath})
			if !tc.Valid {
				if !errors.Is(err, provider.ErrSignature) {
					t.Fatalf("invalid case: err %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := provider.Money{Amount: 100_00, Currency: "USD"}
			if n.Outcome != provider.OutcomePaid || n.Paid != want || n.Ref != "66BEOV2A" ||
				n.OrderID != "P20261123101500789ab12cd34ef56ab78cd90" {
				t.Fatalf("got %+v", n)
			}
		})
	}
}

// event is a webhook body of type kind on a 100.00 USD charge, with the
// given payments and timeline JSON.
func event(kind, payments, timeline string) string {
	return `{"id":"w1","event":{"id":"e1","type":"` + kind + `","data":{"code":"ABC123","metadata":{"order_id":"P1"},` +
		`"pricing":{"local":{"amount":"100.00","currency":"USD"}},"payments":[` + payments + `],"timeline":[` + timeline + `]}}}`
}

func pay(amount, status string) string {
	return `{"status":"` + status + `","value":{"local":{"amount":"` + amount + `","currency":"USD"},"crypto":{"amount":"1","currency":"USDC"}}}`
}

// payIn is a payment whose local value is in currency cur.
func payIn(amount, cur, status string) string {
	return strings.Replace(pay(amount, status), `"currency":"USD"`, `"currency":"`+cur+`"`, 1)
}

func TestVerifyEvents(t *testing.T) {
	const secret = "s3cret"
	a := newTestAdapter(t, secret)
	usd := func(a schema.Amount) provider.Money { return provider.Money{Amount: a, Currency: "USD"} }
	tests := []struct {
		name    string
		body    string
		outcome provider.Outcome
		paid    provider.Money
		field   string // a field that must be set
	}{
		{"created is pending", event("charge:created", "", `{"status":"NEW"}`), provider.OutcomePending, provider.Money{}, ""},
		{"pending is pending", event("charge:pending", pay("100.00", "PENDING"), ""), provider.OutcomePending, provider.Money{}, ""},
		{"delayed is pending", event("charge:delayed", pay("100.00", "CONFIRMED"), ""), provider.OutcomePending, provider.Money{}, ""},
		{"unknown event is pending", event("charge:whatever", "", ""), provider.OutcomePending, provider.Money{}, ""},
		{"confirmed without payments pays the price", event("charge:confirmed", "", ""), provider.OutcomePaid, usd(100_00), ""},
		{"confirmed in full", event("charge:confirmed", pay("100.00", "CONFIRMED"), ""), provider.OutcomePaid, usd(100_00), "received_local"},
		{"confirmed in two payments", event("charge:confirmed", pay("60.00", "CONFIRMED")+","+pay("40.00", "CONFIRMED"), ""), provider.OutcomePaid, usd(100_00), ""},
		{"confirmed but underpaid is partial", event("charge:confirmed", pay("99.995", "CONFIRMED"), ""), provider.OutcomePartial, usd(99_99), ""},
		{"a failed payment does not count", event("charge:confirmed", pay("100.00", "FAILED")+","+pay("50.00", "CONFIRMED"), ""), provider.OutcomePartial, usd(50_00), ""},
		{"overpaid still pays the price", event("charge:confirmed", pay("120.50", "CONFIRMED"), ""), provider.OutcomePaid, usd(100_00), "overpaid"},
		{"resolved pays like confirmed", event("charge:resolved", pay("100.00", "CONFIRMED"), ""), provider.OutcomePaid, usd(100_00), ""},
		{"failed", event("charge:failed", "", `{"status":"NEW"},{"status":"FAILED"}`), provider.OutcomeFailed, provider.Money{}, ""},
		{"failed by expiry is expired", event("charge:failed", "", `{"status":"NEW"},{"status":"EXPIRED"}`), provider.OutcomeExpired, provider.Money{}, ""},
		{"failed with some money is partial", event("charge:failed", pay("30.00", "CONFIRMED"), `{"status":"EXPIRED"}`), provider.OutcomePartial, usd(30_00), ""},
		// A security review finding: a confirmed charge paid in another
		// currency than its price is not paid in the price; Paid says what
		// came, so the order sees a currency mismatch.
		{"confirmed paid in another currency is that money", event("charge:confirmed", payIn("100.00", "EUR", "CONFIRMED"), ""), provider.OutcomePaid, provider.Money{Amount: 100_00, Currency: "EUR"}, "received_other"},
		{"confirmed paid in two other currencies", event("charge:confirmed", payIn("60.00", "EUR", "CONFIRMED")+","+payIn("40.00", "GBP", "CONFIRMED"), ""), provider.OutcomePaid, provider.Money{Amount: 60_00, Currency: "EUR"}, "received_other"},
		{"confirmed paid with no currency", event("charge:confirmed", payIn("100.00", "", "CONFIRMED"), ""), provider.OutcomePaid, provider.Money{Amount: 100_00, Currency: ""}, "received_other"},
		{"only the price's currency counts", event("charge:confirmed", pay("50.00", "CONFIRMED")+","+payIn("50.00", "EUR", "CONFIRMED"), ""), provider.OutcomePartial, usd(50_00), "received_other"},
		{"in full in the price's currency, more in another", event("charge:confirmed", pay("100.00", "CONFIRMED")+","+payIn("5.00", "EUR", "CONFIRMED"), ""), provider.OutcomePaid, usd(100_00), "received_other"},
		{"failed with money in another currency is partial", event("charge:failed", payIn("30.00", "EUR", "CONFIRMED"), `{"status":"EXPIRED"}`), provider.OutcomePartial, provider.Money{Amount: 30_00, Currency: "EUR"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := a.Verify(context.Background(), signed(secret, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if n.Outcome != tt.outcome || n.Paid != tt.paid || n.OrderID != "P1" || n.Ref != "ABC123" || n.InitRef != "ABC123" {
				t.Fatalf("got %v %+v %q %q, want %v %+v", n.Outcome, n.Paid, n.OrderID, n.Ref, tt.outcome, tt.paid)
			}
			if tt.field != "" && n.Fields[tt.field] == "" {
				t.Fatalf("field %s not kept: %v", tt.field, n.Fields)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	const secret = "s3cret"
	a := newTestAdapter(t, secret)
	good := event("charge:confirmed", "", "")
	wrongPath := signed(secret, good)
	wrongPath.Path = "notify"
	tests := []struct {
		name string
		req  *provider.Request
		want error
	}{
		{"no signature", &provider.Request{Header: http.Header{}, Body: []byte(good), Path: NotifyPath}, provider.ErrSignature},
		{"signed with another secret", signed("other", good), provider.ErrSignature},
		{"not JSON", signed(secret, "confirmed"), provider.ErrMalformed},
		{"no order id", signed(secret, strings.Replace(good, `"order_id":"P1"`, `"order_id":""`, 1)), provider.ErrMalformed},
		{"no charge code", signed(secret, strings.Replace(good, `"code":"ABC123"`, `"code":""`, 1)), provider.ErrMalformed},
		{"no event type", signed(secret, strings.Replace(good, `"charge:confirmed"`, `""`, 1)), provider.ErrMalformed},
		{"price with three decimals", signed(secret, strings.Replace(good, `"100.00"`, `"100.001"`, 1)), provider.ErrMalformed},
		{"price as float exponent junk", signed(secret, strings.Replace(good, `"100.00"`, `"1e999"`, 1)), provider.ErrMalformed},
		{"price without currency", signed(secret, strings.Replace(good, `"currency":"USD"`, `"currency":""`, 1)), provider.ErrMalformed},
		{"over the size bound", signed(secret, good+strings.Repeat(" ", MaxNotifyBody)), provider.ErrMalformed},
		{"another path", wrongPath, provider.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.Verify(context.Background(), tt.req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
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
	err := Config{BaseURL: "ftp:/x"}.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"base URL", "API key", "webhook secret"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not listed in %v", want, err)
		}
	}
	if err := SandboxConfig("http://localhost:8080/sandbox/provider/cryptohost").Validate(); err != nil {
		t.Fatal(err)
	}
}
