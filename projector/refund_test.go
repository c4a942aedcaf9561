package projector

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// TestProjectsRefundedAmount: a refund event is a version of its order
// like any other; the listing's row carries the refunded amount.
func TestProjectsRefundedAmount(t *testing.T) {
	e := newEnv(t)
	o := newOrder("p-refund")
	o.Status, o.Version = schema.StatusPaid, 1
	e.emit(o, schema.EventPaid)
	r := schema.Refund{ID: "rf_P1", OrderID: o.ID, Amount: 40, Currency: o.Currency, Status: schema.RefundSucceeded,
		CreatedMs: time.Now().UnixMilli(), UpdatedMs: time.Now().UnixMilli()}
	o.Version, o.Refunded, o.RefundReserved = 2, 40, 40
	rec, _ := json.Marshal(r)
	shard, _ := schema.ParseOrderID(o.ID)
	values := append(schema.EventFields(schema.EventRefund, time.Now(), &o), schema.EvRefund, string(rec))
	if err := e.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: values}).Err(); err != nil {
		t.Fatal(err)
	}
	e.start(testConfig("c1"), NewClickHouse(e.ch))
	waitFor(t, "the refund's version listed", func() bool {
		got, _ := e.listed("p-refund")
		return got[o.ID].Version == 2
	})
	if got, _ := e.listed("p-refund"); got[o.ID].Refunded != 40 {
		t.Fatalf("listed refunded %d, want 40", got[o.ID].Refunded)
	}
}
