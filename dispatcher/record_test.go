package dispatcher

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

func TestShare(t *testing.T) {
	cases := []struct {
		name     string
		total, n int
		want     []int
	}{
		{"even", 8, 4, []int{2, 2, 2, 2}},
		{"remainder to the first", 10, 4, []int{3, 3, 2, 2}},
		{"fewer than parts", 3, 5, []int{1, 1, 1, 0, 0}},
		{"nothing", 0, 3, []int{0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sum := 0
			for i, w := range c.want {
				if got := share(c.total, c.n, i); got != w {
					t.Errorf("share(%d, %d, %d) = %d, want %d", c.total, c.n, i, got, w)
				}
				sum += share(c.total, c.n, i)
			}
			if sum != c.total {
				t.Errorf("parts add up to %d, want %d", sum, c.total)
			}
		})
	}
}

// TestRecordClaimsTheHostsNextDelivery: recording an attempt with a token
// prefix leases the next due delivery of the same host queue (never the one
// just recorded) and hands it back; without one it claims nothing.
func TestRecordClaimsTheHostsNextDelivery(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cfg := testConfig()
	s := newStore(e.rdb, cfg)
	shard := schema.Shard(3)
	const url = "http://merchant.example/hook"
	var ds []delivery
	for range 3 {
		id := schema.NewOrderID(time.Now(), shard)
		ds = append(ds, delivery{shard: shard, id: id, url: url, appid: e.acct.AppID,
			params: schema.Params{"paymentId": id}, paid: time.Now()})
	}
	if _, errs := s.addAll(ctx, ds); errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatal(errs)
	}
	jobs, err := s.claimAll(ctx, []claimAsk{{shard: shard, want: 1, perHost: 8}}, "t1:")
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim: %d jobs, %v", len(jobs), err)
	}
	ok := schema.WebhookAttempt{Attempt: 1, Status: 200, Success: true}

	out, next, err := s.record(ctx, jobs[0], true, ok, -1, "t2:")
	if err != nil || out != "delivered" || next == nil {
		t.Fatalf("record with a prefix: %q, next %v, %v", out, next, err)
	}
	if next.id == jobs[0].id || next.host != jobs[0].host || next.token != "t2:"+next.id || next.seq != 1 {
		t.Fatalf("next job %+v after %s", next, jobs[0].id)
	}
	q := schema.WebhookQueueKey(shard, hostOf(url))
	due, err := e.rdb.ZScore(ctx, q, next.id).Result()
	if err != nil || int64(due) < time.Now().Add(cfg.Timeout).UnixMilli() {
		t.Fatalf("the next delivery is not leased: due %v, %v", due, err)
	}

	out, none, err := s.record(ctx, *next, true, ok, -1, "")
	if err != nil || out != "delivered" || none != nil {
		t.Fatalf("record without a prefix: %q, next %v, %v", out, none, err)
	}
	left, err := e.rdb.ZRangeByScore(ctx, q, &redis.ZRangeBy{Min: "-inf", Max: "+inf"}).Result()
	if err != nil || len(left) != 1 || left[0] == jobs[0].id || left[0] == next.id {
		t.Fatalf("queue left %v, %v; want the third delivery only", left, err)
	}
}

// TestBusyHostKeepsToItsLimit: slots that go from one attempt straight to
// the next of their host, and claims shared out over many shards in one
// pipeline, still never give a host more than PerHost attempts at once; a
// webhook to another host paid after a long backlog gets a free slot
// long before that backlog is done.
func TestBusyHostKeepsToItsLimit(t *testing.T) {
	e := newEnv(t)
	var now, most atomic.Int32
	busy := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(10 * time.Millisecond)
		now.Add(-1)
		_, _ = w.Write([]byte("success"))
	})
	other := newReceiver(t, answer(200, "success"))
	cfg := testConfig()
	cfg.Concurrency, cfg.PerHost = 16, 8
	const backlog = 1000
	for range backlog {
		e.pay(busy.URL)
	}
	e.start(cfg)
	testenv.Eventually(t, 10*time.Second, "the busy host takes its slots", func() bool { return now.Load() == int32(cfg.PerHost) })
	e.pay(other.URL)
	testenv.Eventually(t, 30*time.Second, "the other host's webhook", func() bool { return other.count() == 1 })
	if done := busy.count(); done >= backlog {
		t.Errorf("the other host waited for the whole backlog (%d of %d done)", done, backlog)
	} else {
		t.Logf("the other host's webhook arrived with %d of the busy host's %d done", done, backlog)
	}
	testenv.Eventually(t, 60*time.Second, "the backlog", func() bool { return busy.count() >= backlog })
	if m := most.Load(); m > int32(cfg.PerHost) {
		t.Errorf("the busy host had %d attempts at once, limit %d", m, cfg.PerHost)
	}
}
