package access

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// wrongCodes logs u in n times with the right password and a wrong code.
func (e *env) wrongCodes(t *testing.T, u *user, n int) {
	t.Helper()
	for range n {
		_, err := e.login(u, goodPassword, "000000", ip1)
		if !errors.Is(err, ErrWrongCode) && !errors.Is(err, ErrFactorLocked) {
			t.Fatalf("a wrong code: %v", err)
		}
	}
}

// rightCode logs u in with the code of the next step; the error, if any.
func (e *env) rightCode(t *testing.T, u *user) error {
	t.Helper()
	e.clock.add(30 * time.Second)
	_, err := e.login(u, goodPassword, e.code(t, u.secret, 0), ip1)
	return err
}

// auditEntries are the access stream's entries of action.
func (e *env) auditEntries(t *testing.T, action string) []redis.XMessage {
	t.Helper()
	msgs, err := e.rdb.XRange(context.Background(), schema.AuditKey(schema.AccessTag), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []redis.XMessage
	for _, m := range msgs {
		if m.Values["action"] == action {
			out = append(out, m)
		}
	}
	return out
}

func (e *env) locked(t *testing.T, u *user) bool {
	t.Helper()
	acct, err := e.a.Get(context.Background(), u.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return acct.SecondFactorLocked
}

// TestSecondFactorLocksAfterTenWrongCodes: ten wrong codes after the right
// password lock TOTP: the right code is refused, a recovery code gets in
// and clears the lock; the lock is audited as the account's own doing.
func TestSecondFactorLocksAfterTenWrongCodes(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	u := e.mkUser(t, RealmMerchant, "finance@shop.test", RoleFinance, true)
	e.wrongCodes(t, u, 9)
	if e.locked(t, u) {
		t.Fatal("locked after 9 wrong codes")
	}
	e.wrongCodes(t, u, 1)
	if !e.locked(t, u) {
		t.Fatal("not locked after 10 wrong codes")
	}
	if n, err := e.a.SecondFactorLocks(ctx, RealmMerchant, e.shop); err != nil || n != 1 {
		t.Fatalf("locks of the merchant: %d, %v; want 1", n, err)
	}
	err := e.rightCode(t, u)
	wantBadLogin(t, err, ErrFactorLocked)
	locks := e.auditEntries(t, "account.second_factor_locked")
	if len(locks) != 1 || locks[0].Values["actor"] != u.acct.ID || locks[0].Values["realm"] != "merchant" ||
		locks[0].Values["appid"] != e.shop || locks[0].Values["target"] != "user:"+u.acct.ID {
		t.Fatalf("lock entries %v, want one by the account itself", locks)
	}
	if _, err := e.login(u, goodPassword, u.recovery[0], ip1); err != nil {
		t.Fatalf("a recovery code on a locked account: %v", err)
	}
	if e.locked(t, u) {
		t.Fatal("still locked after a recovery code")
	}
	if n, _ := e.a.SecondFactorLocks(ctx, RealmMerchant, e.shop); n != 0 {
		t.Fatalf("locks of the merchant after the recovery code: %d", n)
	}
	if err := e.rightCode(t, u); err != nil {
		t.Fatalf("TOTP after the recovery code: %v", err)
	}
}

// TestSecondFactorSuccessResetsTheCount: the limit counts failures in a
// row; a login in between starts the count over.
func TestSecondFactorSuccessResetsTheCount(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, true)
	e.wrongCodes(t, u, 9)
	if err := e.rightCode(t, u); err != nil {
		t.Fatal(err)
	}
	e.wrongCodes(t, u, 9)
	if e.locked(t, u) {
		t.Fatal("locked after 9 + 9 wrong codes with a login in between")
	}
	if err := e.rightCode(t, u); err != nil {
		t.Fatalf("the right code after 9 + 9: %v", err)
	}
	// A wrong password is not a second-factor failure.
	for range 12 {
		_, _ = e.login(u, "not the password", "000000", ip1)
	}
	if e.locked(t, u) {
		t.Fatal("wrong passwords locked the second factor")
	}
}

// TestUnlockSecondFactor: an owner unlocks a user of its merchant, an admin
// an operator; nobody else may; each unlock is audited.
func TestUnlockSecondFactor(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	owner := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, true)
	dev := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, true)
	viewer := e.mkUser(t, RealmMerchant, "viewer@shop.test", RoleViewer, true)
	admin := e.mkUser(t, RealmOperator, "admin@ops.test", RoleAdmin, true)
	support := e.mkUser(t, RealmOperator, "support@ops.test", RoleSupport, true)
	as := func(u *user) Actor {
		return Actor{ID: u.acct.ID, Email: u.acct.Email, Realm: string(u.acct.Realm), Role: u.acct.Role, AppID: u.acct.AppID, Source: "192.0.2.1"}
	}
	for _, tc := range []struct {
		name   string
		by     Actor
		locked *user
		ok     bool
	}{
		{"a developer unlocks a colleague", as(dev), viewer, false},
		{"support unlocks an operator", as(support), admin, false},
		{"an owner unlocks a user", as(owner), viewer, true},
		{"an admin unlocks an operator", as(admin), support, true},
		{"the CLI unlocks an operator", CLI(), admin, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !e.locked(t, tc.locked) {
				e.wrongCodes(t, tc.locked, 10)
			}
			before := len(e.auditEntries(t, "user.unlock_second_factor"))
			err := NewTeam(e.a).UnlockSecondFactor(ctx, tc.by, tc.locked.acct.ID)
			if (err == nil) != tc.ok {
				t.Fatalf("unlock: %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				if !errors.Is(err, ErrForbidden) || !e.locked(t, tc.locked) {
					t.Fatalf("refused unlock: %v, or the account was unlocked", err)
				}
				return
			}
			if e.locked(t, tc.locked) || len(e.auditEntries(t, "user.unlock_second_factor")) != before+1 {
				t.Fatal("not unlocked, or no audit entry")
			}
			if err := e.rightCode(t, tc.locked); err != nil {
				t.Fatalf("TOTP after the unlock: %v", err)
			}
			if err := NewTeam(e.a).UnlockSecondFactor(ctx, tc.by, tc.locked.acct.ID); !errors.Is(err, ErrNotLocked) {
				t.Fatalf("unlocking an unlocked account: %v", err)
			}
		})
	}
	if n, _ := e.a.SecondFactorLocks(ctx, RealmOperator, ""); n != 0 {
		t.Fatalf("operator locks left: %d", n)
	}
}

