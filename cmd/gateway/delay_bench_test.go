package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// BenchmarkCreateToListed runs the real binary (command, query, projector)
// and creates orders open-loop at GATEWAY_BENCH_RATE per second (default
// 500) for GATEWAY_BENCH_SECONDS (default 10), while polling ClickHouse
// every 10 ms: the delay from a create's answer to the order's first
// appearance in the listing table, p50 and p99 (poll granularity included).
//
//	make bench-listing
func BenchmarkCreateToListed(b *testing.B) {
	rate, seconds := envInt("GATEWAY_BENCH_RATE", 500), envInt("GATEWAY_BENCH_SECONDS", 10)
	e := newE2E(b)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "bench", "--sandbox", "--json")
	s := e.serve()
	p := createParams(shop.AppID)
	p["sign"] = schema.Sign(p, shop.APIKey)
	body, _ := json.Marshal(p)

	var mu sync.Mutex
	created := map[string]time.Time{}
	seen := map[string]time.Time{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pollDone := make(chan struct{})
	go func() { defer close(pollDone); pollListed(b, ctx, e.chDSN, shop.AppID, &mu, seen) }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	b.ResetTimer()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for end := time.Now().Add(time.Duration(seconds) * time.Second); time.Now().Before(end); <-tick.C {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := client.Post(s.base+"/api/createorder", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			var r apiResponse
			_ = json.NewDecoder(res.Body).Decode(&r)
			res.Body.Close()
			at := time.Now()
			mu.Lock()
			created[r.Data["paymentId"].(string)] = at
			mu.Unlock()
		}()
	}
	tick.Stop()
	wg.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= len(created) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-pollDone
	var delays []time.Duration
	for id, at := range created {
		if st, ok := seen[id]; ok {
			delays = append(delays, max(0, st.Sub(at)))
		}
	}
	if len(delays) != len(created) {
		b.Fatalf("%d of %d orders listed", len(delays), len(created))
	}
	slices.Sort(delays)
	pct := func(q float64) float64 { return float64(delays[int(q*float64(len(delays)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(created))/float64(seconds), "creates/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// pollListed records when each of the merchant's orders first shows in the
// listing table.
func pollListed(b *testing.B, ctx context.Context, dsn, appid string, mu *sync.Mutex, seen map[string]time.Time) {
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		b.Error(err)
		return
	}
	defer ch.Close()
	since := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	for ctx.Err() == nil {
		rows, err := ch.Query(ctx, "SELECT DISTINCT id FROM orders WHERE appid = ? AND created_at >= ?", appid, since)
		if err == nil {
			now := time.Now()
			mu.Lock()
			for rows.Next() {
				var id string
				if rows.Scan(&id) == nil {
					if _, ok := seen[id]; !ok {
						seen[id] = now
					}
				}
			}
			mu.Unlock()
			rows.Close()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
