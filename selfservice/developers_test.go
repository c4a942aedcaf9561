package selfservice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestSignatureDebugger: a sandbox merchant's developer sees the exact
// string the API hashes and the sign the API computes (the same code), and
// which key a given sign verifies with; a live merchant is refused.
func TestSignatureDebugger(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	w := e.who(e.sandbox.AppID, access.RoleDeveloper)
	p := schema.Params{"appid": e.sandbox.AppID, "amount": "10.00", "currency": "USD", "action": "createorder", "sign_type": "MD5"}
	got, err := e.svc.Keys.DebugSignature(ctx, w, "createorder", p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "action=createorder&amount=10.00&appid=" + e.sandbox.AppID + "&currency=USD{key}"; got.Signed != want {
		t.Fatalf("signed string %q, want %q", got.Signed, want)
	}
	if got.Sign != schema.Sign(p, e.sandbox.APIKey) || got.Verdict != "" || got.FormError != "" || got.OtherAppID {
		t.Fatalf("debug %+v", got)
	}
	old := e.sandbox.APIKey
	if _, err := e.svc.Keys.RotateAPIKey(ctx, w, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, sign, verdict string
	}{
		{"signed with the previous key, in its grace", schema.Sign(p, old), "previous"},
		{"wrong", strings.Repeat("0", 32), "none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := schema.Params{"sign": tt.sign}
			for k, v := range p {
				q[k] = v
			}
			got, err := e.svc.Keys.DebugSignature(ctx, w, "createorder", q)
			if err != nil || got.Verdict != tt.verdict {
				t.Fatalf("%+v, %v: want verdict %s", got, err, tt.verdict)
			}
		})
	}
	cur, _ := e.merchants.Get(ctx, e.sandbox.AppID)
	q := schema.Params{"amount": "1", "sign": schema.Sign(schema.Params{"amount": "1"}, cur.APIKey)}
	if got, err := e.svc.Keys.DebugSignature(ctx, w, "other", q); err != nil || got.Verdict != "current" {
		t.Fatalf("current key: %+v, %v", got, err)
	}
	if got, _ := e.svc.Keys.DebugSignature(ctx, w, "createorder", schema.Params{"amount": "1", "evil&x": "1"}); got == nil || got.FormError == "" {
		t.Fatalf("a name the form refuses: %+v", got)
	}
	if got, _ := e.svc.Keys.DebugSignature(ctx, w, "cancel", schema.Params{"appid": e.other.AppID}); got == nil || !got.OtherAppID {
		t.Fatalf("another appid not flagged: %+v", got)
	}

	live := e.who(e.shop.AppID, access.RoleOwner)
	if _, err := e.svc.Keys.DebugSignature(ctx, live, "createorder", p); kindOf(err) != platform.KindForbidden || !errors.Is(err, ErrLiveMerchant) {
		t.Fatalf("live merchant: %v, want refused", err)
	}
}

// TestCallbackByTheDispatchersRules: a callback URL every webhook would be
// refused for is refused when set, and changes nothing; a public one is
// stored, audited by its host only.
func TestCallbackByTheDispatchersRules(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	w := e.who(e.shop.AppID, access.RoleDeveloper)
	for _, bad := range []string{
		"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://[::1]/", "http://10.0.0.8/", "http://192.168.1.1/",
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://0.0.0.0/", "http://100.64.0.1/",
		"ftp://shop.example/", "javascript:alert(1)", "http://user:pw@93.184.216.34/",
	} {
		t.Run(bad, func(t *testing.T) {
			before := e.fingerprint()
			if err := e.svc.Webhooks.SetCallback(ctx, w, bad); kindOf(err) != platform.KindInvalidParameter {
				t.Fatalf("%v, want refused", err)
			}
			if e.fingerprint() != before {
				t.Fatal("a refused callback changed something")
			}
		})
	}
	good := "https://93.184.216.34/pay/hook?token=s3cr3t"
	if err := e.svc.Webhooks.SetCallback(ctx, w, good); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.merchants.Get(ctx, e.shop.AppID); a.Callback != good {
		t.Fatalf("callback %q", a.Callback)
	}
	entries := e.auditOf("merchant.set_callback")
	if len(entries) != 1 || strings.Contains(fmt.Sprint(entries[0]), "s3cr3t") {
		t.Fatalf("audit %v: want one entry naming the host only", entries)
	}
}

// TestTestEvent: the button sends a signed test event to the default
// callback and answers how it was answered, audited; a second one at once
// is spaced out; under the production rules a stored callback on our own
// network is refused and never connected to.
func TestTestEvent(t *testing.T) {
	ctx := context.Background()
	t.Run("delivered", func(t *testing.T) {
		e := newEnv(t, true)
		rc := newReceiver(t, 200, "success")
		w := e.who(e.shop.AppID, access.RoleDeveloper)
		if err := e.svc.Webhooks.SetCallback(ctx, w, rc.URL+"/hook"); err != nil {
			t.Fatal(err)
		}
		res, err := e.svc.Webhooks.SendTestEvent(ctx, w)
		if err != nil || !res.Acknowledged || res.Status != 200 || rc.hits.Load() != 1 {
			t.Fatalf("%+v, %v, %d hits", res, err, rc.hits.Load())
		}
		if a := e.auditOf("webhook.test"); len(a) != 1 || !strings.Contains(fmt.Sprint(a[0]["details"]), `"status":"200"`) {
			t.Fatalf("audit entries %v", a)
		}
		if _, err := e.svc.Webhooks.SendTestEvent(ctx, w); kindOf(err) != platform.KindRateLimited || rc.hits.Load() != 1 {
			t.Fatalf("second test at once: %v, %d hits", err, rc.hits.Load())
		}
	})
	t.Run("our own network refused", func(t *testing.T) {
		e := newEnv(t, false)
		rc := newReceiver(t, 200, "success")
		// Stored before the rules, or by an operator with the private
		// setting on: the button still refuses it.
		if _, err := e.merchants.SetCallback(ctx, e.shop.AppID, rc.URL+"/hook"); err != nil {
			t.Fatal(err)
		}
		w := e.who(e.shop.AppID, access.RoleOwner)
		if _, err := e.svc.Webhooks.SendTestEvent(ctx, w); kindOf(err) != platform.KindInvalidParameter {
			t.Fatalf("%v, want refused", err)
		}
		if rc.hits.Load() != 0 {
			t.Fatal("the private receiver was called")
		}
	})
}