// TestNewSetupClearsTheLock: completing a new setup link (the
// lost-authenticator path) clears the lock.
func TestNewSetupClearsTheLock(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	u := e.mkUser(t, RealmOperator, "aud@ops.test", RoleAuditor, true)
	e.wrongCodes(t, u, 10)
	token, err := NewTeam(e.a).Reissue(ctx, CLI(), u.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, enr, _, err := e.a.BeginSetup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmOperator, Token: token, Password: goodPassword, TOTPSecret: enr.Secret,
		TOTPCode: e.code(t, enr.Secret, 0)}); err != nil {
		t.Fatal(err)
	}
	u.secret = enr.Secret
	if e.locked(t, u) {
		t.Fatal("still locked after a new setup")
	}
	if n, _ := e.a.SecondFactorLocks(ctx, RealmOperator, ""); n != 0 {
		t.Fatalf("operator locks after the new setup: %d", n)
	}
	if err := e.rightCode(t, u); err != nil {
		t.Fatal(err)
	}
}

// TestLoginScriptRefusesALockedTOTP: the lock checked in the login script
// too, where the step is spent: a code checked before the lock came is
// refused when the lock is there by the time the script runs.
func TestLoginScriptRefusesALockedTOTP(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	u := e.mkUser(t, RealmMerchant, "late@shop.test", RoleViewer, true)
	acct, h, err := e.a.checkPassword(ctx, RealmMerchant, u.acct.Email, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	factor, value, err := e.a.secondFactor(ctx, acct, h["totp"], false, e.code(t, u.secret, 0))
	if err != nil {
		t.Fatal(err)
	}
	e.wrongCodes(t, u, 10) // the lock comes between the check and the script
	_, err = e.a.open(ctx, LoginRequest{Realm: RealmMerchant, Email: u.acct.Email, IP: ip1}, acct, h["pwVer"], factor, value)
	wantBadLogin(t, err, ErrFactorLocked)
}

// TestLockedSecondFactorTakesRecoveryCodesOnly: the check before the
// script, which spares a locked account the password's step being spent.
func TestLockedSecondFactorTakesRecoveryCodesOnly(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	u := e.mkUser(t, RealmMerchant, "check@shop.test", RoleViewer, true)
	if _, _, err := e.a.secondFactor(ctx, u.acct, u.secret, true, e.code(t, u.secret, 0)); !errors.Is(err, ErrFactorLocked) {
		t.Fatalf("the right TOTP code of a locked account: %v", err)
	}
	if f, _, err := e.a.secondFactor(ctx, u.acct, u.secret, true, u.recovery[0]); err != nil || f != "recovery" {
		t.Fatalf("a recovery code of a locked account: %q, %v", f, err)
	}
}
