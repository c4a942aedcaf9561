package ledger

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// BenchmarkLedgerCatchUp is a ledger role starting behind a backlog of b.N
// paid orders (of 50 merchants, every third with a fee) on the real Redis
// (AOF fsynced at every write, as deployed):
// postings/s from its start until the group has acknowledged them all.
// BENCHMARKS.md gives the figure and the command.
func BenchmarkLedgerCatchUp(b *testing.B) {
	rdb := testenv.Redis(b)
	ctx := context.Background()
	acc := terms{}
	for m := range 50 {
		acc[fmt.Sprint(5000+m)] = merchant.DefaultTerms()
	}
	const chunk = 2000
	for i := 0; i < b.N; i += chunk {
		_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k := i; k < min(i+chunk, b.N); k++ {
				fee := ""
				if k%3 == 0 {
					fee = "250:10:0:0"
				}
				o := &schema.Order{ID: schema.NewOrderID(paidAt, schema.Shard(k%schema.NumShards)), AppID: fmt.Sprint(5000 + k%50),
					Amount: schema.Amount(1000 + k%5000), Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusPaid,
					Fee: fee, CreatedAt: paidAt, UpdatedAt: paidAt, CompletedAt: paidAt, Version: 3}
				s, _ := schema.ParseOrderID(o.ID)
				p.XAdd(ctx, &redis.XAddArgs{Stream: schema.EventsKey(s), Values: schema.EventFields(schema.EventPaid, paidAt, o)})
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Consumer: "bench", Block: 10 * time.Millisecond}
	p, err := NewPoster(cfg, rdb, j, acc, prometheus.NewRegistry(), quiet())
	if err != nil {
		b.Fatal(err)
	}
	// GATEWAY_BENCH_APPENDFSYNC=no shows what the AOF's fsyncs cost.
	if v := os.Getenv("GATEWAY_BENCH_APPENDFSYNC"); v != "" {
		old, err := rdb.ConfigGet(ctx, "appendfsync").Result()
		if err != nil {
			b.Fatal(err)
		}
		if err := rdb.ConfigSet(ctx, "appendfsync", v).Err(); err != nil {
			b.Fatal(err)
		}
		defer rdb.ConfigSet(ctx, "appendfsync", old["appendfsync"])
	}
	b.ResetTimer()
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(runCtx) }()
	for {
		lag := GroupLag(ctx, rdb)
		var n int64
		for _, v := range lag {
			n += v
		}
		if len(lag) == schema.NumShards && n == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-done
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "postings/s")
}
