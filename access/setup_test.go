package access

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/merchant"
)

// TestSetupToken: a setup link works once, before it expires, and only the
// newest of an account's links works; a wrong TOTP code leaves it usable.
func TestSetupToken(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	mk := func(email string) string {
		t.Helper()
		_, token, err := NewTeam(e.a).Create(ctx, CLI(), NewUser{Realm: RealmOperator, Email: email, Role: RoleAuditor})
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	finish := func(token string, code func(secret string) string) ([]string, error) {
		_, enr, required, err := e.a.BeginSetup(ctx, token)
		if err != nil {
			return nil, err
		}
		if !required {
			t.Fatal("TOTP not required of an operator")
		}
		_, codes, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmOperator, Token: token, Password: goodPassword, TOTPSecret: enr.Secret, TOTPCode: code(enr.Secret)})
		return codes, err
	}
	right := func(s string) string { return e.code(t, s, 0) }

	t.Run("enrolment", func(t *testing.T) {
		_, enr, _, err := e.a.BeginSetup(ctx, mk("qr@ops.test"))
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(enr.URL)
		if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("secret") != enr.Secret || u.Query().Get("issuer") != "Gateway" {
			t.Fatalf("otpauth URL %q", enr.URL)
		}
		if len(enr.Secret) != 32 || !strings.HasPrefix(string(enr.QRPNG), "\x89PNG") {
			t.Fatalf("secret %q or QR image", enr.Secret)
		}
	})
	t.Run("wrong code, then right", func(t *testing.T) {
		token := mk("retry@ops.test")
		if _, err := finish(token, func(string) string { return "000000" }); !errors.Is(err, ErrWrongCode) {
			t.Fatalf("wrong code: %v", err)
		}
		codes, err := finish(token, right)
		if err != nil || len(codes) != 10 {
			t.Fatalf("codes %v, %v", codes, err)
		}
	})
	t.Run("reused", func(t *testing.T) {
		token := mk("reuse@ops.test")
		if _, err := finish(token, right); err != nil {
			t.Fatal(err)
		}
		if _, err := finish(token, right); !errors.Is(err, ErrSetupToken) {
			t.Fatalf("second use: %v", err)
		}
		// The script refuses it too, not only BeginSetup's read.
		if _, _, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmOperator, Token: token, Password: "an attacker's password"}); !errors.Is(err, ErrSetupToken) {
			t.Fatalf("second use, straight to completion: %v", err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		token := mk("late@ops.test")
		e.clock.add(72*time.Hour + time.Second)
		if _, err := finish(token, right); !errors.Is(err, ErrSetupToken) {
			t.Fatalf("after 72 h: %v", err)
		}
	})
	t.Run("superseded", func(t *testing.T) {
		token := mk("twice@ops.test")
		acct, err := e.a.ByEmail(ctx, RealmOperator, "twice@ops.test")
		if err != nil {
			t.Fatal(err)
		}
		newer, err := NewTeam(e.a).Reissue(ctx, CLI(), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := finish(token, right); !errors.Is(err, ErrSetupToken) {
			t.Fatalf("the older link: %v", err)
		}
		if _, err := finish(newer, right); err != nil {
			t.Fatalf("the newer link: %v", err)
		}
	})
	t.Run("setup code cannot log in again", func(t *testing.T) {
		token := mk("same@ops.test")
		_, enr, _, err := e.a.BeginSetup(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		code := e.code(t, enr.Secret, 0)
		if _, _, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmOperator, Token: token, Password: goodPassword, TOTPSecret: enr.Secret, TOTPCode: code}); err != nil {
			t.Fatal(err)
		}
		_, err = e.a.Login(ctx, LoginRequest{Realm: RealmOperator, Email: "same@ops.test", Password: goodPassword, Code: code, IP: ip1})
		wantBadLogin(t, err, ErrCodeReplayed)
	})
}

