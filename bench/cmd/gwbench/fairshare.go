package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/schema"
)

// fairShareReport is the fair share between merchants: a quiet merchant's listing
// (page 1), alone and while the listing merchant floods its own page 1
// from every connection of the closed loops. The flood's refusals (429 or
// 503 from the read gate's queue and wait bounds) are its own; the quiet
// merchant's requests must all succeed.
type fairShareReport struct {
	Quiet   loadgen.Result `json:"quiet"`
	Flooded loadgen.Result `json:"under_flood"`
	Flood   loadgen.Result `json:"flood"`
	// Refused is how many of the flood's answers were refusals (counted
	// in Flood.OK as answers).
	Refused uint64  `json:"flood_refused"`
	Ratio   float64 `json:"p99_ratio"`
}

// fairShareRate is the quiet merchant's listings per second (open loop),
// and fairShareOrders its orders.
const (
	fairShareRate   = 10
	fairShareOrders = 5000
)

func (b readScenario) runFairShare(ctx context.Context, gw *server, flood account) (*fairShareReport, error) {
	quiet, err := newMerchant(ctx, b.cfg, "bench-list-quiet")
	if err != nil {
		return nil, err
	}
	if err := b.seedOrders(ctx, quiet.AppID, fairShareOrders); err != nil {
		return nil, err
	}
	t := &loadgen.Get{URIs: []string{listURI(quiet, 1)}}
	fr := &fairShareReport{}
	if fr.Quiet, err = b.open(ctx, "fair share: another merchant's page 1, quiet", gw, t, fairShareRate, b.cfg.ShortPhase, checkOK); err != nil {
		return fr, err
	}
	err = b.measure("fair share: another merchant's page 1, under the flood", []*server{gw}, nil, func() error {
		floodCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		var refused atomic.Uint64
		go func() {
			var err error
			fr.Flood, err = loadgen.Closed(floodCtx, &loadgen.Get{URIs: []string{listURI(flood, 1)}}, loadgen.Options{Addr: gw.addr,
				Concurrency: b.cfg.Concurrency, Duration: 2 * b.cfg.ShortPhase, OnResponse: refusalsAllowed(&refused)})
			done <- err
		}()
		time.Sleep(warmup(b.cfg.ShortPhase)) // the flood fills its queue first
		var err error
		fr.Flooded, err = loadgen.Open(ctx, t, fairShareRate, loadgen.Options{Addr: gw.addr, Concurrency: b.cfg.ReadConcurrency,
			Duration: b.cfg.ShortPhase, Warmup: warmup(b.cfg.ShortPhase), OnResponse: checkOK})
		stop()
		defer func() { fr.Refused = refused.Load() }()
		if ferr := <-done; ferr != nil && !errors.Is(ferr, context.Canceled) {
			err = errors.Join(err, ferr)
		}
		return err
	})
	b.logf("fair share: quiet %s; under the flood %s; the flood %s", fr.Quiet.String(), fr.Flooded.String(), fr.Flood.String())
	if fr.Quiet.Latency.P99 > 0 {
		fr.Ratio = fr.Flooded.Latency.P99 / fr.Quiet.Latency.P99
	}
	if err == nil && (fr.Quiet.Failed > 0 || fr.Flooded.Failed > 0) {
		err = fmt.Errorf("the quiet merchant's listings failed: %d quiet, %d under the flood", fr.Quiet.Failed, fr.Flooded.Failed)
	}
	// The flood's waiters leave the gate within its longest wait (2 s).
	time.Sleep(2 * time.Second)
	return fr, err
}

// refusalsAllowed accepts a flood's answers: listings, and the read
// gate's refusals of a merchant over its share, which it counts.
func refusalsAllowed(refused *atomic.Uint64) func(*loadgen.Response) error {
	return func(r *loadgen.Response) error {
		switch r.Status {
		case 429, 503:
			refused.Add(1)
			return nil
		}
		return checkOK(r)
	}
}

// seedOrders gives appid n ready orders over the last listingDays in
// ClickHouse, and the per-shard Redis counters that give the listing's
// total, as loadListing does for the listing merchant.
func (b readScenario) seedOrders(ctx context.Context, appid string, n int) error {
	batch, err := b.ch.PrepareBatch(ctx, "INSERT INTO orders ("+strings.Join(schema.OrderColumns, ", ")+")")
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	now := time.Now().UTC()
	perShard := make([]int64, schema.NumShards)
	for i := range n {
		at := now.Add(-time.Duration(int64(i)*listingDays*24*3600*1000/int64(n)) * time.Millisecond)
		shard := schema.Shard(i % schema.NumShards)
		o := schema.Order{ID: schema.NewOrderID(at, shard), AppID: appid, Sandbox: true, Amount: schema.Amount(100 + i),
			Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusReady, ClientOrderID: "q" + strconv.Itoa(i),
			NotifyURL: "https://shop.example/hook", CreatedAt: at, UpdatedAt: at, Version: 1}
		if err := batch.Append(schema.OrderRow(&o, at)...); err != nil {
			return fmt.Errorf("append row: %w", err)
		}
		perShard[shard]++
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("insert rows: %w", err)
	}
	_, err = b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for s, c := range perShard {
			p.Set(ctx, schema.OrderCountKey(schema.Shard(s), appid), c, 0)
			p.HSet(ctx, schema.StatusCountKey(schema.Shard(s), appid), strconv.Itoa(int(schema.StatusReady)), c)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set order counters: %w", err)
	}
	return nil
}
