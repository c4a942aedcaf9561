package access

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSessionTimeouts: a session ends when idle past the idle time-out, and
// at the absolute time-out however busy; in between every use keeps it.
func TestSessionTimeouts(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	ctx := context.Background()
	t.Run("idle", func(t *testing.T) {
		s, err := e.login(u, goodPassword, "", ip1)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.add(29 * time.Minute)
		if _, err := e.a.Session(ctx, s.ID); err != nil {
			t.Fatalf("used after 29 min: %v", err)
		}
		e.clock.add(30*time.Minute + time.Second)
		if _, err := e.a.Session(ctx, s.ID); !errors.Is(err, ErrNoSession) {
			t.Fatalf("idle 30 min 1 s: %v, want no session", err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		s, err := e.login(u, goodPassword, "", ip1)
		if err != nil {
			t.Fatal(err)
		}
		for elapsed := time.Duration(0); elapsed < 12*time.Hour-20*time.Minute; elapsed += 20 * time.Minute {
			e.clock.add(20 * time.Minute)
			got, err := e.a.Session(ctx, s.ID)
			if err != nil {
				t.Fatalf("in use at %v: %v", elapsed+20*time.Minute, err)
			}
			if got.UserID != u.acct.ID || got.Role != RoleOwner || got.AppID != e.shop || got.Realm != RealmMerchant {
				t.Fatalf("session %+v", got)
			}
		}
		e.clock.add(21 * time.Minute) // 12 h 1 min after login, last used 21 min ago
		if _, err := e.a.Session(ctx, s.ID); !errors.Is(err, ErrNoSession) {
			t.Fatalf("past 12 h: %v, want no session", err)
		}
	})
}

// TestSessionFixation: the id a browser came with is ended at login and a
// new one issued; the old id is useless afterwards, whoever planted it.
func TestSessionFixation(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	ctx := context.Background()
	planted, err := e.login(u, goodPassword, "", ip1)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: u.acct.Email, Password: goodPassword, IP: ip1, OldSession: planted.ID})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ID == planted.ID || len(fresh.ID) != tokenLen { // secaudit:not-secret: the test's own two ids
		t.Fatalf("login kept the session id %q", fresh.ID)
	}
	if _, err := e.a.Session(ctx, planted.ID); !errors.Is(err, ErrNoSession) {
		t.Fatalf("the session id from before the login still works: %v", err)
	}
	got, err := e.a.Session(ctx, fresh.ID)
	if err != nil {
		t.Fatalf("the new session: %v", err)
	}
	if !got.CheckCSRF(fresh.CSRF) || got.CheckCSRF(planted.CSRF) || got.CheckCSRF("") {
		t.Fatal("the form token check")
	}
	if n := e.rdb.SCard(ctx, sessionsKey(u.acct.ID)).Val(); n != 1 {
		t.Fatalf("%d sessions listed for the account, want 1", n)
	}
}

// TestLogoutEverywhere: one logout ends one session; log out everywhere
// ends them all; disabling an account or a new password ends them too.
func TestLogoutEverywhere(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	ctx := context.Background()
	open := func(n int) []*Session {
		var out []*Session
		for range n {
			s, err := e.login(u, goodPassword, "", ip1)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	alive := func(s *Session) bool { _, err := e.a.Session(ctx, s.ID); return err == nil }
	ss := open(3)
	if err := e.a.Logout(ctx, ss[0], "192.0.2.1", false); err != nil {
		t.Fatal(err)
	}
	if alive(ss[0]) || !alive(ss[1]) || !alive(ss[2]) {
		t.Fatal("a single logout ended the wrong sessions")
	}
	if err := e.a.Logout(ctx, ss[1], "192.0.2.1", true); err != nil {
		t.Fatal(err)
	}
	if alive(ss[1]) || alive(ss[2]) {
		t.Fatal("log out everywhere left a session")
	}
	ss = open(2)
	if err := NewTeam(e.a).SetDisabled(ctx, CLI(), u.acct.ID, true); err != nil {
		t.Fatal(err)
	}
	if alive(ss[0]) || alive(ss[1]) {
		t.Fatal("a disabled account's session works")
	}
	_, err := e.login(u, goodPassword, "", ip1)
	wantBadLogin(t, err, ErrWrongPassword)
	if err := NewTeam(e.a).SetDisabled(ctx, CLI(), u.acct.ID, false); err != nil {
		t.Fatal(err)
	}
	ss = open(1)
	token, err := NewTeam(e.a).Reissue(ctx, CLI(), u.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.a.CompleteSetup(ctx, Setup{Realm: u.acct.Realm, Token: token, Password: "a new password here"}); err != nil {
		t.Fatal(err)
	}
	if alive(ss[0]) {
		t.Fatal("a session from before a password reset works")
	}
	if err := e.a.RevokeAll(ctx, CLI(), u.acct.ID); err != nil {
		t.Fatal(err)
	}
}

// TestRoleChangeAndRealms: a role change shows in the next check of a live
// session; a session of one realm has no permission in the other.
func TestRoleChangeAndRealms(t *testing.T) {
	e := newEnv(t, generousLimits)
	u := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, false)
	op := e.mkUser(t, RealmOperator, "admin@ops.test", RoleAdmin, true)
	ctx := context.Background()
	s, err := e.login(u, goodPassword, "", ip1)
	if err != nil {
		t.Fatal(err)
	}
	if Can(s, RealmMerchant, PermOrdersRefund) || !Can(s, RealmMerchant, PermKeysRotate) {
		t.Fatal("developer permissions")
	}
	if err := NewTeam(e.a).SetRole(ctx, CLI(), u.acct.ID, RoleFinance); err != nil {
		t.Fatal(err)
	}
	if s, err = e.a.Session(ctx, s.ID); err != nil || s.Role != RoleFinance || !Can(s, RealmMerchant, PermOrdersRefund) {
		t.Fatalf("after the role change: %+v, %v", s, err)
	}
	if err := NewTeam(e.a).SetRole(ctx, CLI(), u.acct.ID, RoleAdmin); err == nil {
		t.Fatal("a merchant user was given an operator role")
	}
	os, err := e.login(op, goodPassword, e.code(t, op.secret, 0), ip1)
	if err != nil {
		t.Fatal(err)
	}
	if Can(os, RealmMerchant, PermOrdersRead) || Can(s, RealmOperator, PermMerchantsRead) || !Can(os, RealmOperator, PermUSDTReview) {
		t.Fatal("a session works in the other realm's console")
	}
}
