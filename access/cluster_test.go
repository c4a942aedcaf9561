package access

import (
	"context"
	"errors"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestAccountsOnRedisCluster: every account script (create, setup, login,
// session check, policy, role change, logout everywhere, revoke) runs on
// Redis Cluster, its audit entry beside it.
func TestAccountsOnRedisCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	e := newEnvOn(t, rdb, rdb, generousLimits)
	ctx := context.Background()
	owner := e.mkUser(t, RealmMerchant, "owner@cluster.test", RoleOwner, true)
	op := e.mkUser(t, RealmOperator, "admin@cluster.test", RoleAdmin, true)
	s, err := e.login(owner, goodPassword, e.code(t, owner.secret, 0), ip1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := e.a.Login(ctx, LoginRequest{Realm: RealmMerchant, Email: owner.acct.Email, Password: goodPassword, Code: owner.recovery[0], IP: ip1, OldSession: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Session(ctx, s.ID); !errors.Is(err, ErrNoSession) {
		t.Fatalf("old session: %v", err)
	}
	if _, err := e.a.Session(ctx, s2.ID); err != nil {
		t.Fatal(err)
	}
	if err := NewTeam(e.a).RequireTOTP(ctx, ActorOf(s2, "192.0.2.1"), e.shop, true); err != nil {
		t.Fatal(err)
	}
	if err := NewTeam(e.a).SetRole(ctx, CLI(), op.acct.ID, RoleSupport); err != nil {
		t.Fatal(err)
	}
	if err := e.a.RevokeAll(ctx, CLI(), op.acct.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.a.Logout(ctx, s2, "192.0.2.1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Session(ctx, s2.ID); !errors.Is(err, ErrNoSession) {
		t.Fatalf("after log out everywhere: %v", err)
	}
	if n := rdb.XLen(ctx, schema.AuditKey(schema.AccessTag)).Val(); n < 9 {
		t.Fatalf("%d audit entries on the {access} stream", n)
	}
}
