package dispatcher

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// verifyStandard is a receiver's check of the webhook-signature header,
// written from the Standard Webhooks specification and not from our
// signer: HMAC-SHA256 with the base64-decoded whsec_ secret over
// id.timestamp.body, any of the space-separated v1 entries matching.
func verifyStandard(t *testing.T, secret, id, ts, body, header string) bool {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q is not whsec_ and base64", secret)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + body))
	want := mac.Sum(nil)
	for _, entry := range strings.Fields(header) {
		version, sig, _ := strings.Cut(entry, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// secretOf reads the merchant's current webhook secret from Redis.
func (e *env) secretOf() string {
	e.t.Helper()
	a, err := e.accounts.Get(context.Background(), e.acct.AppID)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.WebhookSecret
}

// TestModernHeaders: a webhook that fails once and then is acknowledged
// carries on both attempts the same webhook-id, the attempt's unix time and
// a signature over id.timestamp.body that verifies with the merchant's
// secret; a tampered body or another secret does not verify. The form body
// and MD5 sign are what SPEC.md says (TestWebhookIsSignedForm checks them
// field by field; here the MD5 sign still verifies beside the headers).
func TestModernHeaders(t *testing.T) {
	e := newEnv(t)
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.WriteHeader(500)
			return
		}
		_, _ = w.Write([]byte("success"))
	})
	e.start(testConfig())
	before := time.Now().Unix()
	o := e.pay(rc.URL + "/hook")
	testenv.Eventually(t, 10*time.Second, "two attempts", func() bool { return rc.count() == 2 })
	after := time.Now().Unix()
	secret := e.secretOf()
	if secret == "" || secret != e.acct.WebhookSecret {
		t.Fatalf("secret %q, made with the account %q", secret, e.acct.WebhookSecret)
	}
	for i, r := range rc.requests() {
		id, ts, sig := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.header.Get("webhook-signature")
		if id != "evt_paid_"+o.ID {
			t.Errorf("attempt %d: webhook-id %q, want evt_paid_%s", i+1, id, o.ID)
		}
		if sec, err := strconv.ParseInt(ts, 10, 64); err != nil || sec < before || sec > after {
			t.Errorf("attempt %d: webhook-timestamp %q, not unix seconds of the attempt", i+1, ts)
		}
		if len(strings.Fields(sig)) != 1 {
			t.Errorf("attempt %d: %q, want one signature outside a rotation", i+1, sig)
		}
		if !verifyStandard(t, secret, id, ts, r.body, sig) {
			t.Errorf("attempt %d: signature %q does not verify", i+1, sig)
		}
		tampered := strings.Replace(r.body, "amount=12.34", "amount=99.99", 1)
		if tampered == r.body || verifyStandard(t, secret, id, ts, tampered, sig) {
			t.Errorf("attempt %d: a tampered body verifies", i+1)
		}
		if verifyStandard(t, "whsec_"+base64.StdEncoding.EncodeToString([]byte("another secret of 32 bytes......")), id, ts, r.body, sig) {
			t.Errorf("attempt %d: another secret verifies", i+1)
		}
		p := schema.Params{}
		for k := range r.form {
			p[k] = r.form.Get(k)
		}
		if !schema.VerifySign(p, e.acct.APIKey, p["sign"]) {
			t.Errorf("attempt %d: the MD5 sign no longer verifies", i+1)
		}
	}
}

// TestWebhookSecretRotation: during the grace period a webhook is signed
// with both secrets, each entry verifying with one of them, so receivers on
// either secret accept it; a rotation without grace signs with the new one
// only.
func TestWebhookSecretRotation(t *testing.T) {
	tests := []struct {
		name    string
		grace   time.Duration
		sigs    int
		oldOK   bool
		current bool
	}{
		{"with grace", time.Hour, 2, true, true},
		{"without grace", 0, 1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rc := newReceiver(t, answer(200, "success"))
			old := e.secretOf()
			if _, err := e.accounts.RotateWebhookSecret(context.Background(), e.acct.AppID, tt.grace); err != nil {
				t.Fatal(err)
			}
			current := e.secretOf()
			if current == old {
				t.Fatal("rotation kept the secret")
			}
			e.start(testConfig())
			e.pay(rc.URL + "/hook")
			testenv.Eventually(t, 10*time.Second, "the webhook", func() bool { return rc.count() == 1 })
			r := rc.requests()[0]
			id, ts, sig := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.header.Get("webhook-signature")
			entries := strings.Fields(sig)
			if len(entries) != tt.sigs {
				t.Fatalf("%d signatures %q, want %d", len(entries), sig, tt.sigs)
			}
			if got := verifyStandard(t, current, id, ts, r.body, entries[0]); got != tt.current {
				t.Errorf("first entry verifies with the new secret: %v", got)
			}
			if got := verifyStandard(t, old, id, ts, r.body, sig); got != tt.oldOK {
				t.Errorf("old secret verifies: %v, want %v", got, tt.oldOK)
			}
			if tt.sigs == 2 && !verifyStandard(t, old, id, ts, r.body, entries[1]) {
				t.Error("second entry does not verify with the old secret")
			}
		})
	}
}

// TestWebhookSecretMadeAtFirstWebhook: an account from before webhook
// secrets gets one at its first webhook, which signs it, and keeps it.
func TestWebhookSecretMadeAtFirstWebhook(t *testing.T) {
	e := newEnv(t)
	if err := e.rdb.HDel(context.Background(), schema.MerchantKey(e.acct.AppID), "webhookSecret").Err(); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, answer(200, "success"))
	e.start(testConfig())
	o := e.pay(rc.URL + "/hook")
	testenv.Eventually(t, 10*time.Second, "the webhook", func() bool { return rc.count() == 1 })
	secret := e.secretOf()
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("no secret made: %q", secret)
	}
	r := rc.requests()[0]
	if !verifyStandard(t, secret, r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"), r.body, r.header.Get("webhook-signature")) {
		t.Fatal("the first webhook is not signed with the secret made for it")
	}
	if r.header.Get("webhook-id") != "evt_paid_"+o.ID {
		t.Errorf("webhook-id %q", r.header.Get("webhook-id"))
	}
}
