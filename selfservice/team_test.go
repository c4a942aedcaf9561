package selfservice

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
)

// TestTeamKeepsAnOwner: an owner invites (a setup token back), changes
// roles and removes users; the last enabled owner can be neither demoted
// nor removed, and nobody removes themselves.
func TestTeamKeepsAnOwner(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	owner := e.user(e.shop.AppID, "owner@shop.test", access.RoleOwner)
	w := who(e.shop.AppID, access.RoleOwner)
	w.ID = owner.ID
	u, token, err := e.svc.Team.Invite(ctx, w, "Dev@Shop.test", access.RoleDeveloper)
	if err != nil || token == "" || u.Email != "dev@shop.test" || u.Role != access.RoleDeveloper {
		t.Fatalf("invite: %+v %q %v", u, token, err)
	}
	if _, _, err := e.svc.Team.Invite(ctx, w, "dev@shop.test", access.RoleViewer); kindOf(err) != platform.KindConflict {
		t.Fatalf("second invite of one address: %v", err)
	}
	for name, do := range map[string]func() error{
		"demote the last owner": func() error { return e.svc.Team.SetRole(ctx, w, owner.ID, access.RoleViewer) },
		"remove oneself":        func() error { return e.svc.Team.SetDisabled(ctx, w, owner.ID, true) },
	} {
		if err := do(); kindOf(err) != platform.KindConflict {
			t.Fatalf("%s: %v, want conflict", name, err)
		}
	}
	if err := e.svc.Team.SetRole(ctx, w, u.ID, access.RoleOwner); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Team.SetRole(ctx, w, owner.ID, access.RoleFinance); err != nil {
		t.Fatalf("demoting one of two owners: %v", err)
	}
	second := who(e.shop.AppID, access.RoleOwner)
	second.ID = u.ID
	if err := e.svc.Team.SetDisabled(ctx, second, owner.ID, true); err != nil {
		t.Fatal(err)
	}
	team, err := e.svc.Team.Roster(ctx, w)
	if err != nil || len(team.Users) != 2 || team.Users[0].ID != u.ID || !team.Users[1].Disabled {
		t.Fatalf("team %+v, %v", team, err)
	}
	if err := e.svc.Team.RequireTOTP(ctx, e.enrol(e.shop.AppID, access.RoleOwner, true), true); err != nil {
		t.Fatal(err)
	}
	if team, _ := e.svc.Team.Roster(ctx, w); !team.RequireTOTP {
		t.Fatal("TOTP not required after RequireTOTP")
	}
	if strings.Contains(strings.Join(e.auditStrings(), "\n"), token) {
		t.Fatal("the setup token is in the audit log")
	}
}

// TestAuditLogIsTheOwnersMerchantOnly: the owner's search and export hold
// its own merchant's entries whatever merchant the filter names, and the
// export is itself audited.
func TestAuditLogIsTheOwnersMerchantOnly(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	e.svc.AuditLog.searcher = audit.NewSearcher(ch)
	l := audit.NewLog(e.rdb)
	for i, appid := range []string{e.shop.AppID, e.other.AppID, e.other.AppID} {
		_, err := l.Append(ctx, audit.Entry{At: time.Now().Add(time.Duration(i) * time.Second), Realm: audit.RealmMerchant, ActorID: "u",
			Action: "order.refund", Target: "order:" + appid, AppID: appid, Source: "198.51.100.1"})
		if err != nil {
			t.Fatal(err)
		}
	}
	project(t, e, ch, 3)
	w := who(e.shop.AppID, access.RoleOwner)
	page, err := e.svc.AuditLog.Search(ctx, w, audit.Filter{AppID: e.other.AppID})
	if err != nil || page.Total != 1 || len(page.Rows) != 1 || page.Rows[0].AppID != e.shop.AppID {
		t.Fatalf("search naming another merchant: %+v, %v", page, err)
	}
	var csv bytes.Buffer
	write, err := e.svc.AuditLog.Export(ctx, w, audit.Filter{AppID: e.other.AppID})
	if err != nil {
		t.Fatal(err)
	}
	if err := write(ctx, &csv); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), "order:"+e.other.AppID) || !strings.Contains(csv.String(), "order:"+e.shop.AppID) {
		t.Fatalf("export:\n%s", csv.String())
	}
	if len(e.auditOf("audit.export")) != 1 {
		t.Fatal("the export was not audited")
	}
}
