package query

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// mustListing is NewListing for a test.
func mustListing(t testing.TB, d ListingDeps) *Listing {
	t.Helper()
	l, err := NewListing(d)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// checkListingTotals draws n random listing filters per merchant (status,
// method, currency, from and to: none, on an hour, on a second or to the
// millisecond, equal at times) and checks that the total counted from the
// rollups equals ClickHouse's Count and the orders Redis holds. It returns
// how many were served from rollups; the caller requires some in the
// rounds that have rollups.
func checkListingTotals(t *testing.T, c *ClickHouseOrders, w *reportWorkload, appids []string, n int) (rolled int) {
	t.Helper()
	for _, a := range appids {
		for range n {
			f := randomListingFilter(w, a)
			want, err := c.Count(w.ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if truth := listingTruth(w, f); truth != want {
				t.Fatalf("%s: ClickHouse counts %d, Redis holds %d", describeFilter(f), want, truth)
			}
			got, ok, err := c.RollupCount(w.ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			rolled++
			if got != want {
				t.Fatalf("%s: %d from the rollups, Count %d", describeFilter(f), got, want)
			}
		}
	}
	return rolled
}

// randomListingFilter is a filter of the dimensions the rollups hold.
func randomListingFilter(w *reportWorkload, appid string) Filter {
	f := Filter{AppID: appid, Page: 1, Limit: 10}
	if st := w.rng.IntN(7); st < 5 {
		s := schema.Status(st)
		f.Status = &s
	}
	methods := []schema.Method{"", "", schema.MethodWalletA, schema.MethodWalletB, schema.MethodBDCard, schema.MethodSelect}
	f.Method = methods[w.rng.IntN(len(methods))]
	f.Currency = []string{"", "", "USD", "CNY", "BDT"}[w.rng.IntN(5)]
	f.From, f.To = randomBound(w), randomBound(w)
	switch {
	case f.From.IsZero() || f.To.IsZero():
	case w.rng.IntN(10) == 0:
		f.To = f.From // an empty range
	case f.To.Before(f.From):
		f.From, f.To = f.To, f.From
	}
	return f
}

// randomBound is no bound, or a time of the workload's 10 days (and a bit
// beyond) on an hour, on a second or to the millisecond.
func randomBound(w *reportWorkload) time.Time {
	if w.rng.IntN(4) == 0 {
		return time.Time{}
	}
	at := w.now.Add(time.Hour - time.Duration(w.rng.Int64N(int64(11*24*time.Hour))))
	switch w.rng.IntN(3) {
	case 0:
		return at.Truncate(time.Hour)
	case 1:
		return at.Truncate(time.Second)
	}
	return at.Truncate(time.Millisecond)
}

// listingTruth counts the orders f selects among the workload's, from
// Redis: created in [From, To) to the millisecond, status and method now.
func listingTruth(w *reportWorkload, f Filter) int {
	n := 0
	for _, id := range w.ids[f.AppID] {
		o := w.byID[id]
		ms := o.CreatedAt.UnixMilli()
		switch {
		case !f.From.IsZero() && ms < f.From.UnixMilli(), !f.To.IsZero() && ms >= f.To.UnixMilli():
		case f.Status != nil && o.Status != *f.Status:
		case f.Method != "" && o.Method != f.Method:
		case f.Currency != "" && o.Currency != f.Currency:
		default:
			n++
		}
	}
	return n
}

func describeFilter(f Filter) string {
	st := "any"
	if f.Status != nil {
		st = f.Status.String()
	}
	return fmt.Sprintf("merchant %s status %s method %q currency %q from %s to %s", f.AppID, st, f.Method, f.Currency,
		f.From.Format(time.RFC3339Nano), f.To.Format(time.RFC3339Nano))
}

// countingLister is a Lister whose Count says what it was asked.
type countingLister struct{ counts int }

func (l *countingLister) Page(context.Context, Filter) ([]schema.Order, error) { return nil, nil }
func (l *countingLister) Count(context.Context, Filter) (int, error) {
	l.counts++
	return 1, nil
}

// fakeTotals are Redis' counters: 2 orders, 3 in a status when covered.
type fakeTotals struct{ covered bool }

func (fakeTotals) Total(context.Context, string) (int, error) { return 2, nil }
func (t fakeTotals) StatusTotal(context.Context, string, schema.Status) (int, bool, error) {
	return 3, t.covered, nil
}

// fakeRollups count 4 of whatever they hold.
type fakeRollups struct{}

func (fakeRollups) RollupCount(_ context.Context, f Filter) (int, bool, error) {
	return 4, f.ClientOrderID == "" && f.CustomerEmail == "", nil
}

// TestListingTotalSources: a listing's total comes from the cheapest exact
// source: Redis' counters for an unfiltered or status-only listing, the
// rollups for other filters of what they hold, ClickHouse's count for a
// search. It fails when a source is skipped (each branch of total).
func TestListingTotalSources(t *testing.T) {
	paid := schema.StatusPaid
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		f       Filter
		covered bool
		rollups bool
		want    int
	}{
		{"unfiltered from the order counters", Filter{}, true, true, 2},
		{"status from the status counters", Filter{Status: &paid}, true, true, 3},
		{"status not covered: from the rollups", Filter{Status: &paid}, false, true, 4},
		{"method and currency from the rollups", Filter{Method: schema.MethodWalletB, Currency: "CNY"}, true, true, 4},
		{"a time range from the rollups", Filter{From: day, To: day.Add(time.Hour)}, true, true, 4},
		{"clientOrderId counted in ClickHouse", Filter{ClientOrderID: "A-1"}, true, true, 1},
		{"e-mail counted in ClickHouse", Filter{CustomerEmail: "a@b.c"}, true, true, 1},
		{"no rollups: counted in ClickHouse", Filter{Currency: "USD"}, true, false, 1},
		{"a refund state counted in ClickHouse", Filter{Refunded: RefundedPart}, true, true, 1},
		{"paid and refunded counted in ClickHouse", Filter{Status: &paid, Refunded: RefundedAll}, true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lister := &countingLister{}
			d := ListingDeps{Lister: lister, Totals: fakeTotals{covered: tt.covered}}
			if tt.rollups {
				d.Rollups = fakeRollups{}
			}
			tt.f.AppID = "m"
			got, _, err := mustListing(t, d).Page(context.Background(), tt.f)
			if err != nil || got != tt.want {
				t.Fatalf("total %d (%v), want %d", got, err, tt.want)
			}
			if counted := lister.counts > 0; counted != (tt.want == 1) {
				t.Fatalf("ClickHouse counted %d times", lister.counts)
			}
		})
	}
}
