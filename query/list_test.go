package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/projector"
	"github.com/paygate/gateway/schema"
)

func TestListOrders(t *testing.T) {
	e := newListEnv(t)
	chTotal := clickHouseOrders(t, e.ch, e.acct.AppID)
	statusIDs := func(st schema.Status) []string {
		var out []string
		for _, id := range e.ids {
			if e.byID[id].Status == st {
				out = append(out, id)
			}
		}
		return out
	}
	matching := func(keep func(o schema.Order) bool) []string {
		var out []string
		for _, id := range e.ids {
			if keep(e.byID[id]) {
				out = append(out, id)
			}
		}
		return out
	}
	walletA := matching(func(o schema.Order) bool { return o.Method == schema.MethodWalletA })
	walletB := matching(func(o schema.Order) bool { return o.Method == schema.MethodWalletB })
	cny := matching(func(o schema.Order) bool { return o.Currency == "CNY" })
	cnyB := matching(func(o schema.Order) bool { return o.Currency == "CNY" && o.Method == schema.MethodWalletB })
	tests := []struct {
		name   string
		params string
		status int
		total  int
		want   []string
		msg    string
	}{
		{"paymentMethod by the chosen method", "action=orders&paymentMethod=wallet_a&limit=50", 200, 8, walletA, ""},
		{"paymentMethod ignores old versions", "action=orders&paymentMethod=wallet_b&limit=50", 200, 15, walletB, ""},
		{"paymentMethod of no order", "action=orders&paymentMethod=select&limit=50", 200, 0, nil, ""},
		{"currency", "action=orders&currency=CNY&limit=50", 200, 5, cny, ""},
		{"currency and method", "action=orders&currency=CNY&paymentMethod=wallet_b&limit=50", 200, len(cnyB), cnyB, ""},
		{"method and status", "action=orders&paymentMethod=wallet_a&status=paid&page=2&limit=5", 200, 8, walletA[5:], ""},
		{"unknown paymentMethod", "action=orders&paymentMethod=visa", 400, 0, nil, "paymentMethod"},
		{"lower-case currency", "action=orders&currency=usd", 400, 0, nil, "currency"},
		{"unknown parameter", "action=orders&paymentmethod=wallet_a", 400, 0, nil, `"paymentmethod"`},
		{"unknown parameter of action=order", "action=order&paymentId=x&expand=refunds", 400, 0, nil, `"expand"`},
		{"unknown parameter of action=webhooks", "action=webhooks&paymentId=x&refundId=y", 400, 0, nil, `"refundId"`},
		{"to past DateTime", "action=orders&to=2200-01-01T00:00:00Z", 400, 0, nil, "to must be"},
		{"from before 1970", "action=orders&from=1969-12-31T23:59:59Z", 400, 0, nil, "from must be"},
		{"defaults", "action=orders", 200, 23, e.ids[:10], ""},
		{"second page", "action=orders&page=2", 200, 23, e.ids[10:20], ""},
		{"last partial page", "action=orders&page=3", 200, 23, e.ids[20:], ""},
		{"page past the end", "action=orders&page=4", 200, 23, nil, ""},
		{"limit 50", "action=orders&limit=50", 200, 23, e.ids, ""},
		{"limit 1 page 23", "action=orders&limit=1&page=23", 200, 23, e.ids[22:], ""},
		{"limit 51", "action=orders&limit=51", 400, 0, nil, "limit"},
		{"limit 0", "action=orders&limit=0", 400, 0, nil, "limit"},
		{"page 0", "action=orders&page=0", 400, 0, nil, "page"},
		{"page not a number", "action=orders&page=two", 400, 0, nil, "page"},
		{"limit with a fraction", "action=orders&limit=1.5", 400, 0, nil, "limit"},
		{"negative page", "action=orders&page=-1", 400, 0, nil, "page"},
		{"status paid", "action=orders&status=paid&limit=50", 200, 8, statusIDs(schema.StatusPaid), ""},
		{"status by code", "action=orders&status=3&limit=50", 200, 7, statusIDs(schema.StatusFailed), ""},
		{"status ready ignores old versions", "action=orders&status=ready&limit=50", 200, 8, statusIDs(schema.StatusReady), ""},
		{"unknown status", "action=orders&status=refunded", 400, 0, nil, "status"},
		{"clientOrderId", "action=orders&clientOrderId=L-04", 200, 1, []string{e.ids[22-4]}, ""},
		{"from", "action=orders&from=2026-11-01T00:10:00Z&limit=50", 200, 3, e.ids[:3], ""},
		{"to", "action=orders&to=2026-10-31T23:52:00Z&limit=50", 200, 2, e.ids[21:], ""},
		{"from and to", "action=orders&from=2026-10-31T23:55:00Z&to=2026-10-31T23:57:00Z", 200, 2, []string{e.ids[23-7], e.ids[23-6]}, ""},
		{"bad from", "action=orders&from=yesterday", 400, 0, nil, "from"},
		{"to before from", "action=orders&from=2026-11-01T00:00:00Z&to=2026-10-01T00:00:00Z", 400, 0, nil, "to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b, raw := e.get(tt.params)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, raw)
			}
			if status != 200 {
				if !strings.Contains(b.Msg, tt.msg) || b.Error != "invalid_parameter" {
					t.Fatalf("error %s, want invalid_parameter naming %s", raw, tt.msg)
				}
				return
			}
			if b.Data.Total != tt.total || fmt.Sprint(listedIDs(b)) != fmt.Sprint(tt.want) {
				t.Fatalf("total %d ids %v\nwant total %d ids %v", b.Data.Total, listedIDs(b), tt.total, tt.want)
			}
			if unfiltered(t, tt.params) && b.Data.Total != chTotal {
				t.Fatalf("unfiltered total %d from the Redis counters, ClickHouse holds %d orders", b.Data.Total, chTotal)
			}
			for _, o := range b.Data.Orders {
				if w := e.byID[o.PaymentID]; o.Status != int(w.Status) {
					t.Fatalf("%s listed as %d, latest is %s", o.PaymentID, o.Status, w.Status)
				}
			}
		})
	}
}

