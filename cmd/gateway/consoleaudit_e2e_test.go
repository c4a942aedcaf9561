package main

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
)

// TestConsoleAndCLIInOneAuditLog: the same change made from the console's
// use case (an admin operator enables a merchant) and from the CLI
// (`gateway merchant disable --reason`) lands in the one audit log, side by
// side, projected by `gateway serve` into ClickHouse where the console's
// audit page searches it; as do an FX rate set both ways, and an operator
// account made with `gateway operator add`.
func TestConsoleAndCLIInOneAuditLog(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	e.run("migrate")
	s := e.serve()
	defer s.stop(t)
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	var acct struct{ AppID string }
	e.cli(&acct, "merchant", "create", "--name", "Audit shop", "--json", "--by", "carol")
	e.cli(nil, "merchant", "disable", acct.AppID, "--reason", "chargeback spike", "--json", "--by", "carol")
	admin := access.Actor{ID: "op-1", Email: "ann@ops.test", Realm: audit.RealmOperator, Role: access.RoleAdmin, Source: "192.0.2.7"}
	if _, err := operator.NewMerchants(merchant.NewStore(rdb), audit.NewLog(rdb), dispatcher.NewDestinations(true)).SetDisabled(ctx, admin, acct.AppID, false, "spike explained"); err != nil {
		t.Fatal(err)
	}
	e.cli(nil, "fx", "set", "USDT", "CNY", "7.31", "--json", "--by", "carol")
	settings, err := cliSettings(rdb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := settings.SetRate(ctx, admin, "USDT", "CNY", "7.32", false); err != nil {
		t.Fatal(err)
	}
	var op struct{ SetupLink string }
	e.cli(&op, "operator", "add", "sam@ops.test", "--role", "support", "--json", "--by", "carol")
	if op.SetupLink == "" {
		t.Fatal("operator add printed no setup link")
	}

	ch, err := platform.OpenClickHouse(e.chDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	search := audit.NewSearcher(ch)
	var page *audit.Page
	testenv.Eventually(t, 30*time.Second, "the merchant's audit entries in ClickHouse", func() bool {
		page, err = search.Search(ctx, audit.Filter{Target: "merchant:" + acct.AppID})
		return err == nil && page.Total == 3
	})
	want := []struct{ realm, actor, action, reason string }{ // newest first
		{audit.RealmOperator, "op-1", "merchant.enable", "spike explained"},
		{audit.RealmCLI, "carol", "merchant.disable", "chargeback spike"},
		{audit.RealmCLI, "carol", "merchant.create", ""},
	}
	for i, w := range want {
		r := page.Rows[i]
		if r.Realm != w.realm || r.ActorID != w.actor || r.Action != w.action || r.Details["reason"] != w.reason || r.AppID != acct.AppID {
			t.Errorf("row %d: %+v, want %+v", i, r.Entry, w)
		}
	}
	testenv.Eventually(t, 30*time.Second, "both FX sets and the operator account in ClickHouse", func() bool {
		fxPage, err := search.Search(ctx, audit.Filter{Action: "fx.set", Target: "fx:USDT/CNY"})
		users, uerr := search.Search(ctx, audit.Filter{Action: "user.create", Actor: "carol"})
		return err == nil && uerr == nil && fxPage.Total == 2 && fxPage.Rows[0].Realm == audit.RealmOperator &&
			fxPage.Rows[0].Details["rate"] == "7.32" && fxPage.Rows[1].Realm == audit.RealmCLI && users.Total == 1
	})
}
