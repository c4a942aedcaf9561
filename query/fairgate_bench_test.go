package query

import (
	"context"
	"sync"
	"testing"
	"time"
)

// BenchmarkFairShare: merchant m1's listing (page 1) while merchant big
// floods page 1 from 16 connections, on BenchmarkListing's data: quiet,
// under the flood with no gate (every query straight to ClickHouse), and
// under the flood with both going through a FairGate of 2 slots (one per
// merchant at most), and through the same gate without that cap. Target:
// with the gate, m1's p99 within 2x of its quiet value. The gates wait a
// minute, not the default 2 s: the flood keeps its queue full instead of
// being refused (the wait bound is TestFairGateBoundsWait's).
//
//	make bench-listing
func BenchmarkFairShare(b *testing.B) {
	ch, _ := benchData(b)
	orders := NewClickHouseOrders(ch)
	ctx := context.Background()
	page := func(g *FairGate, appid string) error {
		release, err := g.Acquire(ctx, appid)
		if err != nil {
			return err
		}
		defer release()
		_, err = orders.Page(ctx, Filter{AppID: appid, Page: 1, Limit: 10})
		return err
	}
	gate, err := NewFairGate(FairGateConfig{Concurrency: 2, MaxWait: time.Minute}, nil)
	if err != nil {
		b.Fatal(err)
	}
	// Turns without the per-merchant cap: the gate before it, for the A/B.
	uncapped, err := NewFairGate(FairGateConfig{Concurrency: 2, PerMerchantInFlight: 2, MaxWait: time.Minute}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flood bool
		gate  *FairGate
	}{{"quiet", false, nil}, {"flood-no-gate", true, nil}, {"flood-fair-gate", true, gate}, {"flood-gate-uncapped", true, uncapped}} {
		b.Run(tc.name, func(b *testing.B) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 16 {
				if !tc.flood {
					break
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if err := page(tc.gate, "big"); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				if err := page(tc.gate, "m1"); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			close(stop)
			wg.Wait()
			reportPercentiles(b, lat)
		})
	}
}
