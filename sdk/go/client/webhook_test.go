package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	hookKey = "k3y_5ecret"
	// Secrets as the gateway makes them: whsec_ and base64 of random bytes.
	hookSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	hookOldSecret = "whsec_c2VjcmV0LW9mLXRoZS1vbGQtZGF5cy0xMjM0"
	hookID        = "evt_paid_0a1b2c3d4e5f6a7b8c9d"
)

var hookAt = time.Unix(1767323105, 0)

// paidForm is a paid webhook's body signed with hookKey, as the gateway
// sends it.
func paidForm(edit func(url.Values)) url.Values {
	f := url.Values{"paymentId": {"0a1b2c3d4e5f6a7b8c9d"}, "amount": {"100.50"}, "currency": {"CNY"},
		"status": {"2"}, "status_str": {"paid"}, "paymentMethod": {"wallet_a"},
		"createdAt": {"2026-01-02T03:04:05Z"}, "completedTime": {"2026-01-02T03:05:00Z"}, "clientOrderId": {"SHOP-42"}}
	flat := map[string]string{}
	for n := range f {
		flat[n] = f.Get(n)
	}
	f.Set("sign", Sign(flat, hookKey))
	f.Set("sign_type", "MD5")
	if edit != nil {
		edit(f)
	}
	return f
}

// signHeaders signs body as the gateway does, one v1 entry per secret.
func signHeaders(t *testing.T, h http.Header, id string, at time.Time, body string, secrets ...string) {
	t.Helper()
	ts := strconv.FormatInt(at.Unix(), 10)
	var sigs []string
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			t.Fatal(err)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "." + body))
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	h.Set(HeaderWebhookID, id)
	h.Set(HeaderWebhookTimestamp, ts)
	h.Set(HeaderWebhookSignature, strings.Join(sigs, " "))
}

// hook is one received webhook: headers signed over signedBody, body sent.
type hook struct {
	signedBody, body string
	at               time.Time
	secrets          []string
	drop             string // a header left out
}

func (h hook) request(t *testing.T) *http.Request {
	t.Helper()
	body := h.body
	if body == "" {
		body = h.signedBody
	}
	r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	at, secrets := h.at, h.secrets
	if at.IsZero() {
		at = hookAt
	}
	if secrets == nil {
		secrets = []string{hookSecret}
	}
	signHeaders(t, r.Header, hookID, at, h.signedBody, secrets...)
	if h.drop != "" {
		r.Header.Del(h.drop)
	}
	return r
}

// TestCallbackVerification: a paid webhook is accepted only with both its
// forms intact, its time near the clock and every header present.
func TestCallbackVerification(t *testing.T) {
	valid := paidForm(nil).Encode()
	tamperedAmount := strings.Replace(valid, "amount=100.50", "amount=900.50", 1)
	resignedMD5 := paidForm(nil)
	resignedMD5.Set("amount", "900.50")
	flat := map[string]string{}
	for n := range resignedMD5 {
		flat[n] = resignedMD5.Get(n)
	}
	resignedMD5.Set("sign", Sign(flat, "a guessed key"))
	v := Verifier{APIKey: hookKey, Secret: hookSecret, Now: func() time.Time { return hookAt.Add(time.Minute) }}
	tests := []struct {
		name string
		v    Verifier
		hook hook
		want error
	}{
		{"valid", v, hook{signedBody: valid}, nil},
		{"tampered amount", v, hook{signedBody: valid, body: tamperedAmount}, ErrSignature},
		{"tampered amount, headers signed over it", v, hook{signedBody: tamperedAmount}, ErrSignature},
		{"tampered amount, MD5 only", Verifier{APIKey: hookKey}, hook{signedBody: tamperedAmount}, ErrSignature},
		{"tampered amount, MD5 signed with another key", v, hook{signedBody: resignedMD5.Encode()}, ErrSignature},
		{"stale timestamp", v, hook{signedBody: valid, at: hookAt.Add(-10 * time.Minute)}, ErrTimestamp},
		{"timestamp from the future", v, hook{signedBody: valid, at: hookAt.Add(10 * time.Minute)}, ErrTimestamp},
		{"missing webhook-signature", v, hook{signedBody: valid, drop: HeaderWebhookSignature}, ErrMissingHeader},
		{"missing webhook-timestamp", v, hook{signedBody: valid, drop: HeaderWebhookTimestamp}, ErrMissingHeader},
		{"missing webhook-id", v, hook{signedBody: valid, drop: HeaderWebhookID}, ErrMissingHeader},
		{"another secret", v, hook{signedBody: valid, secrets: []string{hookOldSecret}}, ErrSignature},
		{"rotated: new secret second", v, hook{signedBody: valid, secrets: []string{hookOldSecret, hookSecret}}, nil},
		{"rotated: receiver holds the old", Verifier{APIKey: hookKey, Secret: hookOldSecret, Now: v.Now},
			hook{signedBody: valid, secrets: []string{hookSecret, hookOldSecret}}, nil},
		{"parameter given twice", v, hook{signedBody: valid + "&amount=900.50"}, ErrSignature},
		{"sign_type not MD5", v, hook{signedBody: strings.Replace(valid, "sign_type=MD5", "sign_type=SHA1", 1)}, ErrSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := tt.v.Callback(tt.hook.request(t))
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err == nil && (cb.Amount != "100.50" || !cb.Paid() || cb.ClientOrderID != "SHOP-42") {
				t.Fatalf("parsed %+v", cb)
			}
		})
	}
}

