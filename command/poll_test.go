package command

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestPollStatus: the poll reads the order's status and return URL, and an
// id that names no order is a not-found, whatever its shape.
func TestPollStatus(t *testing.T) {
	h := newRedisHarness(t)
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["return_url"] = "select", "USD", "https://shop.example/done/{paymentId}"
	o, err := h.uc.Orders.Order(context.Background(), h.createOK(p)["paymentId"].(string))
	if err != nil {
		t.Fatal(err)
	}
	shard, _ := schema.ParseOrderID(o.ID)
	cases := []struct {
		name     string
		id       string
		status   schema.Status
		ret      string
		wantKind platform.Kind
	}{
		{"live order", o.ID, o.Status, "https://shop.example/done/{paymentId}", ""},
		{"well-formed id of no order", schema.NewOrderID(time.Now(), shard), 0, "", platform.KindNotFound},
		{"not an order id", "nope", 0, "", platform.KindNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, ret, err := h.uc.Orders.PollStatus(context.Background(), tc.id)
			if kindOf(err) != tc.wantKind || (tc.wantKind == "" && err != nil) {
				t.Fatalf("error %v, want kind %q", err, tc.wantKind)
			}
			if st != tc.status || ret != tc.ret {
				t.Errorf("status %v return %q, want %v %q", st, ret, tc.status, tc.ret)
			}
		})
	}
}

// TestPollStatusConcurrent: polls of many orders at once share pipelines,
// and each caller gets its own order's answer.
func TestPollStatusConcurrent(t *testing.T) {
	h := newRedisHarness(t)
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		p := h.baseParams()
		p["paymentMethod"], p["currency"] = "select", "USD"
		p["return_url"], p["clientOrderId"] = fmt.Sprintf("https://shop.example/%d", i), fmt.Sprintf("poll-%d", i)
		ids[i] = h.createOK(p)["paymentId"].(string)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Go(func() {
			_, ret, err := h.uc.Orders.PollStatus(context.Background(), id)
			if want := fmt.Sprintf("https://shop.example/%d", i); err != nil || ret != want {
				errs <- fmt.Errorf("order %d: return %q, %v; want %q", i, ret, err, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
