package ledger

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// emitPaid writes n paid orders of appid, every third with a fee.
func (e *env) emitPaid(appid string, n int) []*schema.Order {
	e.t.Helper()
	var out []*schema.Order
	for i := range n {
		fee := ""
		if i%3 == 0 {
			fee = "250:10:0:0"
		}
		o := e.order(appid, schema.Amount(1000+i), fee)
		e.emit(schema.EventPaid, o, nil)
		out = append(out, o)
	}
	return out
}

// onePaymentEach fails unless every order has exactly one payment entry,
// and a platform:fees line exactly when its fee is not zero.
func (e *env) onePaymentEach(orders []*schema.Order) {
	e.t.Helper()
	all := e.entries()
	for _, o := range orders {
		es := all[journal.KindPayment+":"+o.ID]
		if len(es) != 1 {
			e.t.Fatalf("order %s has %d payment entries, want 1", o.ID, len(es))
		}
		p, _ := journal.Price(o)
		fees := 0
		for _, l := range es[0].Postings {
			if l.Account == journal.Fees {
				fees++
				if l.Amount != p.Fee {
					e.t.Errorf("order %s: fee line %d, want %d", o.ID, l.Amount, p.Fee)
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[p.Fee != 0]; fees != want {
			e.t.Errorf("order %s (fee %d): %d platform:fees lines, want %d", o.ID, p.Fee, fees, want)
		}
	}
}

func TestEveryPaidOrderHasOnePaymentAndOneFeePosting(t *testing.T) {
	e := newEnv(t)
	orders := e.emitPaid("3001", 60)
	run(t, e.poster("a", nil))
	e.caughtUp()
	e.onePaymentEach(orders)
	var net schema.Amount
	for _, o := range orders {
		p, _ := journal.Price(o)
		net += p.Net
	}
	if b := e.balance("3001"); b.Pending != net || b.Available != 0 {
		t.Fatalf("balance %+v, want %d pending (D+1 terms)", b, net)
	}
}

// A ledger process killed between posting a batch and acknowledging it:
// its entries come back to another process, whose postings replay.
func TestPosterKilledBetweenPostAndAckPostsOnce(t *testing.T) {
	e := newEnv(t)
	orders := e.emitPaid("3002", 300)
	reg := prometheus.NewRegistry()
	dying := e.poster("dying", reg)
	var posted atomic.Bool
	dying.crashAfterPost = func() bool { posted.Store(true); return true }
	stop := run(t, dying)
	testenv.Eventually(t, 10*time.Second, "the dying process posts a batch", posted.Load)
	stop()
	if e.balance("3002").Available == 0 {
		t.Fatal("the dying process posted nothing")
	}
	reg2 := prometheus.NewRegistry()
	run(t, e.poster("heir", reg2))
	e.caughtUp()
	e.onePaymentEach(orders)
	if n := counter(t, reg2, "gateway_ledger_postings_total", journal.KindPayment, "replayed"); n == 0 {
		t.Fatal("the heir replayed nothing: the dying process's entries were not left pending")
	}
	var net schema.Amount
	for _, o := range orders {
		p, _ := journal.Price(o)
		net += p.Net
	}
	if b := e.balance("3002"); b.Available != net {
		t.Fatalf("available %d, want %d", b.Available, net)
	}
}

func TestTwoPostersShareTheGroup(t *testing.T) {
	e := newEnv(t)
	orders := e.emitPaid("3002", 200)
	run(t, e.poster("one", nil))
	run(t, e.poster("two", nil))
	orders = append(orders, e.emitPaid("3001", 200)...)
	e.caughtUp()
	e.onePaymentEach(orders)
}

// The whole stream read again (the group moved back to its start): every
// posting replays, no balance moves.
func TestReplayOfTheWholeStreamMovesNothing(t *testing.T) {
	e := newEnv(t)
	orders := e.emitPaid("3001", 100)
	stop := run(t, e.poster("first", nil))
	e.caughtUp()
	stop()
	before := e.balance("3001")
	for _, s := range schema.AllShards() {
		if err := e.rdb.XGroupSetID(context.Background(), schema.EventsKey(s), schema.GroupLedger, "0").Err(); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	run(t, e.poster("again", reg))
	e.caughtUp()
	e.onePaymentEach(orders)
	if after := e.balance("3001"); after != before {
		t.Fatalf("balance moved on replay: %+v, was %+v", after, before)
	}
	if n := counter(t, reg, "gateway_ledger_postings_total", journal.KindPayment, "replayed"); n != float64(len(orders)) {
		t.Fatalf("%v replays, want %d", n, len(orders))
	}
}
