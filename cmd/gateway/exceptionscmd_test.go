package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestExceptionsCLI: `gateway exceptions list` shows the queue the console
// shows; `handle` with a note takes one off it, recorded in the audit log
// as the CLI's; a handle without a note changes nothing.
func TestExceptionsCLI(t *testing.T) {
	rdb := testenv.Redis(t)
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURLFor(rdb)}
	ctx := context.Background()
	now := time.Now()
	store := command.NewStore(rdb, time.Hour, time.Hour)
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: "1001", Sandbox: true, Amount: 100_00, Currency: "USD",
		Method: schema.MethodWalletA, Status: schema.StatusReady, CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	shard, _ := schema.ParseOrderID(o.ID)
	rec, _ := json.Marshal(schema.NotificationRecord{At: now, Provider: "wallet_a", OrderID: o.ID, Outcome: "partial", Verdict: schema.VerdictPartial})
	rdb.LPush(ctx, schema.NotificationsKey(shard, o.ID), rec)
	rdb.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(now.UnixMilli()), Member: o.ID})
	var list []struct{ Kind, ID, OrderID, AppID string }
	e.cli(&list, "exceptions", "list", "--json")
	if len(list) != 1 || list[0].Kind != schema.ExceptionMismatch || list[0].ID != o.ID || list[0].AppID != "1001" {
		t.Fatalf("exceptions list: %+v", list)
	}
	if msg := e.refused("exceptions", "handle", "mismatch", o.ID, "--by", "dora"); msg == "" {
		t.Fatal("a handle without a note was accepted")
	}
	e.cli(nil, "exceptions", "handle", "mismatch", o.ID, "--note", "partial refunded by the provider", "--by", "dora", "--json")
	list = nil
	e.cli(&list, "exceptions", "list", "--json")
	if len(list) != 0 {
		t.Fatalf("after handle: %+v", list)
	}
	rows, err := audit.Read(ctx, rdb, schema.AuditKey(shard.Tag()), 10)
	if err != nil || len(rows) != 1 || rows[0].Realm != audit.RealmCLI || rows[0].ActorID != "dora" || rows[0].Action != "exception.handle" {
		t.Fatalf("audit: %+v %v", rows, err)
	}
}