// TestCreateChecks: e-mails are unique per realm, roles belong to their
// realm, and only those allowed may create accounts.
func TestCreateChecks(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	owner := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	dev := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, false)
	admin := e.mkUser(t, RealmOperator, "admin@ops.test", RoleAdmin, true)
	support := e.mkUser(t, RealmOperator, "support@ops.test", RoleSupport, true)
	other, err := merchant.NewStore(e.rdb).Create(ctx, merchant.NewAccount{Name: "another shop"})
	if err != nil {
		t.Fatal(err)
	}
	as := func(u *user) Actor {
		return Actor{ID: u.acct.ID, Email: u.acct.Email, Realm: string(u.acct.Realm), Role: u.acct.Role, AppID: u.acct.AppID, Source: "192.0.2.1"}
	}
	tests := []struct {
		name  string
		actor Actor
		nu    NewUser
		ok    bool
	}{
		{"owner invites to own merchant", as(owner), NewUser{RealmMerchant, e.shop, "a@shop.test", RoleFinance}, true},
		{"owner invites to another merchant", as(owner), NewUser{RealmMerchant, other.AppID, "b@shop.test", RoleViewer}, false},
		{"owner makes an operator", as(owner), NewUser{RealmOperator, "", "c@ops.test", RoleAdmin}, false},
		{"developer invites", as(dev), NewUser{RealmMerchant, e.shop, "d@shop.test", RoleViewer}, false},
		{"admin makes an operator", as(admin), NewUser{RealmOperator, "", "e@ops.test", RoleSupport}, true},
		{"admin makes a console user", as(admin), NewUser{RealmMerchant, e.shop, "f@shop.test", RoleOwner}, true},
		{"support makes an operator", as(support), NewUser{RealmOperator, "", "g@ops.test", RoleAuditor}, false},
		{"taken e-mail, other spelling", CLI(), NewUser{RealmMerchant, e.shop, " Owner@Shop.TEST", RoleViewer}, false},
		{"same e-mail, other realm", CLI(), NewUser{RealmOperator, "", "owner@shop.test", RoleAuditor}, true},
		{"operator role for a merchant user", CLI(), NewUser{RealmMerchant, e.shop, "h@shop.test", RoleAdmin}, false},
		{"unknown merchant", CLI(), NewUser{RealmMerchant, "999999", "i@shop.test", RoleOwner}, false},
		{"not an e-mail", CLI(), NewUser{RealmMerchant, e.shop, "Ann <j@shop.test>", RoleOwner}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct, token, err := NewTeam(e.a).Create(ctx, tt.actor, tt.nu)
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
			if tt.ok && (acct.PasswordSet || len(token) != tokenLen || acct.Role != tt.nu.Role) {
				t.Fatalf("account %+v, token %q", acct, token)
			}
		})
	}
	if err := NewTeam(e.a).SetRole(ctx, as(dev), owner.acct.ID, RoleViewer); err == nil {
		t.Fatal("a developer changed the owner's role")
	}
	users, err := e.a.List(ctx, RealmMerchant, e.shop)
	if err != nil || len(users) != 4 {
		t.Fatalf("%d users, %v; want 4", len(users), err)
	}
}

// TestSetupOtherRealm: a setup link completed on the other console is
// refused as unknown before anything changes: no password or TOTP is set
// and the link still works on its own console.
func TestSetupOtherRealm(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		realm, on Realm
		appid     string
		role      Role
		email     string
	}{
		{"operator's link on the merchant console", RealmOperator, RealmMerchant, "", RoleAdmin, "admin@ops.test"},
		{"merchant user's link on the operator console", RealmMerchant, RealmOperator, e.shop, RoleOwner, "owner@shop.test"},
		{"no realm given", RealmOperator, "", "", RoleAuditor, "aud@ops.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acct, token, err := NewTeam(e.a).Create(ctx, CLI(), NewUser{Realm: tc.realm, AppID: tc.appid, Email: tc.email, Role: tc.role})
			if err != nil {
				t.Fatal(err)
			}
			_, enr, _, err := e.a.BeginSetup(ctx, token)
			if err != nil {
				t.Fatal(err)
			}
			attack := Setup{Realm: tc.on, Token: token, Password: "an attacker's password", TOTPSecret: enr.Secret, TOTPCode: e.code(t, enr.Secret, 0)}
			if _, _, err := e.a.CompleteSetup(ctx, attack); !errors.Is(err, ErrSetupToken) {
				t.Fatalf("completed on the other console: %v", err)
			}
			if got, err := e.a.Get(ctx, acct.ID); err != nil || got.PasswordSet || got.TOTP {
				t.Fatalf("after the refusal: %+v, %v; want no password and no TOTP", got, err)
			}
			own := attack
			own.Realm, own.Password = tc.realm, goodPassword
			if _, _, err := e.a.CompleteSetup(ctx, own); err != nil {
				t.Fatalf("the link on its own console: %v", err)
			}
		})
	}
}