// TestVerifierRefusesBadConfiguration: a verifier that checks nothing, or
// a secret that is not one, fails rather than accepting.
func TestVerifierRefusesBadConfiguration(t *testing.T) {
	body := paidForm(nil).Encode()
	if _, err := (Verifier{}).Callback(hook{signedBody: body}.request(t)); err == nil {
		t.Fatal("a verifier with neither key nor secret accepted a webhook")
	}
	v := Verifier{Secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Now: func() time.Time { return hookAt }}
	if err := v.VerifyHeaders(hook{signedBody: body}.request(t).Header, []byte(body)); !errors.Is(err, ErrSecret) {
		t.Fatalf("a secret without whsec_: %v", err)
	}
}

// TestEventVerification: an endpoint's event is verified on its raw body
// and its envelope parsed.
func TestEventVerification(t *testing.T) {
	body := `{"id":"evt_1","type":"order.paid","created_at":"2026-11-28T09:00:00Z","version":"2026-11-28",` +
		`"data":{"paymentId":"p1","orderId":"p1","status":2,"status_str":"paid","amount":"5.00","currency":"USD"}}`
	v := Verifier{Secret: hookSecret, Now: func() time.Time { return hookAt }}
	ev, err := v.Event(hook{signedBody: body}.request(t))
	if err != nil {
		t.Fatal(err)
	}
	o, err := ev.Order()
	if err != nil || ev.Type != "order.paid" || ev.Version != "2026-11-28" || o.PaymentID != "p1" || !o.Paid() {
		t.Fatalf("event %+v order %+v err %v", ev, o, err)
	}
	tampered := strings.Replace(body, `"5.00"`, `"500.00"`, 1)
	if _, err := v.Event(hook{signedBody: body, body: tampered}.request(t)); !errors.Is(err, ErrSignature) {
		t.Fatalf("tampered event: %v", err)
	}
	if _, err := v.Event(hook{signedBody: body, drop: HeaderWebhookSignature}.request(t)); !errors.Is(err, ErrMissingHeader) {
		t.Fatalf("unsigned event: %v", err)
	}
}

// TestWebhookBounds: a body over the bound is refused unread, and an event
// without its envelope's id, type or data is no event.
func TestWebhookBounds(t *testing.T) {
	v := Verifier{APIKey: hookKey, Secret: hookSecret, Now: func() time.Time { return hookAt }}
	big := paidForm(nil).Encode() + "&description=" + strings.Repeat("x", maxWebhook)
	if _, err := v.Callback(hook{signedBody: big}.request(t)); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("a body over %d bytes: %v", maxWebhook, err)
	}
	if _, err := v.Event(hook{signedBody: `{"id":"evt_1","type":"order.paid"}`}.request(t)); err == nil {
		t.Fatal("an event without data accepted")
	}
}
