package access

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestAuditTrail: every change is in the audit streams with who, realm,
// role, action, target and source, and no entry carries any secret the
// flow handled: passwords (one typed into the e-mail field too), TOTP
// secret and codes, recovery codes, setup tokens, session ids, CSRF
// tokens, the password hash.
func TestAuditTrail(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	var secrets []string
	acct, token, err := NewTeam(e.a).Create(ctx, CLI(), NewUser{Realm: RealmMerchant, AppID: e.shop, Email: "owner@shop.test", Role: RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	_, enr, _, err := e.a.BeginSetup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	code := e.code(t, enr.Secret, 0)
	_, recovery, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmMerchant, Token: token, Password: goodPassword, TOTPSecret: enr.Secret, TOTPCode: code, Source: "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, token, digest(token), goodPassword, enr.Secret, code)
	secrets = append(secrets, recovery...)
	e.clock.add(30 * 1e9)
	code2 := e.code(t, enr.Secret, 0)
	s, err := e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: acct.Email, Password: goodPassword, Code: code2, IP: ip1})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: acct.Email, Password: goodPassword, Code: recovery[3], IP: ip1, OldSession: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, code2, s.ID, s.CSRF, s2.ID, s2.CSRF, digest(s.ID), digest(s2.ID))
	// A password typed into the e-mail field, and a wrong one.
	_, _ = e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: "hunter2-typed-as-email", Password: "x", IP: ip1})
	_, _ = e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: acct.Email, Password: "wrong password typed", Code: "123456", IP: ip2})
	secrets = append(secrets, "hunter2-typed-as-email", "wrong password typed")
	if err := NewTeam(e.a).RequireTOTP(ctx, ActorOf(s2, "192.0.2.1"), e.shop, true); err != nil {
		t.Fatal(err)
	}
	reissued, err := NewTeam(e.a).Reissue(ctx, ActorOf(s2, "192.0.2.1"), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, reissued)
	if err := e.a.Logout(ctx, s2, "192.0.2.1", true); err != nil {
		t.Fatal(err)
	}
	pw, _ := e.rdb.HGet(ctx, userKey(acct.ID), "pw").Result()
	secrets = append(secrets, pw, strings.Split(pw, "$")[5])

	var actions []string
	for _, stream := range []string{schema.AuditKey(schema.AccessTag), schema.AuditKey(schema.AuditTag)} {
		msgs, err := e.rdb.XRange(ctx, stream, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			all := fmt.Sprint(m.Values)
			for _, sec := range secrets {
				if sec != "" && strings.Contains(all, sec) {
					t.Errorf("audit entry %s carries a secret %q: %s", m.ID, sec, all)
				}
			}
			actions = append(actions, m.Values["action"].(string))
			if m.Values["action"] == "session.login" && (m.Values["actor"] != acct.ID || m.Values["role"] != "owner" ||
				m.Values["realm"] != "merchant" || m.Values["src"] != ip1.String() || m.Values["appid"] != e.shop) {
				t.Errorf("login entry %v", m.Values)
			}
		}
	}
	for _, want := range []string{"user.create", "user.setup", "session.login", "session.login_failed",
		"merchant.require_totp", "user.reissue_setup", "session.logout_everywhere"} {
		if !slices.Contains(actions, want) {
			t.Errorf("no %s entry among %v", want, actions)
		}
	}
}
