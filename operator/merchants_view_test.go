package operator

import (
	"context"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// TestViewConsoleAudited: every operator role may look at a merchant's
// console and each look is one entry (actor, role, merchant, source,
// page); a merchant's own user is refused (403) and an unknown merchant
// is not found, neither logged.
func TestViewConsoleAudited(t *testing.T) {
	rdb := miniRedis(t)
	m := newMerchants(rdb)
	ctx := context.Background()
	a, err := m.st.Create(ctx, merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ViewConsole(ctx, mOwner, a.AppID, "orders"); !isKind(err, platform.KindForbidden) {
		t.Fatalf("merchant owner: %v", err)
	}
	if err := m.ViewConsole(ctx, opAdmin, "999999", "orders"); err == nil {
		t.Fatal("an unknown merchant was viewed")
	}
	if rows := auditRows(t, rdb); len(rows) != 0 {
		t.Fatalf("refusals logged %+v", rows)
	}
	for i, op := range []access.Actor{opAdmin, opSupport, opAuditor} {
		if err := m.ViewConsole(ctx, op, a.AppID, "order:P1"); err != nil {
			t.Fatalf("%s: %v", op.Role, err)
		}
		rows := auditRows(t, rdb)
		last := rows[len(rows)-1]
		if len(rows) != i+1 || last.Action != "merchant.console_view" || last.ActorEmail != op.Email || last.Role != string(op.Role) ||
			last.AppID != a.AppID || last.Target != "merchant:"+a.AppID || last.Source != op.Source || last.Details["via"] != "order:P1" {
			t.Fatalf("%s: %+v", op.Role, rows)
		}
	}
}
