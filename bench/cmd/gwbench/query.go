package main

import (
	"context"
	"errors"

	"github.com/paygate/gateway/bench/loadgen"
)

// readScenario is the API and page reads of live orders and of the listing
// merchant (query.go, pages.go, reports.go, fairshare.go); the shared
// pairs of runs stay on bench.
type readScenario struct{ *bench }

// runPair is the usual measurement of a read: the most it sustains at the
// configured concurrency, then latency at half of that; check judges each
// response (checkOK for the JSON API).
func (b *bench) runPair(ctx context.Context, name string, gw *server, t loadgen.Target, check func(*loadgen.Response) error) (*pair, error) {
	return b.runPairAt(ctx, name, gw, t, b.cfg.Concurrency, check)
}

// runReadPair is runPair for a read of ClickHouse, whose closed loop has
// ReadConcurrency connections: the gateway's read gate runs a few of one
// merchant's queries at once, so more connections add nothing but waiting
// (and refusals past its longest wait) to the maximum.
func (b *bench) runReadPair(ctx context.Context, name string, gw *server, t loadgen.Target) (*pair, error) {
	return b.runPairAt(ctx, name, gw, t, b.cfg.ReadConcurrency, checkOK)
}

func (b *bench) runPairAt(ctx context.Context, name string, gw *server, t loadgen.Target, conc int, check func(*loadgen.Response) error) (*pair, error) {
	pr := &pair{}
	var err error
	if pr.Max, err = b.closedAt(ctx, name+" max", gw, t, b.cfg.ShortPhase, conc, check); err != nil {
		return pr, err
	}
	if pr.Max.Throughput == 0 {
		return pr, errors.New(name + ": nothing succeeded")
	}
	half, err := b.open(ctx, name+" half", gw, t, pr.Max.Throughput/2, b.cfg.ShortPhase, check)
	pr.Half = &half
	return pr, err
}

// runOrder reads the live orders createorder made (Redis-served), each
// query a different order.
func (b readScenario) runOrder(ctx context.Context, gw *server, run *createRun) error {
	ids := compact(run.ids)
	if len(ids) == 0 {
		return errors.New("no orders to query: createorder created none")
	}
	uris := orderURIs(run.merchant, ids[:min(len(ids), 200_000)])
	pr, err := b.runPair(ctx, "action=order", gw, &loadgen.Get{URIs: uris}, checkOK)
	b.rep.Order = pr
	return err
}

// runListing reads page 1, the deep page and page 1 filtered by status of
// the listing merchant,
// whose orders loadListing put into ClickHouse.
func (b readScenario) runListing(ctx context.Context, gw *server, m account) error {
	pr, err := b.runReadPair(ctx, "action=orders page 1", gw, &loadgen.Get{URIs: []string{listURI(m, 1)}})
	b.rep.List = pr
	if err != nil {
		return err
	}
	pr, err = b.runReadPair(ctx, "action=orders deep page", gw, &loadgen.Get{URIs: []string{listURI(m, b.cfg.DeepPage)}})
	b.rep.ListDeep = pr
	if err != nil {
		return err
	}
	// Filtered by status alone: the page from ClickHouse, its total from
	// the per-status counters (542 ms p50 when ClickHouse counted it).
	pr, err = b.runReadPair(ctx, "action=orders status=paid page 1", gw, &loadgen.Get{URIs: []string{listURI(m, 1) + "&status=paid"}})
	b.rep.ListPaid = pr
	return err
}
