package query

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestReportsExact drives a random workload (creates, clientOrderId
// replays, ready, pays and late pays, fails, cancels, expiries, method
// choices, partial and full refunds) through the command side's scripts,
// projects it with a projector killed between insert and acknowledgement
// (so some versions are in ClickHouse twice), and checks every summary
// figure, every time-series bucket and every export row against what is
// computed here from the orders Redis holds, for each merchant and filter.
func TestReportsExact(t *testing.T) {
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	checkReportsExact(t, testenv.Redis(t), ch)
}

// TestReportsExactOverClickHouseCluster is the same on the cluster of
// `make test-cluster`, through the Distributed table.
func TestReportsExactOverClickHouseCluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	ctx := context.Background()
	if _, err := platform.MigrateCluster(ctx, c.DSN(0), c.Name); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouseCluster(c.DSN(0), c.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	checkReportsExact(t, testenv.Redis(t), ch)
}

func checkReportsExact(t *testing.T, rdb redis.UniversalClient, ch driver.Conn) {
	accounts := accountsFor(t, rdb, 3)
	appids := []string{accounts[0].AppID, accounts[1].AppID, accounts[2].AppID}
	w := newReportWorkload(t, rdb, uint64(time.Now().UnixNano()))
	w.steps(appids, 300)
	projectWithKill(t, rdb, ch, w, appids)
	w.truth()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	chOrders := NewClickHouseOrders(ch)
	app := serveOrders(t, merchant.NewDirectory(merchant.NewStore(rdb), log, time.Millisecond),
		Sources{Live: NewRedisOrders(rdb), Archive: chOrders, Listing: mustListing(t, ListingDeps{Lister: chOrders, Rollups: chOrders}), Reports: chOrders}, log)
	// Four rounds: every hour folded live (no rollups yet); then most
	// hours from rollups; then, after more changes to old orders, the hours
	// they touched live again beside the rollups of the others; then all
	// from rollups again, the touched hours folded a second time. Each
	// round also checks the listing's totals counted from the rollups
	// against ClickHouse's Count.
	round := func(rollups bool) {
		t.Helper()
		checkAllReports(t, app, accounts, w)
		n := checkListingTotals(t, chOrders, w, appids, 60)
		if rollups && n == 0 {
			t.Fatal("no listing total was counted from the rollups")
		}
		t.Logf("%d of %d listing totals counted from the rollups, each equal to Count", n, 60*len(appids))
	}
	round(false)
	if n := rollUp(t, ch); n == 0 {
		t.Fatal("the rollup job folded no hour")
	}
	if clean, _ := rollupHours(t, ch, appids); clean == 0 {
		t.Fatal("no hour is served from a rollup")
	}
	round(true)
	w.steps(appids, 200)
	projectMore(t, rdb, ch, w)
	clean, stale := rollupHours(t, ch, appids)
	if clean == 0 || stale == 0 {
		t.Fatalf("after more changes %d hours clean, %d stale: the test needs both", clean, stale)
	}
	t.Logf("after more changes: %d merchant hours from rollups, %d folded live again", clean, stale)
	requireMixedPlan(t, chOrders, appids, w)
	round(true)
	// The job folds the re-marked hours again: two rollups of each, the
	// newer one read.
	if n := rollUp(t, ch); n == 0 {
		t.Fatal("the rollup job folded no re-marked hour")
	}
	if _, stale := rollupHours(t, ch, appids); stale != 0 {
		t.Fatalf("%d hours still stale after the job ran again", stale)
	}
	round(true)
}

// checkAllReports checks every summary, export and time series of the
// accounts against the workload's truth.
func checkAllReports(t *testing.T, app *testApp, accounts []*merchant.Account, w *reportWorkload) {
	t.Helper()
	from, to := wire(w.now.Add(-11*24*time.Hour)), wire(w.now.Add(time.Minute))
	mid := wire(w.now.Add(-4*24*time.Hour - 1234*time.Millisecond)) // not on a second
	ranges := [][2]string{{from, to}, {from, mid}, {mid, to}}
	filters := []string{"", "&paymentMethod=wallet_a", "&paymentMethod=wallet_b", "&paymentMethod=select",
		"&currency=USD", "&status=paid", "&paymentMethod=bdcard&currency=USD"}
	// The merchants' reports are independent reads of a settled workload:
	// checked side by side, each in its own subtest, all done before the
	// caller changes anything.
	ok := t.Run("reports", func(t *testing.T) {
		for _, a := range accounts {
			t.Run(a.AppID, func(t *testing.T) {
				t.Parallel()
				checkMerchantReports(t, &reporter{t: t, app: app, acct: a, w: w}, ranges, filters)
			})
		}
	})
	if !ok {
		t.FailNow()
	}
}

func checkMerchantReports(t *testing.T, r *reporter, ranges [][2]string, filters []string) {
	t.Helper()
	for _, rg := range ranges {
		for _, fl := range filters {
			r.checkSummary(rg, fl)
			r.checkExport(rg, fl, fl == "&status=paid")
		}
	}
	for _, ts := range []string{"interval=day&groupBy=paymentMethod&tz=Asia/Kolkata", "interval=hour&groupBy=status",
		"interval=week&groupBy=currency&tz=America/New_York", "interval=month&groupBy=status&tz=Asia/Kathmandu",
		"interval=day&groupBy=currency&paymentMethod=wallet_a", "interval=day&groupBy=status&tz=Europe/Berlin&status=paid"} {
		r.checkSeries(ranges[0], ts)
		r.checkSeries(ranges[2], ts)
	}
}

func wire(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type reporter struct {
	t    *testing.T
	app  *testApp
	acct *merchant.Account
	w    *reportWorkload
}

func (r *reporter) get(params string, gz bool) (int, []byte) {
	r.t.Helper()
	q := url.Values{"appid": {r.acct.AppID}, "key": {r.acct.QueryKey}}
	req := httptest.NewRequest("GET", "/api/order?"+q.Encode()+"&"+params, nil)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	res, err := r.app.Test(req, 30_000)
	if err != nil {
		r.t.Fatal(err)
	}
	var body io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		if body, err = gzip.NewReader(res.Body); err != nil {
			r.t.Fatal(err)
		}
	} else if gz && res.StatusCode == 200 {
		r.t.Fatalf("%s: asked for gzip, got %q", params, res.Header.Get("Content-Encoding"))
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		r.t.Fatal(err)
	}
	return res.StatusCode, raw
}

// selected is the merchant's orders the range and filter params select,
// computed from Redis' orders: newest first.
func (r *reporter) selected(rg [2]string, params string) []*schema.Order {
	q, _ := url.ParseQuery(strings.TrimPrefix(params, "&"))
	from, _ := time.Parse(time.RFC3339Nano, rg[0])
	to, _ := time.Parse(time.RFC3339Nano, rg[1])
	var out []*schema.Order
	for _, id := range r.w.ids[r.acct.AppID] {
		o := r.w.byID[id]
		switch {
		case o.CreatedAt.Before(from) || !o.CreatedAt.Before(to):
		case q.Get("paymentMethod") != "" && string(o.Method) != q.Get("paymentMethod"):
		case q.Get("currency") != "" && o.Currency != q.Get("currency"):
		case q.Get("status") != "" && o.Status.String() != q.Get("status"):
		default:
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].CreatedAt.Truncate(time.Second), out[j].CreatedAt.Truncate(time.Second)
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// figures computes a summary's numbers the plain way.
func figures(orders []*schema.Order) Figures {
	f := Figures{}
	paid, refunded := map[string]int64{}, map[string]int64{}
	var times []int64
	for _, o := range orders {
		f.Created++
		switch o.Status {
		case schema.StatusPaid:
			f.Paid++
			paid[o.Currency] += int64(o.Amount)
			if !o.CompletedAt.IsZero() {
				times = append(times, o.CompletedAt.UnixMilli()-o.CreatedAt.UnixMilli())
			}
		case schema.StatusFailed:
			f.Failed++
		case schema.StatusCancelled:
			f.Cancelled++
		default:
			f.Open++
		}
		refunded[o.Currency] += int64(o.Refunded)
	}
	f.PaidAmount, f.RefundedAmount = amounts(paid), amounts(refunded)
	if f.Created > 0 {
		f.Conversion = float64(f.Paid*10000/f.Created) / 10000
	}
	if len(times) > 0 {
		slices.Sort(times)
		p50, p90 := times[int(0.5*float64(len(times)))], times[int(0.9*float64(len(times)))]
		f.PaidP50Ms, f.PaidP90Ms = &p50, &p90
	}
	return f
}

func (r *reporter) checkSummary(rg [2]string, params string) {
	t := r.t
	t.Helper()
	status, raw := r.get("action=summary&from="+rg[0]+"&to="+rg[1]+params, false)
	var got struct {
		Data Summary `json:"data"`
	}
	if status != 200 || json.Unmarshal(raw, &got) != nil {
		t.Fatalf("summary %v%s: %d %s", rg, params, status, raw)
	}
	orders := r.selected(rg, params)
	want := Summary{From: got.Data.From, To: got.Data.To, Figures: figures(orders), ByMethod: []MethodFigures{}}
	byMethod := map[schema.Method][]*schema.Order{}
	for _, o := range orders {
		byMethod[o.Method] = append(byMethod[o.Method], o)
	}
	for _, m := range schema.AllMethods() {
		if len(byMethod[m]) > 0 {
			want.ByMethod = append(want.ByMethod, MethodFigures{PaymentMethod: string(m), Figures: figures(byMethod[m])})
		}
	}
	sort.Slice(want.ByMethod, func(i, j int) bool { return want.ByMethod[i].PaymentMethod < want.ByMethod[j].PaymentMethod })
	a, _ := json.Marshal(got.Data)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("merchant %s summary %v%s\n got %s\nwant %s", r.acct.AppID, rg, params, a, b)
	}
}

func (r *reporter) checkExport(rg [2]string, params string, gz bool) {
	t := r.t
	t.Helper()
	status, raw := r.get("action=export&format=csv&from="+rg[0]+"&to="+rg[1]+params, gz)
	if status != 200 {
		t.Fatalf("export %v%s: %d %s", rg, params, status, raw)
	}
	recs, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil || len(recs) == 0 || !slices.Equal(recs[0], exportHeader) {
		t.Fatalf("export %v%s: %v, header %v", rg, params, err, recs)
	}
	if !strings.Contains(string(raw), "\r\n") {
		t.Fatalf("export lines do not end in CRLF")
	}
	want := r.selected(rg, params)
	if len(recs)-1 != len(want) {
		t.Fatalf("merchant %s export %v%s: %d rows, want %d", r.acct.AppID, rg, params, len(recs)-1, len(want))
	}
	for i, o := range want {
		got := recs[i+1]
		refunded := ""
		if o.Refunded != 0 {
			refunded = o.Refunded.String()
		}
		exp := map[int]string{0: o.ID, 1: fmt.Sprint(int(o.Status)), 2: o.Status.String(), 3: o.Amount.String(), 4: o.Currency,
			5: string(o.Method), 7: o.ClientOrderID, 10: o.CreatedAt.UTC().Format(time.RFC3339), 19: refunded}
		for col, v := range exp {
			if got[col] != v {
				t.Fatalf("merchant %s export %v%s row %d column %s: %q, want %q (%v)", r.acct.AppID, rg, params, i+1, exportHeader[col], got[col], v, got)
			}
		}
	}
}
