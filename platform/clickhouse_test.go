package platform

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestMigrate runs the embedded migrations on the real ClickHouse twice (the
// second run applies nothing) and round-trips an order row through the table.
func TestMigrate(t *testing.T) {
	dsn := testenv.ClickHouseDSN(t)
	ctx := context.Background()
	applied, err := Migrate(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := schema.Migrations()
	if len(applied) != len(all) {
		t.Fatalf("applied %v, want all %d", applied, len(all))
	}
	again, err := Migrate(ctx, dsn)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v, %v", again, err)
	}
	conn, err := OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	at := time.Date(2026, 11, 21, 22, 33, 20, 123e6, time.UTC)
	o := schema.Order{ID: schema.NewOrderID(at, 1), AppID: "1001", Amount: 100_50, Currency: "CNY",
		Method: schema.MethodWalletA, Status: schema.StatusPaid, Description: "订单 café", CreatedAt: at,
		UpdatedAt: at, CompletedAt: at.Add(time.Second), Version: 2, Sandbox: true}
	b, err := conn.PrepareBatch(ctx, "INSERT INTO orders ("+strings.Join(schema.OrderColumns, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(schema.OrderRow(&o, at)...); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	row := conn.QueryRow(ctx, "SELECT "+schema.OrderSelect+" FROM orders FINAL WHERE appid = ? AND id = ?", "1001", o.ID)
	got, err := schema.ScanOrder(row)
	if err != nil {
		t.Fatal(err)
	}
	if got != o {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, o)
	}
}
