package account

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/schema"
)

// auditedWrite is one audited form: the field a bad value goes in ("path":
// the rotation's name, "user": the user's id), an over-long value of its
// own when the field's bound is not audit.MaxText, where in a good value
// the bad bytes go (around, "%s" for the whole value) and the action it
// logs.
type auditedWrite struct {
	write
	field, long, around, action string
}

func auditedWrites(target string) []auditedWrite {
	w := map[string]write{}
	for _, x := range writes(target) {
		w[x.name] = x
	}
	longURL := "https://93.184.216.35/" + strings.Repeat("a", schema.MaxURLLen)
	return []auditedWrite{
		{w["resend"], "paymentId", "", "%s", "webhook.resend"},
		{w["resend dead"], "from", "", "%s", "webhook.resend"},
		{w["rotate API key"], "grace", "", "%s", "merchant.rotate_api_key"},
		{w["rotate query key"], "path", "", "%s", "merchant.rotate_query_key"},
		{w["rotate webhook secret"], "path", "", "%s", "merchant.rotate_webhook_secret"},
		{w["callback"], "callback", longURL, "https://93.184.216.35/%s", "merchant.set_callback"},
		{w["invite"], "email", "", "new%s@shop.test", "user.create"},
		{w["change role"], "role", "", "%s", "user.set_role"},
		{w["require TOTP"], "on", "", "%s", "merchant.require_totp"},
		{w["reissue"], "user", "", "%s", "user.reissue_setup"},
		{w["remove"], "user", "", "%s", "user.disable"},
	}
}

// TestAuditedFormsRefuseBadText: every audited form of the Webhooks,
// Developers and Team pages, sent a value that is not UTF-8 or over its
// bound, answers a 400-class refusal and changes nothing (no entry
// either); with good values each acts and appends its entry.
func TestAuditedFormsRefuseBadText(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	victim := teamUser(t, e, "victim@shop.test")
	forms := auditedWrites(victim)
	bad := func(f auditedWrite, v string) (string, url.Values) {
		vals := f.vals(e)
		switch f.field {
		case "path": // /developers/rotate/WHAT
			return f.path + url.PathEscape(v), vals
		case "user": // /team/users/ID/OP
			return strings.Replace(f.path, victim, url.PathEscape(victim+v), 1), vals
		}
		vals.Set(f.field, v)
		return f.path, vals
	}
	for _, f := range forms {
		long := f.long
		if long == "" {
			long = strings.Repeat("é", audit.MaxText+1)
		}
		for _, b := range []struct{ name, v string }{{"not UTF-8", strings.Replace(f.around, "%s", "x\xff", 1)}, {"over-long", long}} {
			t.Run(f.name+" "+b.name, func(t *testing.T) {
				path, vals := bad(f, b.v)
				before := e.fingerprint()
				vals.Set("csrf", owner.CSRF)
				res := e.do(owner, http.MethodPost, path, vals)
				if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusNotFound {
					body, _ := io.ReadAll(res.Body)
					t.Fatalf("POST %s answered %d, want a 400-class refusal:\n%s", path, res.StatusCode, body)
				}
				if e.fingerprint() != before {
					t.Fatal("refused, yet Redis changed")
				}
			})
		}
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			vals := f.vals(e)
			before := fixture.AuditActions(t, e.rdb)[f.action]
			vals.Set("csrf", owner.CSRF)
			res := e.do(owner, http.MethodPost, f.path, vals)
			if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusSeeOther {
				body, _ := io.ReadAll(res.Body)
				t.Fatalf("answered %d:\n%s", res.StatusCode, body)
			}
			if n := fixture.AuditActions(t, e.rdb)[f.action]; n != before+1 {
				t.Fatalf("%d %s entries, want %d", n, f.action, before+1)
			}
		})
	}
}
