package query

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestListingRefunded: the consoles' "Partially refunded" and "Refunded"
// filters list the paid orders by their latest refunded amount, counted
// exactly (not from the status counters or rollups, which do not hold it),
// and the export keeps the same orders.
func TestListingRefunded(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	const appid = "m_refunded"
	base := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	type version struct {
		st       schema.Status
		refunded schema.Amount
	}
	orders := []struct {
		name     string
		versions []version
	}{
		{"paid", []version{{schema.StatusReady, 0}, {schema.StatusPaid, 0}}},
		{"part", []version{{schema.StatusPaid, 0}, {schema.StatusPaid, 700}}},
		{"part then all", []version{{schema.StatusPaid, 700}, {schema.StatusPaid, 2550}}},
		{"all at once", []version{{schema.StatusPaid, 0}, {schema.StatusPaid, 2550}}},
		{"ready", []version{{schema.StatusReady, 0}}},
		{"failed", []version{{schema.StatusReady, 0}, {schema.StatusFailed, 0}}},
	}
	ids := map[string]string{}
	var rows []schema.Order
	for i, spec := range orders {
		at := base.Add(time.Duration(i) * time.Minute)
		id := schema.NewOrderID(at, schema.Shard(i%schema.NumShards))
		ids[spec.name] = id
		for v, ver := range spec.versions {
			rows = append(rows, schema.Order{ID: id, AppID: appid, Amount: 2550, Currency: "CNY", Method: schema.MethodWalletA,
				Status: ver.st, Refunded: ver.refunded, RefundReserved: ver.refunded, CreatedAt: at, UpdatedAt: at.Add(time.Duration(v) * time.Second),
				Version: int64(v + 1)})
		}
	}
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
	chOrders := NewClickHouseOrders(ch)
	chOrders.now = func() time.Time { return base.Add(time.Hour) }
	listing := mustListing(t, ListingDeps{Lister: chOrders, Totals: fakeTotals{covered: true}, Rollups: chOrders})
	paid := schema.StatusPaid
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"partially refunded", Filter{Refunded: RefundedPart}, []string{"part"}},
		{"refunded", Filter{Refunded: RefundedAll}, []string{"all at once", "part then all"}},
		{"refunded with the paid status", Filter{Status: &paid, Refunded: RefundedAll}, []string{"all at once", "part then all"}},
		{"refunded of a day", Filter{Refunded: RefundedAll, From: base, To: base.Add(24 * time.Hour)}, []string{"all at once", "part then all"}},
		{"paid: refunded or not", Filter{Status: &paid}, nil}, // the status counters' 3 (fakeTotals), not a refund count
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.AppID, f.Page, f.Limit = appid, 1, 50
			total, got, err := listing.Page(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if total != 3 {
					t.Errorf("paid total %d, want the counters' 3", total)
				}
				return
			}
			var names []string
			for _, o := range got {
				for name, id := range ids {
					if id == o.ID {
						names = append(names, name)
					}
				}
			}
			if !slices.Equal(names, tc.want) || total != len(tc.want) {
				t.Errorf("listed %v (total %d), want %v", names, total, tc.want)
			}
			first, rest, err := chOrders.Export(ctx, ReportFilter{AppID: appid, From: base, To: base.Add(time.Hour), Status: f.Status, Refunded: f.Refunded})
			if err != nil {
				t.Fatal(err)
			}
			n := len(first)
			if err := rest(func(*schema.Order) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			if n != len(tc.want) {
				t.Errorf("exported %d orders, want %d", n, len(tc.want))
			}
		})
	}
}
