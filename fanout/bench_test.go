package fanout

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// BenchmarkFanOut drains b.N paid entries of 100 merchants spread over
// every shard, with no endpoint and with 3 endpoints each (a fake engine):
// entries/s is what the fan-out adds before the engine's own work.
//
//	scripts/testenv.sh go test -run '^$' -bench FanOut -benchtime 20000x ./fanout/
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{0, 3} {
		b.Run(strconv.Itoa(n)+"-endpoints", func(b *testing.B) { benchFanOut(b, n) })
	}
}

func benchFanOut(b *testing.B, endpoints int) {
	e := newEnv(b, 30*time.Second)
	const merchants = 100
	for m := range merchants {
		for range endpoints {
			e.endpoint(b, appid(m), "*")
		}
	}
	ctx := context.Background()
	p := e.rdb.Pipeline()
	for i := range b.N {
		o := schema.Order{ID: schema.NewOrderID(at, schema.Shard(i%schema.NumShards)), AppID: appid(i % merchants),
			Amount: 10050, Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusPaid, CreatedAt: at,
			UpdatedAt: at, CompletedAt: at, Version: 3, NotifyURL: "https://shop.example/hook"}
		p.XAdd(ctx, &redis.XAddArgs{Stream: schema.EventsKey(schema.Shard(i % schema.NumShards)), Values: schema.EventFields(schema.EventPaid, at, &o)})
		if p.Len() == 1000 || i == b.N-1 {
			if _, err := p.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	done := func() bool {
		n := 0.0
		for _, r := range []string{resultUnsubscribed, resultScheduled} {
			n += testutil.ToFloat64(e.f.m.entries.WithLabelValues(r))
		}
		return n >= float64(b.N)
	}
	b.ResetTimer()
	start := time.Now()
	e.run(b)
	for !done() {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "entries/s")
	if endpoints > 0 && len(e.sched.taken()) != b.N {
		b.Fatalf("%d events scheduled for %d entries", len(e.sched.taken()), b.N)
	}
}

func appid(m int) string { return strconv.Itoa(4000 + m) }
