package projector

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// TestTrimOnlyWhatEveryGroupAcknowledged: the projector's own progress is
// not enough to trim; once the dispatcher, ledger and events groups have
// acknowledged too, the streams shrink, and never below an entry still pending for a group.
func TestTrimOnlyWhatEveryGroupAcknowledged(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	stream := schema.EventsKey(0)
	var ids []string
	for range 600 {
		o := newOrder("p-trim")
		o.ID = schema.NewOrderID(o.CreatedAt, 0)
		e.emit(o, schema.EventCreated)
	}
	msgs, _ := e.rdb.XRange(ctx, stream, "-", "+").Result()
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	e.start(testConfig("trim"), NewClickHouse(e.ch))
	// Rows first: once they are in, the projector has created its groups, so
	// pending() does not meet a missing one.
	waitFor(t, "projected", func() bool { return len(e.versions("p-trim")) == 600 && e.pending() == 0 })

	// No dispatcher group yet: nothing may be trimmed.
	time.Sleep(300 * time.Millisecond)
	if n := e.rdb.XLen(ctx, stream).Val(); n != 600 {
		t.Fatalf("trimmed to %d before the dispatcher group existed", n)
	}
	// A dispatcher that has read everything and acknowledged all but the
	// entry at 400: trimming stops below it.
	if err := e.rdb.XGroupCreate(ctx, stream, "dispatcher", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "dispatcher", Consumer: "d1", Streams: []string{stream, ">"}, Count: 1000}).Err(); err != nil {
		t.Fatal(err)
	}
	keep := ids[400]
	acked := append(append([]string{}, ids[:400]...), ids[401:]...)
	if err := e.rdb.XAck(ctx, stream, "dispatcher", acked...).Err(); err != nil {
		t.Fatal(err)
	}
	// No ledger group yet: still nothing trimmed.
	time.Sleep(300 * time.Millisecond)
	if n := e.rdb.XLen(ctx, stream).Val(); n != 600 {
		t.Fatalf("trimmed to %d before the ledger group existed", n)
	}
	if err := e.rdb.XGroupCreate(ctx, stream, schema.GroupLedger, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: schema.GroupLedger, Consumer: "l1", Streams: []string{stream, ">"}, Count: 1000}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XAck(ctx, stream, schema.GroupLedger, ids...).Err(); err != nil {
		t.Fatal(err)
	}
	// No events group yet: still nothing trimmed.
	time.Sleep(300 * time.Millisecond)
	if n := e.rdb.XLen(ctx, stream).Val(); n != 600 {
		t.Fatalf("trimmed to %d before the events group existed", n)
	}
	if err := e.rdb.XGroupCreate(ctx, stream, schema.GroupEvents, "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: schema.GroupEvents, Consumer: "v1", Streams: []string{stream, ">"}, Count: 1000}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.XAck(ctx, stream, schema.GroupEvents, ids...).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "trimmed", func() bool { return e.rdb.XLen(ctx, stream).Val() < 600 })
	first, _ := e.rdb.XRangeN(ctx, stream, "-", "+", 1).Result()
	if len(first) != 1 || lessID(keep, first[0].ID) {
		t.Fatalf("trimmed past the dispatcher's pending entry %s: first left is %v", keep, first)
	}
}
