package projector

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestProjectsEveryEventType(t *testing.T) {
	e := newEnv(t)
	want := map[string]schema.Order{}
	for _, path := range [][]schema.Status{
		{schema.StatusReady},
		{schema.StatusPending, schema.StatusReady},
		{schema.StatusReady, schema.StatusPaid},
		{schema.StatusReady, schema.StatusFailed},
		{schema.StatusPending, schema.StatusCancelled},
		{schema.StatusReady, schema.StatusFailed, schema.StatusPaid},
	} {
		o := newOrder("p-every")
		for i, st := range path {
			o.Status, o.Version = st, int64(i+1)
			typ := schema.EventFor(st)
			if i == 0 {
				typ = schema.EventCreated
			}
			e.emit(o, typ)
		}
		want[o.ID] = o
	}
	paidAtOnce := newOrder("p-every")
	paidAtOnce.Status, paidAtOnce.Method, paidAtOnce.PaidWithBalance = schema.StatusPaid, schema.MethodBalance, true
	e.emit(paidAtOnce, schema.EventPaid)
	want[paidAtOnce.ID] = paidAtOnce

	e.start(testConfig("c1"), NewClickHouse(e.ch))
	e.waitListed("p-every", want, 5*time.Second)
	got, _ := e.listed("p-every")
	if !got[paidAtOnce.ID].PaidWithBalance || got[paidAtOnce.ID].Method != schema.MethodBalance {
		t.Fatalf("row lost fields: %+v", got[paidAtOnce.ID])
	}
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })
}

// TestLoneEventIsFlushed: the time bound of the batch, not its size, gets a
// single event out (its delay is measured by the benchmark, not asserted).
func TestLoneEventIsFlushed(t *testing.T) {
	e := newEnv(t)
	cfg := testConfig("lone")
	cfg.FlushInterval = 250 * time.Millisecond
	e.start(cfg, NewClickHouse(e.ch))
	time.Sleep(300 * time.Millisecond) // the projector is blocked reading
	o := newOrder("p-lone")
	e.emit(o, schema.EventCreated)
	e.waitListed("p-lone", map[string]schema.Order{o.ID: o}, 5*time.Second)
}

func TestTwoProjectorsAtOnce(t *testing.T) {
	e := newEnv(t)
	e.start(testConfig("a"), NewClickHouse(e.ch))
	e.start(testConfig("b"), NewClickHouse(e.ch))
	want := e.emitLife("p-two", 300)
	e.waitListed("p-two", want, 15*time.Second)
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })
}

func TestDeadLetters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	stream := schema.EventsKey(0)
	if err := e.rdb.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"type", "paid", "v", "x", "order", "{"}}).Err(); err != nil {
		t.Fatal(err)
	}
	want := e.emitLife("p-dead", 5)
	e.start(testConfig("d"), NewClickHouse(e.ch))
	e.waitListed("p-dead", want, 5*time.Second)
	waitFor(t, "dead letter recorded", func() bool { return e.rdb.XLen(ctx, DeadLetterKey).Val() == 1 })
	waitFor(t, "all entries acknowledged", func() bool { return e.pending() == 0 })
	dl, _ := e.rdb.XRange(ctx, DeadLetterKey, "-", "+").Result()
	if dl[0].Values["stream"] != stream || dl[0].Values["error"] == "" || dl[0].Values["f:order"] != "{" {
		t.Fatalf("dead letter %v", dl[0].Values)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, what, ok)
}
