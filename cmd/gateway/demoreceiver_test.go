package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/schema"
)

const (
	rcvKey    = "demo-api-key-0123456789abcdef0123"
	rcvSecret = "whsec_c2VjcmV0LWJ5dGVzLWZvci10aGUtZGVtby0xMjM0"
	rcvOther  = "whsec_b3RoZXItc2VjcmV0LWJ5dGVzLTEyMzQ1Njc4OTA="
)

// signedHook is a webhook as the gateway sends it: the form with its MD5
// sign, and the Standard Webhooks headers signed with secret at at.
func signedHook(t *testing.T, apiKey, secret string, at time.Time) (string, http.Header) {
	t.Helper()
	p := schema.Params{"paymentId": "P1", "amount": "10.00", "currency": "USD", "status": "2", "status_str": "paid"}
	form := url.Values{}
	for k, v := range p {
		form.Set(k, v)
	}
	form.Set("sign", schema.Sign(p, apiKey))
	form.Set("sign_type", "MD5")
	body := form.Encode()
	h := http.Header{}
	h.Set("webhook-id", "evt_paid_P1")
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", hmacEntry(t, secret, "evt_paid_P1", h.Get("webhook-timestamp"), body))
	return body, h
}

func hmacEntry(t *testing.T, secret, id, ts, body string) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + body))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// TestDemoReceiverVerdicts: the receiver says verified only for a webhook
// whose MD5 sign checks with the API key and whose webhook-signature checks
// with the webhook secret, and answers success only when the sign verifies.
func TestDemoReceiverVerdicts(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		keys     receiverKeys
		edit     func(body string, h http.Header) string
		wantSign string
		wantHMAC string
		wantCode int
	}{
		{name: "as sent", wantSign: "verified", wantHMAC: "verified", wantCode: 200},
		{name: "tampered amount", edit: func(b string, _ http.Header) string { return strings.Replace(b, "amount=10.00", "amount=1000.00", 1) },
			wantSign: "NOT verified: sign differs", wantHMAC: "NOT verified: no v1 signature matches", wantCode: 400},
		{name: "another API key", keys: receiverKeys{apiKey: "not-the-key", secret: rcvSecret},
			wantSign: "NOT verified: sign differs", wantHMAC: "verified", wantCode: 400},
		{name: "another webhook secret", keys: receiverKeys{apiKey: rcvKey, secret: rcvOther},
			wantSign: "verified", wantHMAC: "NOT verified: no v1 signature matches", wantCode: 200},
		{name: "old timestamp", edit: func(b string, h http.Header) string {
			ts := strconv.FormatInt(now.Add(-time.Hour).Unix(), 10)
			h.Set("webhook-timestamp", ts)
			h.Set("webhook-signature", hmacEntry(t, rcvSecret, h.Get("webhook-id"), ts, b))
			return b
		}, wantSign: "verified", wantHMAC: "NOT verified: webhook-timestamp is 1h0m0s away", wantCode: 200},
		{name: "rotation: two signatures, the current second", edit: func(b string, h http.Header) string {
			h.Set("webhook-signature", hmacEntry(t, rcvOther, h.Get("webhook-id"), h.Get("webhook-timestamp"), b)+" "+h.Get("webhook-signature"))
			return b
		}, wantSign: "verified", wantHMAC: "verified", wantCode: 200},
		{name: "no headers", edit: func(b string, h http.Header) string { h.Del("webhook-signature"); return b },
			wantSign: "verified", wantHMAC: "NOT verified: no webhook-id", wantCode: 200},
		{name: "a value cannot forge a verdict line", edit: func(b string, _ http.Header) string {
			return b + "&x=" + url.QueryEscape("\n  MD5 sign (API key):                   verified")
		}, wantSign: "NOT verified: sign differs", wantHMAC: "NOT verified: no v1 signature matches", wantCode: 400},
		{name: "keys from the demo file", keys: receiverKeys{file: demoFileWith(t, rcvKey, rcvSecret)},
			wantSign: "verified", wantHMAC: "verified", wantCode: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, h := signedHook(t, rcvKey, rcvSecret, now)
			if tc.edit != nil {
				body = tc.edit(body, h)
			}
			if tc.keys == (receiverKeys{}) {
				tc.keys = receiverKeys{apiKey: rcvKey, secret: rcvSecret}
			}
			var out bytes.Buffer
			r := &receiver{keys: tc.keys, out: &out, now: func() time.Time { return now }}
			req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
			req.Header = h
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			printed := out.String()
			if n := strings.Count(printed, "\n  MD5 sign"); n != 1 {
				t.Fatalf("%d MD5 verdict lines:\n%s", n, printed)
			}
			if !strings.Contains(printed, "MD5 sign (API key):                   "+tc.wantSign) ||
				!strings.Contains(printed, "webhook-signature (webhook secret):   "+tc.wantHMAC) {
				t.Fatalf("printed:\n%s\nwant sign %q, hmac %q", printed, tc.wantSign, tc.wantHMAC)
			}
			if rec.Code != tc.wantCode || (tc.wantCode == 200) != (rec.Body.String() == "success") {
				t.Fatalf("answered %d %q, want %d", rec.Code, rec.Body.String(), tc.wantCode)
			}
			get := httptest.NewRecorder()
			r.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/", nil))
			if get.Body.String() != printed {
				t.Fatalf("GET / shows %q, printed %q", get.Body.String(), printed)
			}
		})
	}
}

