package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// listingSetup loads the listing merchant's orders the reads are measured on.
type listingSetup struct{ *bench }

// loadListing gives a new merchant ListRows orders among ListTotal in the
// gateway's ClickHouse, loaded directly as query/bench_test.go does (batch
// INSERTs naming schema.OrderColumns, rows from schema.OrderRow): one order
// evenly over the last listingDays for the merchant, the rest likewise over
// 1,000 other merchants, a tenth of the merchant's orders with a second,
// paid version as projection leaves them. The merchant's per-shard Redis
// counters, of orders and of orders by status, are set to match, since they
// give the unfiltered total and the total filtered by status.
// listingDays is how far back the listing data goes: the 90 days a summary
// spans, so every report reads a full span.
const listingDays = 90

func (b listingSetup) loadListing(ctx context.Context) (account, error) {
	m, err := newMerchant(ctx, b.cfg, "bench-list")
	if err != nil {
		return m, err
	}
	start := time.Now()
	insert := "INSERT INTO orders (" + strings.Join(schema.OrderColumns, ", ") + ")"
	now := time.Now().UTC()
	perShard := make([]int64, schema.NumShards)
	paidPerShard := make([]int64, schema.NumShards)
	const chunk = 200_000
	for done := 0; done < b.cfg.ListTotal; {
		batch, err := b.ch.PrepareBatch(ctx, insert)
		if err != nil {
			return m, fmt.Errorf("prepare insert: %w", err)
		}
		for i := done; i < min(done+chunk, b.cfg.ListTotal); i++ {
			appid := m.AppID
			if i >= b.cfg.ListRows {
				appid = "m" + strconv.Itoa(i%1000)
			}
			at := now.Add(-time.Duration(int64(i%b.cfg.ListRows)*listingDays*24*3600*1000/int64(b.cfg.ListRows)) * time.Millisecond)
			shard := schema.Shard(i % schema.NumShards)
			o := schema.Order{ID: schema.NewOrderID(at, shard), AppID: appid, Sandbox: true,
				Amount: schema.Amount(100 + i%10000), Currency: "USD", Method: schema.MethodWalletA,
				Status: schema.StatusReady, ClientOrderID: "c" + strconv.Itoa(i), NotifyURL: "https://shop.example/hook",
				QRPayload: "http://127.0.0.1/sandbox/checkout/x", ClientIP: "127.0.0.1", CreatedAt: at, UpdatedAt: at, Version: 1}
			if err := batch.Append(schema.OrderRow(&o, at)...); err != nil {
				return m, fmt.Errorf("append row: %w", err)
			}
			if appid != m.AppID {
				continue
			}
			perShard[shard]++
			if i%10 == 0 {
				paidPerShard[shard]++
				o.Status, o.Version, o.CompletedAt = schema.StatusPaid, 2, at.Add(time.Minute)
				if err := batch.Append(schema.OrderRow(&o, at)...); err != nil {
					return m, fmt.Errorf("append row: %w", err)
				}
			}
		}
		if err := batch.Send(); err != nil {
			return m, fmt.Errorf("insert rows: %w", err)
		}
		done = min(done+chunk, b.cfg.ListTotal)
	}
	loaded := time.Since(start)
	_, err = b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for s, n := range perShard {
			p.Set(ctx, schema.OrderCountKey(schema.Shard(s), m.AppID), n, 0)
			p.HSet(ctx, schema.StatusCountKey(schema.Shard(s), m.AppID),
				strconv.Itoa(int(schema.StatusReady)), n-paidPerShard[s], strconv.Itoa(int(schema.StatusPaid)), paidPerShard[s])
		}
		return nil
	})
	if err != nil {
		return m, fmt.Errorf("set order counters: %w", err)
	}
	if err := b.ch.Exec(ctx, "OPTIMIZE TABLE orders FINAL"); err != nil {
		b.note("OPTIMIZE TABLE orders FINAL: %v", err)
	}
	b.waitMerges(ctx, 5*time.Minute)
	b.note("listing data: %d rows (%d of merchant %s) loaded in %.1f s, merged in %.1f s more",
		b.cfg.ListTotal, b.cfg.ListRows, m.AppID, loaded.Seconds(), (time.Since(start) - loaded).Seconds())
	return m, b.rollUp(ctx)
}

// rollUp folds the loaded data into the report rollups once, as the
// projector's rollup job does in the background for data that arrived over
// 90 days (the rows were loaded around the projector, so nothing marked
// them). The hours younger than the job's open window stay live.
func (b listingSetup) rollUp(ctx context.Context) error {
	r, err := query.NewRollup(query.RollupConfig{}, b.ch, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := r.RunOnce(ctx)
	if err != nil {
		return fmt.Errorf("report rollups: %w", err)
	}
	b.waitMerges(ctx, 5*time.Minute)
	b.note("report rollups: %d merchant hours of %d rows folded in %.1f s", n, b.cfg.ListTotal, time.Since(start).Seconds())
	return nil
}

// waitMerges waits until ClickHouse runs no merge, so that later phases do
// not pay for this one's data.
func (b listingSetup) waitMerges(ctx context.Context, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var n uint64
		if err := b.ch.QueryRow(ctx, "SELECT count() FROM system.merges").Scan(&n); err != nil || n == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
