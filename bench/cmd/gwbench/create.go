package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/redis/go-redis/v9"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/bench/loadgen"
)

// createScenario is the write family: the machine's ceiling and createorder.
type createScenario struct{ *bench }

// runCeiling measures the ceiling server (bench/cmd/ceiling) the same way
// as createorder, on Redis database 1, which it empties afterwards so the
// gateway's memory figures do not see it; then, if asked, the ceiling with
// more sequential writes per request, or batched (max throughput only).
func (b createScenario) runCeiling(ctx context.Context) error {
	pr, err := b.ceiling(ctx, 1, 0, true)
	b.rep.Ceiling = pr
	if err != nil {
		return err
	}
	more := make([]ceilingWrites, 0, len(b.cfg.ExtraWrites)+1)
	for _, n := range b.cfg.ExtraWrites {
		more = append(more, ceilingWrites{Writes: n})
	}
	if b.cfg.CeilingLanes > 0 {
		more = append(more, ceilingWrites{Writes: 1, Lanes: b.cfg.CeilingLanes})
	}
	for _, c := range more {
		pr, err := b.ceiling(ctx, c.Writes, c.Lanes, false)
		if pr != nil {
			c.Max = pr.Max
			b.rep.CeilingMore = append(b.rep.CeilingMore, c)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b createScenario) ceiling(ctx context.Context, writes, lanes int, half bool) (*pair, error) {
	u, err := url.Parse(b.cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	u.Path = "/1"
	srv, err := startServer(ctx, b.cfg, "ceiling", b.cfg.Ceiling,
		[]string{"--addr", "{ADDR}", "--redis-url", u.String(), "--writes", strconv.Itoa(writes), "--lanes", strconv.Itoa(lanes)}, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		srv.stop()
		// A client of its own: SELECT on a pooled connection would send
		// later commands of this run to database 1.
		opt := *b.rdb.Options()
		opt.DB = 1
		db1 := redis.NewClient(&opt)
		defer db1.Close()
		if err := db1.FlushDB(ctx).Err(); err != nil {
			b.note("empty the ceiling's database: %v", err)
		}
	}()
	// The ceiling does not read its body; it gets one of the same size.
	one := createBodies(account{AppID: "1001", APIKey: "k"}, ownCreate, "ceiling", 1, nil)
	target := createTarget(one)
	same := loadgen.TargetFunc(func(_ int, req *fasthttp.Request) bool { return target.Fill(0, req) })
	name := ceilingPhase(writes, lanes)
	pr := &pair{}
	if pr.Max, err = b.closed(ctx, name+" max", srv, same, b.cfg.Phase, checkOK); err != nil {
		return pr, err
	}
	if pr.Max.Throughput == 0 {
		return pr, errors.New("the ceiling answered nothing")
	}
	if !half {
		return pr, nil
	}
	h, err := b.open(ctx, name+" half", srv, same, pr.Max.Throughput/2, b.cfg.Phase, checkOK)
	pr.Half = &h
	return pr, err
}

// ceilingPhase names a ceiling's phases (without " max" or " half").
func ceilingPhase(writes, lanes int) string {
	switch {
	case lanes > 0:
		return fmt.Sprintf("ceiling batched %d lanes", lanes)
	case writes != 1:
		return fmt.Sprintf("ceiling %d writes", writes)
	}
	return "ceiling"
}

// createRun is what the createorder phases leave for later ones: the orders
// created (index i has clientOrderId prefix-i), for queries and memory.
type createRun struct {
	merchant account
	prefix   string
	ids      []string
}

// runCreate measures createorder: the most it sustains at the configured
// concurrency (closed loop), then latency at half that rate (open loop),
// every request a new order with its own clientOrderId.
func (b createScenario) runCreate(ctx context.Context, gw *server) (*createRun, error) {
	m, err := newMerchant(ctx, b.cfg, "bench-create")
	if err != nil {
		return nil, err
	}
	run := &createRun{merchant: m, prefix: "cmax"}
	n := b.cfg.PoolRate * int((b.cfg.Phase+warmup(b.cfg.Phase)).Seconds()+1)
	b.logf("signing %d create bodies", n)
	bodies := createBodies(m, ownCreate, run.prefix, n, nil)
	run.ids = make([]string, n)
	memBefore := b.redisInfo(ctx, "memory")["used_memory"]
	streamsBefore, _ := memoryScenario{b.bench}.streamBytes(ctx)
	rss := sampleRSS(gw.pid())
	cr := &createReport{}
	b.rep.Create = cr
	cr.Max, err = b.closed(ctx, "createorder max", gw, createTarget(bodies), b.cfg.Phase, checkCreate(run.ids))
	b.rep.Memory.GatewayRSSMiB = rss.stop()
	if err != nil {
		return run, err
	}
	if cr.Max.Exhausted {
		b.note("createorder max used up its %d pre-signed bodies before the phase ended; raise --pool-rate", n)
	}
	b.createMax = cr.Max.Throughput
	if c := b.rep.Ceiling; c != nil && c.Max.Throughput > 0 {
		cr.Ratio = cr.Max.Throughput / c.Max.Throughput
	}
	if b.cfg.Breakdown {
		b.breakdownRedis(ctx, gw, m)
	}
	if b.cfg.Perf {
		b.profileCreate(ctx, gw, m)
	}
	halfRate := cr.Max.Throughput / 2
	hn := int(halfRate*(b.cfg.Phase+warmup(b.cfg.Phase)).Seconds()) + 1
	halfBodies := createBodies(m, ownCreate, "chalf", hn, nil)
	rss = sampleRSS(gw.pid())
	half, err := b.open(ctx, "createorder half", gw, createTarget(halfBodies), halfRate, b.cfg.Phase, checkCreate(nil))
	b.rep.Memory.GatewayRSSMiB = max(b.rep.Memory.GatewayRSSMiB, rss.stop())
	cr.Half = &half
	if err != nil {
		return run, err
	}
	memoryScenario{b.bench}.redisMemory(ctx, run, memBefore, streamsBefore,
		b.rep.answered("createorder max")+b.rep.answered("createorder under perf")+b.rep.answered("createorder half"))
	b.runProviderCreates(ctx, gw, m, cr)
	return run, nil
}

// runProviderCreates measures creates that also ask a provider (the
// sandbox's simulator in the same process): their max throughput, closed
// loop, a short phase each.
func (b createScenario) runProviderCreates(ctx context.Context, gw *server, m account, cr *createReport) {
	for _, pm := range providerCreates {
		n := b.cfg.PoolRate * int((b.cfg.ShortPhase+warmup(b.cfg.ShortPhase)).Seconds()+1) / 4
		bodies := createBodies(m, pm, "p"+pm.method, n, nil)
		res, err := b.closed(ctx, "createorder "+pm.method+" max", gw, createTarget(bodies), b.cfg.ShortPhase, checkCreate(nil))
		if err != nil {
			b.note("createorder %s: %v", pm.method, err)
			continue
		}
		cr.Providers = append(cr.Providers, providerCreate{Method: pm.method, Currency: pm.currency, Max: res})
	}
}

// profileCreate runs an extra createorder phase under perf, so the
// headline figures are not measured with a profiler attached.
func (b createScenario) profileCreate(ctx context.Context, gw *server, m account) {
	n := b.cfg.PoolRate * int((b.cfg.ShortPhase+warmup(b.cfg.ShortPhase)).Seconds()+1)
	bodies := createBodies(m, ownCreate, "cperf", n, nil)
	rec := b.perfPhase(ctx, "createorder", gw, b.cfg.ShortPhase+warmup(b.cfg.ShortPhase))
	var rrec *perfRecording
	if b.cfg.Breakdown && b.cfg.RedisPID > 0 {
		var err error
		if rrec, err = startPerf(ctx, b.cfg, "createorder redis", b.cfg.RedisPID, b.cfg.ShortPhase+warmup(b.cfg.ShortPhase)); err != nil {
			b.note("perf of Redis: %v", err)
		}
	}
	if _, err := b.closed(ctx, "createorder under perf", gw, createTarget(bodies), b.cfg.ShortPhase, checkCreate(nil)); err != nil {
		b.note("createorder under perf: %v", err)
	}
	b.perfDone(ctx, rec, "createorder")
	if b.cfg.Breakdown && rec != nil {
		br := b.breakdown()
		br.Gateway, br.GatewayUsPerCreate = b.perfBreakdown(ctx, rec.path, gw.name, classify)
	}
	if rrec != nil {
		b.perfDone(ctx, rrec, "createorder (Redis)")
		br := b.breakdown()
		br.RedisParts, br.RedisUsPerCreate = b.perfBreakdown(ctx, rrec.path, "redis", classifyRedis)
	}
}