func demoFileWith(t *testing.T, apiKey, secret string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "demo-merchant.json")
	if err := os.WriteFile(f, []byte(`{"appid":"M1","apiKey":"`+apiKey+`","webhookSecret":"`+secret+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDemoReceiverLoopbackOnly: the receiver answers anyone who reaches it,
// so it listens on loopback addresses only.
func TestDemoReceiverLoopbackOnly(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8099", true}, {"[::1]:8099", true}, {"localhost:8099", true},
		{"0.0.0.0:8099", false}, {":8099", false}, {"192.168.1.5:8099", false}, {"example.com:80", false},
	}
	for _, tc := range tests {
		t.Run(tc.addr, func(t *testing.T) {
			if err := loopbackAddr(tc.addr); (err == nil) != tc.ok {
				t.Fatalf("loopbackAddr(%q) = %v, want ok %v", tc.addr, err, tc.ok)
			}
		})
	}
}

// TestDemoReceiverEpayForm: the epay door's GET notification is checked
// with the protocol's rule and answered success only when it verifies.
func TestDemoReceiverEpayForm(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	p := epay.Params{"pid": "M1", "trade_no": "P1", "out_trade_no": "A1", "type": "t1", "name": "Box",
		"money": "1.00", "trade_status": "TRADE_SUCCESS", "param": ""}
	p["sign"] = epay.Sign(p, rcvKey)
	p["sign_type"] = "MD5"
	query := func(edit func(url.Values)) string {
		q := url.Values{}
		for k, v := range p {
			q.Set(k, v)
		}
		if edit != nil {
			edit(q)
		}
		return "/hook?" + q.Encode()
	}
	tests := []struct {
		name, path, want string
	}{
		{"as sent", query(nil), "success"},
		{"tampered money", query(func(q url.Values) { q.Set("money", "100.00") }), "fail"},
		{"sign twice", query(func(q url.Values) { q.Add("sign", p["sign"]) }), "fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			r := &receiver{keys: receiverKeys{apiKey: rcvKey, secret: rcvSecret}, out: &out, now: func() time.Time { return now }}
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
			if rec.Body.String() != tc.want || !strings.Contains(out.String(), "epay notification") {
				t.Fatalf("answered %q, want %q; printed:\n%s", rec.Body.String(), tc.want, out.String())
			}
		})
	}
}
