package query

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestMethodsSince: every merchant's orders of the range counted once each
// by their latest method (a select order counts under the method the payer
// chose), live and sandbox apart; older orders are not counted.
func TestMethodsSince(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	now := time.Now().UTC().Truncate(time.Second)
	mk := func(appid string, m schema.Method, sandbox bool, age time.Duration, v int64) schema.Order {
		at := now.Add(-age)
		return schema.Order{ID: schema.NewOrderID(at, 1), AppID: appid, Amount: 100, Currency: "USD", Method: m, Sandbox: sandbox,
			Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: v}
	}
	chosen := mk("a", schema.MethodSelect, false, time.Hour, 1)
	paid := chosen
	paid.Method, paid.Version, paid.Status = schema.MethodWalletA, 2, schema.StatusPaid
	rows := []schema.Order{chosen, paid, mk("a", schema.MethodCryptoPSP, true, 2*time.Hour, 1), mk("b", schema.MethodCryptoPSP, true, 3*time.Hour, 1),
		mk("b", schema.MethodCryptoPSP, false, time.Minute, 1), mk("b", schema.MethodWalletB, false, 48*time.Hour, 1)}
	b, err := ch.PrepareBatch(ctx, "INSERT INTO orders ("+strings.Join(schema.OrderColumns, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := b.Append(schema.OrderRow(&rows[i], rows[i].UpdatedAt)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	got, err := NewClickHouseOrders(ch).MethodsSince(ctx, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []MethodOrders{{"cryptopsp", false, 1}, {"cryptopsp", true, 2}, {"wallet_a", false, 1}}
	if len(got) != len(want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
