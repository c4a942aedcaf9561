package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// putOrder writes an order hash in the gateway's layout, as the create
// script would, and returns its id.
func putOrder(t *testing.T, rdb redis.UniversalClient, appid string, st schema.Status) string {
	t.Helper()
	sh := schema.ShardFor(appid, "")
	o := schema.Order{ID: schema.NewOrderID(time.Now(), sh), AppID: appid, Amount: 150, Currency: "USD",
		Method: schema.MethodBalance, Status: st, Version: 1, NotifyURL: "http://127.0.0.1:1/hook"}
	if err := rdb.HSet(context.Background(), schema.OrderKey(sh, o.ID), o.Fields()).Err(); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// TestCollectAndAuditCatchALostOrder reads a real Redis the way a run
// does: a healthy state passes, and deleting one answered order's key (a
// lost write) fails the audit naming that order.
func TestCollectAndAuditCatchALostOrder(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.Redis(t)
	m := &Merchants{Shop: Account{AppID: "9001"}, Self: Account{AppID: "9002"}, XShop: Account{AppID: "9004"},
		Payer: Account{AppID: "9003"}, Credited: 1000}
	var creates []Create
	for range 3 {
		creates = append(creates, Create{AppID: m.Shop.AppID, PaymentID: putOrder(t, rdb, m.Shop.AppID, schema.StatusReady), HTTPStatus: 200})
	}
	paid := putOrder(t, rdb, m.Self.AppID, schema.StatusPaid) // a balance payment of 1.50
	creates = append(creates, Create{AppID: m.Self.AppID, PaymentID: paid, HTTPStatus: 200})
	sh, _ := schema.ParseOrderID(paid)
	rdb.HSet(ctx, schema.WebhookKey(sh, paid), "st", "delivered")
	rdb.HSet(ctx, schema.AccountsKey(m.Self.AppID), "available:USD", 850)
	rdb.HSet(ctx, schema.AccountsKey(m.Payer.AppID), "available:USD", 1000)
	src := Sources{Redis: rdb, M: m, Creates: creates, Received: map[string]Webhook{paid: {Acked: 1}}}

	audit := func() Figures {
		t.Helper()
		s, err := Collect(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		s.CheckCH = true // ClickHouse is not part of this test
		s.Rows = map[string]Row{}
		for id, o := range s.Orders {
			s.Rows[id] = Row{Rows: 1, Status: o.Status, Version: o.Version}
		}
		return Audit(s)
	}
	if f := audit(); !f.OK() || f.Answered != 4 || f.Paid != 1 || f.Webhooks != 1 {
		t.Fatalf("healthy state: %+v", f)
	}
	victim := creates[1].PaymentID
	vs, _ := schema.ParseOrderID(victim)
	rdb.Del(ctx, schema.OrderKey(vs, victim))
	f := audit()
	if len(f.Problems) != 1 || !strings.HasPrefix(f.Problems[0], "lost: "+victim) {
		t.Fatalf("after deleting %s: %q", victim, f.Problems)
	}
}