// TestRotations: a rotated key is shown once in the answer, the old one
// keeps verifying for the grace asked, no secret reaches the audit log,
// and a grace beyond the bound is refused.
func TestRotations(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	w := e.who(e.shop.AppID, access.RoleOwner)
	before, _ := e.merchants.Get(ctx, e.shop.AppID)
	k, err := e.svc.Keys.RotateAPIKey(ctx, w, 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := e.merchants.Get(ctx, e.shop.AppID)
	if k.Secret != after.APIKey || k.Secret == before.APIKey || len(after.SignKeys(time.Now().Add(time.Hour))) != 2 ||
		len(after.SignKeys(time.Now().Add(3*time.Hour))) != 1 {
		t.Fatalf("rotation %+v: keys %v", k, after.SignKeys(time.Now()))
	}
	q, err := e.svc.Keys.RotateQueryKey(ctx, w, 0)
	if err != nil || q.Secret == before.QueryKey || !q.OldUntil.IsZero() {
		t.Fatalf("query key %+v, %v", q, err)
	}
	s, err := e.svc.Keys.RotateWebhookSecret(ctx, w, -1)
	if err != nil || !strings.HasPrefix(s.Secret, "whsec_") {
		t.Fatalf("webhook secret %+v, %v", s, err)
	}
	if _, err := e.svc.Keys.RotateAPIKey(ctx, w, 30*24*time.Hour); kindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("a month of grace: %v", err)
	}
	c, err := e.svc.Keys.Credentials(ctx, e.who(e.shop.AppID, access.RoleViewer))
	if err != nil || c.APIKeyEnd != k.Secret[len(k.Secret)-4:] || c.PrevKeyTill.IsZero() {
		t.Fatalf("credentials %+v, %v", c, err)
	}
	all := fmt.Sprint(e.auditEntries()) + fmt.Sprint(c)
	for _, secret := range []string{before.APIKey, k.Secret, before.QueryKey, q.Secret, s.Secret, before.WebhookSecret} {
		if secret != "" && strings.Contains(all, secret) {
			t.Fatal("a secret is in the audit log or the credentials view")
		}
	}
	if n := len(e.auditOf("merchant.rotate_api_key")) + len(e.auditOf("merchant.rotate_query_key")) +
		len(e.auditOf("merchant.rotate_webhook_secret")); n != 3 || len(e.auditEntries()) != n+4 { // +4: two users' creation and setup

		t.Fatalf("%d audit entries for three rotations", n)
	}
}

// TestQueryKeyRotationGrace: the query key's rotation takes the API key's
// grace (default 24 h, at most 7 days): the old key reads through the
// grace and not after, the Developers page's view says until when, and a
// grace past the bound is refused with nothing changed.
func TestQueryKeyRotationGrace(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	w := e.who(e.shop.AppID, access.RoleDeveloper)
	before, _ := e.merchants.Get(ctx, e.shop.AppID)
	if _, err := e.svc.Keys.RotateQueryKey(ctx, w, 7*24*time.Hour+time.Hour); kindOf(err) != platform.KindInvalidParameter {
		t.Fatalf("eight days of grace: %v", err)
	}
	if same, _ := e.merchants.Get(ctx, e.shop.AppID); same.QueryKey != before.QueryKey {
		t.Fatal("a refused rotation changed the key")
	}
	start := time.Now()
	q, err := e.svc.Keys.RotateQueryKey(ctx, w, -1)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := e.merchants.Get(ctx, e.shop.AppID)
	if q.Secret != after.QueryKey || q.Secret == before.QueryKey {
		t.Fatalf("rotation %+v", q)
	}
	if d := q.OldUntil.Sub(start); d < 24*time.Hour-time.Minute || d > 24*time.Hour+time.Minute {
		t.Fatalf("the old key works until %s, want the default 24 h", q.OldUntil)
	}
	if !after.QueryKeyMatches(before.QueryKey, start.Add(23*time.Hour)) {
		t.Fatal("the old query key stopped within its grace")
	}
	if after.QueryKeyMatches(before.QueryKey, start.Add(25*time.Hour)) {
		t.Fatal("the old query key works after its grace")
	}
	c, err := e.svc.Keys.Credentials(ctx, e.who(e.shop.AppID, access.RoleViewer))
	if err != nil || !c.PrevQueryTill.Equal(q.OldUntil) {
		t.Fatalf("credentials %+v, %v", c, err)
	}
	if _, err := e.svc.Keys.RotateQueryKey(ctx, w, 7*24*time.Hour); err != nil {
		t.Fatalf("seven days of grace: %v", err)
	}
}
