package selfservice

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
)

// enrol makes a user of appid with role whose setup is complete, with TOTP
// when withTOTP, and returns them as an actor.
func (e *env) enrol(appid string, role access.Role, withTOTP bool) access.Actor {
	e.t.Helper()
	ctx := context.Background()
	email := string(role) + "-" + rand() + "@" + appid + ".test"
	_, token, err := access.NewTeam(e.accounts).Create(ctx, access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: appid, Email: email, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	_, enr, _, err := e.accounts.BeginSetup(ctx, token)
	if err != nil {
		e.t.Fatal(err)
	}
	s := access.Setup{Realm: access.RealmMerchant, Token: token, Password: "correct horse battery", Source: "127.0.0.1"}
	if withTOTP {
		code, err := totp.GenerateCodeCustom(enr.Secret, time.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			e.t.Fatal(err)
		}
		s.TOTPSecret, s.TOTPCode = enr.Secret, code
	}
	acct, _, err := e.accounts.CompleteSetup(ctx, s)
	if err != nil {
		e.t.Fatal(err)
	}
	return access.ActorOf(&access.Session{UserID: acct.ID, Realm: access.RealmMerchant, Role: role, AppID: appid, Email: email}, "198.51.100.7")
}

// ignore drops a use case's result but its error.
func ignore(_ any, err error) error { return err }

// who is a person of appid with role and TOTP enrolled, as every person
// who may rotate keys or move the callback must be.
func (e *env) who(appid string, role access.Role) access.Actor {
	e.t.Helper()
	return e.enrol(appid, role, true)
}

// TestSecretsNeedTOTP: an owner or developer without TOTP is refused every
// rotation and the callback change (ErrNeedsTOTP, nothing changes, no
// audit entry) and the Developers page's data says so; with TOTP the same
// person's role suffices.
func TestSecretsNeedTOTP(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	appid := e.sandbox.AppID
	if _, err := e.merchants.RotateKey(ctx, appid, time.Hour); err != nil { // so that the confirmation has something to confirm
		t.Fatal(err)
	}
	cases := []struct {
		name string
		do   func(w access.Actor) error
	}{
		{"rotate API key", func(w access.Actor) error { return ignore(e.svc.Keys.RotateAPIKey(ctx, w, -1)) }},
		{"rotate query key", func(w access.Actor) error { return ignore(e.svc.Keys.RotateQueryKey(ctx, w, -1)) }},
		{"rotate webhook secret", func(w access.Actor) error { return ignore(e.svc.Keys.RotateWebhookSecret(ctx, w, -1)) }},
		{"confirm webhook key", func(w access.Actor) error { return e.svc.Keys.ConfirmWebhookKey(ctx, w) }},
		{"callback", func(w access.Actor) error { return e.svc.Webhooks.SetCallback(ctx, w, "https://93.184.216.35/hook") }},
	}
	for _, r := range developers {
		weak := e.enrol(appid, r, false)
		c, err := e.svc.Keys.Credentials(ctx, weak)
		if err != nil || !c.NeedsTOTP {
			t.Fatalf("%s without TOTP: credentials %+v, %v; want NeedsTOTP", r, c, err)
		}
		for _, tc := range cases {
			t.Run(string(r)+" "+tc.name, func(t *testing.T) {
				before, n := e.fingerprint(), e.auditCount()
				err := tc.do(weak)
				if !errors.Is(err, ErrNeedsTOTP) || kindOf(err) != platform.KindForbidden {
					t.Fatalf("without TOTP: %v, want ErrNeedsTOTP", err)
				}
				if e.fingerprint() != before || e.auditCount() != n {
					t.Fatal("refused, but something changed")
				}
			})
		}
	}
	strong := e.who(appid, access.RoleDeveloper)
	if c, err := e.svc.Keys.Credentials(ctx, strong); err != nil || c.NeedsTOTP {
		t.Fatalf("with TOTP: credentials %+v, %v", c, err)
	}
	for _, tc := range cases {
		if err := tc.do(strong); err != nil {
			t.Fatalf("%s with TOTP: %v", tc.name, err)
		}
	}
	// A viewer may do neither: nothing to set up, nothing offered.
	if c, err := e.svc.Keys.Credentials(ctx, e.enrol(appid, access.RoleViewer, false)); err != nil || c.NeedsTOTP {
		t.Fatalf("viewer: credentials %+v, %v", c, err)
	}
}

// TestRequireTOTPNeedsYourOwn: an owner without TOTP may not require it of
// everyone (the rule would end their own session at once) and the roster
// says so for the page; one with TOTP may.
func TestRequireTOTPNeedsYourOwn(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	appid := e.shop.AppID
	weak, strong := e.enrol(appid, access.RoleOwner, false), e.enrol(appid, access.RoleOwner, true)
	if err := e.svc.Team.RequireTOTP(ctx, weak, true); !errors.Is(err, ErrRequireTOTPFirst) {
		t.Fatalf("an owner without TOTP required it of everyone: %v", err)
	}
	if r, err := e.svc.Team.Roster(ctx, weak); err != nil || r.ViewerTOTP || r.RequireTOTP {
		t.Fatalf("roster for the owner without TOTP %+v, %v", r, err)
	}
	if err := e.svc.Team.RequireTOTP(ctx, strong, true); err != nil {
		t.Fatalf("an owner with TOTP: %v", err)
	}
	if r, err := e.svc.Team.Roster(ctx, strong); err != nil || !r.ViewerTOTP || !r.RequireTOTP {
		t.Fatalf("roster for the owner with TOTP %+v, %v", r, err)
	}
}
