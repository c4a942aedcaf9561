package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// hookRequest is one webhook a test receiver got.
type hookRequest struct {
	form   url.Values
	header http.Header
	body   string
}

// verify checks the Standard Webhooks headers as a receiver would, from the
// specification: the id, a recent unix timestamp, and a v1 entry equal to
// HMAC-SHA256(base64-decoded whsec_ secret, id.timestamp.body); a tampered
// body must not verify.
func (h hookRequest) verify(t *testing.T, secret, wantID string) {
	t.Helper()
	id, ts, sig := h.header.Get("webhook-id"), h.header.Get("webhook-timestamp"), h.header.Get("webhook-signature")
	if id != wantID {
		t.Fatalf("webhook-id %q, want %q", id, wantID)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		t.Fatalf("webhook-timestamp %q is not the attempt's unix time", ts)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("merchant create printed no whsec_ secret: %q", secret)
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	matches := func(body string) bool {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + ts + "." + body))
		for _, entry := range strings.Fields(sig) {
			v, b64, _ := strings.Cut(entry, ",")
			got, err := base64.StdEncoding.DecodeString(b64)
			if v == "v1" && err == nil && hmac.Equal(got, mac.Sum(nil)) {
				return true
			}
		}
		return false
	}
	if !matches(h.body) {
		t.Fatalf("webhook-signature %q does not verify with the merchant's secret", sig)
	}
	if matches(strings.Replace(h.body, "amount=", "amount=1", 1)) {
		t.Fatal("a tampered body verifies")
	}
}

// resend posts a signed POST /api/order/webhooks/resend.
func (s *server) resend(t *testing.T, appid, key, id string) apiResponse {
	t.Helper()
	p := schema.Params{"appid": appid, "action": "resend", "paymentId": id}
	p["sign"] = schema.Sign(p, key)
	body, _ := json.Marshal(p)
	req, _ := http.NewRequest(http.MethodPost, s.base+"/api/order/webhooks/resend", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return call(t, req)
}

// checkResend asks for a resend of the delivered webhook of id through the
// API: a wrong key is 401, the signed call is answered at once, the webhook
// comes again with the same webhook-id and action=webhooks shows a second,
// manual attempt and the delivery state.
func checkResend(t *testing.T, s *server, shop account, id string, got <-chan hookRequest) {
	t.Helper()
	if r := s.resend(t, shop.AppID, "not the key", id); r.Status != 401 || r.Error != "invalid_sign" {
		t.Fatalf("resend with a bad sign: %+v", r)
	}
	if r := s.resend(t, shop.AppID, shop.APIKey, id); r.Status != 200 || r.Data["resend"] != "queued" {
		t.Fatalf("resend: %+v", r)
	}
	select {
	case again := <-got:
		again.verify(t, shop.WebhookSecret, "evt_paid_"+id)
	case <-time.After(10 * time.Second):
		t.Fatal("no resent webhook within 10s")
	}
	q := url.Values{"appid": {shop.AppID}, "key": {shop.QueryKey}, "action": {"webhooks"}, "paymentId": {id}}
	testenv.Eventually(t, 5*time.Second, "condition", func() bool {
		req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
		l := call(t, req)
		attempts, _ := l.Data["attempts"].([]any)
		delivery, _ := l.Data["delivery"].(map[string]any)
		if l.Status != 200 || len(attempts) != 2 || delivery["state"] != "delivered" {
			return false
		}
		last, _ := attempts[1].(map[string]any)
		return last["manual"] == true && last["success"] == true
	})
}

// checkWebhookSecretShown: show does not print the webhook secret;
// rotate-webhook-secret prints the new one and how long the old one signs.
func checkWebhookSecretShown(t *testing.T, e *e2e, shop account) {
	t.Helper()
	var shown map[string]any
	e.cli(&shown, "merchant", "show", shop.AppID, "--json")
	if raw, _ := json.Marshal(shown); strings.Contains(string(raw), "whsec_") || len(shown) == 0 {
		t.Fatalf("merchant show prints the webhook secret: %s", raw)
	}
	var rotated struct {
		account
		PrevTill string `json:"prevWebhookSecretValidUntil"`
	}
	e.cli(&rotated, "merchant", "rotate-webhook-secret", shop.AppID, "--grace", "1h", "--json")
	if !strings.HasPrefix(rotated.WebhookSecret, "whsec_") || rotated.WebhookSecret == shop.WebhookSecret || rotated.PrevTill == "" {
		t.Fatalf("rotate-webhook-secret: %+v", rotated)
	}
}