// TestArchivedOrderMatchesListing: an order Redis no longer keeps is read
// from ClickHouse by action=order, as the same object the listing shows.
func TestArchivedOrderMatchesListing(t *testing.T) {
	e := newListEnv(t)
	status, page, raw := e.get("action=orders&limit=3")
	if status != 200 {
		t.Fatalf("listing: %d %s", status, raw)
	}
	if got, want := listedIDs(page), e.ids[:3]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("listing %v, want the 3 newest %v", got, want)
	}
	for _, listed := range page.Data.Orders {
		status, _, raw := e.get("action=order&paymentId=" + listed.PaymentID)
		var one struct {
			Data schema.OrderView `json:"data"`
		}
		if err := json.Unmarshal([]byte(raw), &one); err != nil {
			t.Fatalf("action=order %s: %v", raw, err)
		}
		a, err := json.Marshal(one.Data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(listed)
		if err != nil {
			t.Fatal(err)
		}
		if status != 200 || string(a) != string(b) {
			t.Fatalf("action=order %d\n%s\nlisting\n%s", status, a, b)
		}
	}
	if status, _, raw := e.get("action=order&paymentId=" + schema.NewOrderID(time.Now(), 3)); status != 404 {
		t.Fatalf("unknown archived order: %d %s", status, raw)
	}
}

