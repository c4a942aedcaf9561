package access

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
)

// TestConfirmTOTP: a fresh code of the person's own second factor confirms
// an action once; the code its login spent, the same code twice, a wrong
// code, a locked factor and a person without TOTP are refused.
func TestConfirmTOTP(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, nil)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, true)
	bare := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, false)
	if _, err := e.login(u, goodPassword, e.code(t, u.secret, 0), netip.MustParseAddr("192.0.2.1")); err != nil {
		t.Fatal(err)
	}
	refused := func(name string, err error, kind platform.Kind, cause error) {
		t.Helper()
		if platform.KindOf(err) != kind || cause != nil && !errors.Is(err, cause) {
			t.Fatalf("%s: %v, want %s", name, err, kind)
		}
	}
	refused("the login's code", e.a.ConfirmTOTP(ctx, u.acct.ID, e.code(t, u.secret, 0)), platform.KindInvalidParameter, ErrCodeReplayed)
	refused("a wrong code", e.a.ConfirmTOTP(ctx, u.acct.ID, "000000"), platform.KindInvalidParameter, ErrWrongCode)
	refused("no second factor", e.a.ConfirmTOTP(ctx, bare.acct.ID, "123456"), platform.KindForbidden, nil)
	e.clock.add(30 * time.Second)
	fresh := e.code(t, u.secret, 0)
	if err := e.a.ConfirmTOTP(ctx, u.acct.ID, fresh); err != nil {
		t.Fatalf("a fresh code: %v", err)
	}
	refused("the same code again", e.a.ConfirmTOTP(ctx, u.acct.ID, fresh), platform.KindInvalidParameter, ErrCodeReplayed)
	e.clock.add(30 * time.Second)
	e.rdb.HSet(ctx, userKey(u.acct.ID), "sfLocked", "1")
	refused("a locked factor", e.a.ConfirmTOTP(ctx, u.acct.ID, e.code(t, u.secret, 0)), platform.KindForbidden, ErrFactorLocked)
}
