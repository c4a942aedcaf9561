package query

import (
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