// TestListingTotalMatchesClickHouse creates orders through the command
// side's scripts on the real Redis, projects them with the real projector,
// and checks that the unfiltered listing's total, read from the counters
// those scripts keep, is ClickHouse's own count and the number created. The
// creates include the ones that must not count: a replay of a live
// clientOrderId and a refused balance payment.
func TestListingTotalMatchesClickHouse(t *testing.T) {
	ctx := context.Background()
	ch := migratedClickHouse(t, testenv.ClickHouseDSN(t))
	rdb := testenv.Redis(t)
	accounts := merchant.NewStore(rdb)
	acct, err := accounts.Create(ctx, merchant.NewAccount{Name: "counted"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := journaltest.Credit(ctx, rdb, acct.AppID, "USD", 500); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

	store := command.NewStore(rdb, time.Minute, time.Hour)
	now := time.Now().UTC().Truncate(time.Millisecond)
	newOrder := func(shard schema.Shard, coid string) *schema.Order {
		return &schema.Order{ID: schema.NewOrderID(now, shard), AppID: acct.AppID, ClientOrderID: coid, Amount: 200,
			Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusReady, CreatedAt: now, UpdatedAt: now, Version: 1}
	}
	byBalance := func() *schema.Order {
		o := newOrder(schema.HomeShard(acct.AppID), "")
		o.Method, o.Status, o.PaidWithBalance, o.CompletedAt = schema.MethodBalance, schema.StatusPaid, true, now
		return o
	}
	type step struct {
		name    string
		order   *schema.Order
		balance bool // paid from the balance by pay_balance, else created by create
		created bool // whether the script must store a new order
	}
	steps := []step{
		{"with clientOrderId", newOrder(schema.ShardFor(acct.AppID, "T-1"), "T-1"), false, true},
		{"replay of a live clientOrderId", newOrder(schema.ShardFor(acct.AppID, "T-1"), "T-1"), false, false},
		{"paid from balance", byBalance(), true, true},
		{"paid from balance again", byBalance(), true, true},
		{"balance does not cover it", byBalance(), true, false},
	}
	for i := range 10 {
		steps = append(steps, step{fmt.Sprintf("plain %d", i), newOrder(schema.RandomShard(), ""), false, true})
	}
	created := 0
	for _, st := range steps {
		var ok bool
		if st.balance {
			_, err := store.CreatePaidFromBalance(ctx, st.order)
			if err != nil && !errors.Is(err, command.ErrInsufficientBalance) {
				t.Fatalf("%s: %v", st.name, err)
			}
			ok = err == nil
		} else {
			_, ok, err = store.Create(ctx, st.order)
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		if ok != st.created {
			t.Fatalf("%s: created %v, want %v", st.name, ok, st.created)
		}
		if ok {
			created++
		}
	}
	// A second version of one order: ClickHouse holds more rows than orders.
	if moved, err := store.Transition(ctx, steps[0].order.ID, schema.StatusPaid, now.Add(time.Second)); err != nil || !moved {
		t.Fatalf("pay %s: moved %v, %v", steps[0].order.ID, moved, err)
	}

	p, err := projector.New(projector.Config{Consumer: "list-total", FlushInterval: 50 * time.Millisecond}, rdb,
		projector.NewClickHouse(ch), prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Run(runCtx); err != nil {
			t.Errorf("projector: %v", err)
		}
	}()
	t.Cleanup(func() { stop(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for n := clickHouseOrders(t, ch, acct.AppID); n != created; n = clickHouseOrders(t, ch, acct.AppID) {
		if time.Now().After(deadline) {
			t.Fatalf("ClickHouse holds %d orders, %d created", n, created)
		}
		time.Sleep(50 * time.Millisecond)
	}

	live := NewRedisOrders(rdb)
	chOrders := NewClickHouseOrders(ch)
	e := &listEnv{t: t, ch: ch, acct: acct, app: serveOrders(t, merchant.NewDirectory(accounts, log, time.Millisecond),
		Sources{Live: live, Archive: chOrders, Listing: mustListing(t, ListingDeps{Lister: chOrders, Totals: live, Rollups: chOrders})}, log)}
	status, b, raw := e.get("action=orders&limit=50")
	if status != 200 {
		t.Fatalf("listing: %d %s", status, raw)
	}
	if n := clickHouseOrders(t, ch, acct.AppID); b.Data.Total != n || n != created || len(b.Data.Orders) != created {
		t.Fatalf("listing total %d (Redis counters), %d listed; ClickHouse holds %d orders; %d created",
			b.Data.Total, len(b.Data.Orders), n, created)
	}
}
