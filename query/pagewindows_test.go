package query

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestPageWindows: pages whose orders span the windows Page looks in
// (the last hour holds 20 orders, four hours 80, sixteen all 200), first
// pages asked of each window directly and deeper ones counted first, with
// and without a filter on a method most orders got in a second version.
// Each page must be exactly the newest-first slice of the matching orders.
// It fails when a short page of a small window is taken for the page (the
// first window's 20 orders for page 1 of 50), and when a window's count or
// page is off by one.
func TestPageWindows(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c := NewClickHouseOrders(ch)
	c.now = func() time.Time { return now }
	appid := fmt.Sprintf("pagewin%d", time.Now().UnixNano())

	var all, walletA []string // newest first
	b, err := ch.PrepareBatch(ctx, "INSERT INTO orders ("+strings.Join(schema.OrderColumns, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		at := now.Add(-time.Duration(i)*3*time.Minute - time.Second)
		o := schema.Order{ID: schema.NewOrderID(at, schema.Shard(i%schema.NumShards)), AppID: appid, Amount: 100,
			Currency: "USD", Method: schema.MethodSelect, Status: schema.StatusReady, CreatedAt: at, UpdatedAt: at, Version: 1}
		if err := b.Append(schema.OrderRow(&o, at)...); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 { // chosen later: only the second version matches the filter
			o.Method, o.Version, o.UpdatedAt = schema.MethodWalletA, 2, at.Add(time.Second)
			if err := b.Append(schema.OrderRow(&o, o.UpdatedAt)...); err != nil {
				t.Fatal(err)
			}
			walletA = append(walletA, o.ID)
		}
		all = append(all, o.ID)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	slice := func(ids []string, page, limit int) []string {
		lo, hi := min((page-1)*limit, len(ids)), min(page*limit, len(ids))
		return ids[lo:hi]
	}
	tests := []struct {
		name        string
		method      schema.Method
		page, limit int
		from        []string
	}{
		{"page 1 of 50: past the last hour's 20", "", 1, 50, all},
		{"page 1 of 20: the last hour exactly", "", 1, 20, all},
		{"page 1 of 21: one past the last hour", "", 1, 21, all},
		{"page 2 of 50: past four hours' 80", "", 2, 50, all},
		{"page 4 of 50: the oldest", "", 4, 50, all},
		{"page 5 of 50: past the end", "", 5, 50, all},
		{"page 11 of 50: counted first, past the end", "", 11, 50, all},
		{"page 1 of 10 paid with wallet_a", schema.MethodWalletA, 1, 10, walletA},
		{"page 2 of 10 with wallet_a: past four hours", schema.MethodWalletA, 2, 10, walletA},
		{"page 1 of 50 with wallet_a: all of them", schema.MethodWalletA, 1, 50, walletA},
		{"page 20 of 30: counted first", "", 20, 30, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Page(ctx, Filter{AppID: appid, Page: tt.page, Limit: tt.limit, Method: tt.method})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, o := range got {
				ids = append(ids, o.ID)
			}
			want := slice(tt.from, tt.page, tt.limit)
			if fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Fatalf("page %d of %d: %d orders\n%v\nwant %d\n%v", tt.page, tt.limit, len(ids), ids, len(want), want)
			}
		})
	}
}
