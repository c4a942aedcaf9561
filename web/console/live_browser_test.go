package console

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// listening waits until n feeds are open and the hub has polled since, so
// an event emitted now is after every feed's start.
func (e *env) listening(t *testing.T, n int) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, fmt.Sprintf("%d open feeds", n), func() bool { return testutil.ToFloat64(e.hub.open) >= float64(n) })
	reads := testutil.ToFloat64(e.hub.reads)
	testenv.Eventually(t, 10*time.Second, "the hub's polls", func() bool { return testutil.ToFloat64(e.hub.reads) >= reads+2 })
}

// emitTogether writes the events in one MULTI, so one poll finds them
// all, a millisecond apart in the order given.
func emitTogether(t *testing.T, rdb redis.UniversalClient, orders []*schema.Order, typ schema.EventType) {
	t.Helper()
	now := time.Now()
	_, err := rdb.TxPipelined(context.Background(), func(p redis.Pipeliner) error {
		for i, o := range orders {
			shard, _ := schema.ParseOrderID(o.ID)
			at := now.Add(time.Duration(i) * time.Millisecond)
			p.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(typ, at, o)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func liveRow(id string) string { return fmt.Sprintf(`table[data-orders] tr[data-id=%q]`, id) }

func TestLiveOrdersInBrowser(t *testing.T) {
	e := newEnv(t)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	frametest.Login(t, pg, e.base, e.users[access.RoleViewer], frametest.Password, e.code(t, e.users[access.RoleViewer]))
	// Rows that arrive read as the rows the page was drawn with: the
	// viewer's zone, the method's name.
	pg.Go(e.base + "/zone")
	pg.Fill("#zone", "Asia/Shanghai")
	pg.Submit("form[data-zone-form]")
	pg.Go(e.base + "/orders")
	e.listening(t, 1)
	var shown int
	pg.Eval(`document.querySelectorAll("table[data-orders] tr[data-id]").length`, &shown)

	fresh := liveOrder(e.shop, 6)
	emit(t, e.rdb, fresh, schema.EventCreated)
	open := e.store.get(e.orders["open"])
	emit(t, e.rdb, paid(&open), schema.EventPaid)
	theirs := liveOrder(e.other, 7)
	emit(t, e.rdb, theirs, schema.EventCreated)
	last := liveOrder(e.shop, 7) // after theirs in its stream: once last is shown, theirs was read
	emit(t, e.rdb, last, schema.EventCreated)

	pg.WaitVisible(liveRow(last.ID))
	var top string
	pg.Eval(`document.querySelector("table[data-orders] tbody tr").dataset.id`, &top)
	if top != last.ID || !has(pg, liveRow(fresh.ID)) {
		t.Errorf("new orders: top row %s, want %s; %s shown %v", top, last.ID, fresh.ID, has(pg, liveRow(fresh.ID)))
	}
	if !pg.WaitTrue(fmt.Sprintf(`document.querySelector('%s [data-status] .badge').classList.contains("paid")`, liveRow(open.ID))) {
		t.Errorf("the open order's row was not updated in place: %q", pg.Text(liveRow(open.ID)))
	}
	if has(pg, liveRow(theirs.ID)) {
		t.Errorf("another merchant's order %s is in the table", theirs.ID)
	}
	if got, want := pg.Text("[data-rows]"), fmt.Sprintf("1–%d of %d", shown+2, shown+2); got != want {
		t.Errorf("pager after two new orders: %q, want %q (the rows the page shows)", got, want)
	}
	sh, _ := time.LoadLocation("Asia/Shanghai")
	want := fresh.CreatedAt.In(sh).Format("2006-01-02 15:04:05") + " GMT+8 Wallet A"
	var got string
	pg.Eval(fmt.Sprintf(`(r => r.cells[0].textContent + " " + r.cells[4].textContent + (r.cells[0].querySelector("time[title='Asia/Shanghai']") ? "" : " no zone"))(document.querySelector('%s'))`, liveRow(fresh.ID)), &got)
	if got != want {
		t.Errorf("a live row reads %q, want %q", got, want)
	}
	// The feed carries no refunded amount: an update of the partly
	// refunded order keeps its badge. The new order after it in its
	// stream tells the update was read.
	refunded := e.store.get(e.orders["paid"])
	shard, _ := schema.ParseOrderID(refunded.ID)
	after := liveOrder(e.shop, int(shard))
	emitTogether(t, e.rdb, []*schema.Order{&refunded, after}, schema.EventPaid)
	emit(t, e.rdb, after, schema.EventCreated)
	pg.WaitVisible(liveRow(after.ID))
	if !has(pg, liveRow(refunded.ID)+` [data-status] .badge.partially_refunded`) {
		t.Errorf("an update turned the partly refunded order's badge into %q", pg.Text(liveRow(refunded.ID)+" [data-status]"))
	}
	if has(pg, "[data-live-reload]") {
		t.Error("a reload is offered though every change was shown")
	}

	// More new orders in one poll than the page shows: the latest page of
	// them, and the reload offered.
	var many []*schema.Order
	for i := range 30 {
		many = append(many, liveOrder(e.shop, i%schema.NumShards))
	}
	emitTogether(t, e.rdb, many, schema.EventCreated)
	pg.WaitVisible("[data-live-reload]")
	pg.Eval(`document.querySelector("table[data-orders] tbody tr").dataset.id`, &top)
	if newest := many[len(many)-1].ID; top != newest {
		t.Errorf("top row %s, want the newest %s", top, newest)
	}
	var rows int
	pg.Eval(`document.querySelectorAll("table[data-orders] tbody tr").length`, &rows)
	if rows != 25 {
		t.Errorf("%d rows after the burst, want the page's 25", rows)
	}
	shoot(t, pg, "orders-live")
	pg.Eval(`window.beforeReload = true`, nil)
	pg.Click("[data-live-reload]")
	if !pg.WaitTrue(`!window.beforeReload && !!document.querySelector("table[data-orders]") && !document.querySelector("[data-live-reload]")`) {
		t.Error("the reload button did not reload the page")
	}
	pg.AssertNoConsoleErrors(t)
}
