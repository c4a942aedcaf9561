package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// projectorScenario is the projector family: how fast it catches up on a
// backlog (catchup.go) and how long a create takes to be listed (delay.go).
type projectorScenario struct{ *bench }

// projectorGroup is the projector's consumer group.
const projectorGroup = schema.GroupProjector

// runCatchup queues at least Catchup events with no projector running (the
// creates of earlier phases, topped up with synthetic ones), then starts a
// gateway with only the projector role and times it until its group has
// read and acknowledged everything on every shard.
func (b projectorScenario) runCatchup(ctx context.Context) error {
	lags, err := b.groupLag(ctx, projectorGroup)
	if err != nil {
		return err
	}
	if lags.groups > 0 {
		return fmt.Errorf("the %s group already exists on %d streams: catch-up needs a projector that never ran", projectorGroup, lags.groups)
	}
	queued := b.streamLen(ctx)
	cu := &catchUpReport{}
	b.rep.CatchUp = cu
	m, err := newMerchant(ctx, b.cfg, "bench-catchup")
	if err != nil {
		return err
	}
	if need := b.cfg.Catchup - int(queued); need > 0 {
		start := time.Now()
		if err := b.injectEvents(ctx, m.AppID, need); err != nil {
			return err
		}
		cu.Injected, cu.InjectPerSec = need, float64(need)/time.Since(start).Seconds()
	}
	cu.Events = b.streamLen(ctx)
	b.logf("catch-up: %d events queued (%d synthetic)", cu.Events, cu.Injected)
	time.Sleep(b.cfg.ReadyAfter)
	start := time.Now()
	srv, err := startGateway(ctx, b.cfg, "gateway-projector", "projector")
	if err != nil {
		return err
	}
	defer srv.stop()
	ready := time.Now()
	ph := b.startPhase("projector catch-up", srv)
	rec := b.perfPhase(ctx, "projector catch-up", srv, time.Duration(cu.Events/50_000+1)*time.Second)
	err = b.waitCaughtUp(ctx, cu.Events)
	done := time.Now()
	ph.stop()
	met, merr := scrape(ctx, srv.ops, "gateway_projector_")
	b.perfDone(ctx, rec, "projector catch-up")
	if err != nil {
		return err
	}
	cu.Seconds = done.Sub(start).Seconds()
	cu.PerSec = float64(cu.Events) / cu.Seconds
	cu.FromReady = float64(cu.Events) / done.Sub(ready).Seconds()
	if merr == nil {
		cu.Metrics = met
		cu.Inserts = met["gateway_projector_insert_duration_seconds_count"]
		cu.MeanBatch = ratio(met["gateway_projector_batch_rows_sum"], met["gateway_projector_batch_rows_count"])
		cu.MeanInsertMs = 1000 * ratio(met["gateway_projector_insert_duration_seconds_sum"], cu.Inserts)
		cu.InsertShare = ratio(met["gateway_projector_insert_duration_seconds_sum"], done.Sub(ready).Seconds())
	} else {
		b.note("projector metrics: %v", merr)
	}
	_ = b.ch.QueryRow(ctx, "SELECT count() FROM orders WHERE appid = ?", m.AppID).Scan(&cu.Rows)
	b.logf("catch-up: %d events in %.2f s = %.0f events/s (%.0f from ready); %d rows in ClickHouse; %.0f inserts of %.0f rows, %.1f ms each, %.0f%% of the time",
		cu.Events, cu.Seconds, cu.PerSec, cu.FromReady, cu.Rows, cu.Inserts, cu.MeanBatch, cu.MeanInsertMs, 100*cu.InsertShare)
	return nil
}

// waitCaughtUp polls until the projector group exists on every shard with
// nothing left to read or acknowledge, within a bound that assumes at
// least 5,000 events/s.
func (b projectorScenario) waitCaughtUp(ctx context.Context, events int64) error {
	limit := 60*time.Second + time.Duration(events/5000)*time.Second
	for deadline := time.Now().Add(limit); ; {
		l, err := b.groupLag(ctx, projectorGroup)
		if err != nil {
			return err
		}
		if l.groups == schema.NumShards && l.lag == 0 && l.pending == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("projector still %d behind and %d pending after %v", l.lag, l.pending, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamLen is the number of entries in every shard's event stream.
func (b projectorScenario) streamLen(ctx context.Context) int64 {
	var n int64
	for _, s := range schema.AllShards() {
		n += b.rdb.XLen(ctx, schema.EventsKey(s)).Val()
	}
	return n
}

type lagSum struct {
	groups       int   // streams on which the group exists
	lag, pending int64 // summed over them
	unknown      int   // streams whose lag Redis could not tell
}

// groupLag sums a consumer group's lag (entries not yet read) and pending
// (read, not acknowledged) over the shard streams.
func (b projectorScenario) groupLag(ctx context.Context, group string) (lagSum, error) {
	var out lagSum
	shards := schema.AllShards()
	cmds := make([]*redis.XInfoGroupsCmd, len(shards))
	infos := make([]*redis.XInfoStreamCmd, len(shards))
	_, _ = b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, s := range shards {
			cmds[i] = p.XInfoGroups(ctx, schema.EventsKey(s))
			infos[i] = p.XInfoStream(ctx, schema.EventsKey(s))
		}
		return nil
	})
	for i := range shards {
		gs, err := cmds[i].Result()
		if err != nil {
			continue // no stream yet
		}
		for _, g := range gs {
			if g.Name != group {
				continue
			}
			out.groups++
			out.pending += g.Pending
			switch {
			case g.Lag >= 0:
				out.lag += g.Lag
			case infos[i].Err() == nil && infos[i].Val().LastGeneratedID == g.LastDeliveredID:
				// Lag is unknown after deletions; caught up all the same.
			default:
				out.lag++
				out.unknown++
			}
		}
	}
	return out, nil
}

// injectEvents appends n created events shaped exactly as create.lua writes
// them (schema.EventFields: the type, the time and the order hash's fields),
// spread over the shards, in pipelines of 2,000: with appendfsync always,
// one fsync each.
func (b projectorScenario) injectEvents(ctx context.Context, appid string, n int) error {
	now := time.Now().UTC()
	const batch = 2000
	for done := 0; done < n; {
		_, err := b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := done; i < min(done+batch, n); i++ {
				shard := schema.Shard(i % schema.NumShards)
				at := now.Add(time.Duration(i) * time.Microsecond)
				o := schema.Order{ID: schema.NewOrderID(at, shard), AppID: appid, Sandbox: true,
					ClientOrderID: "q-" + strconv.Itoa(i), Amount: 10000, Currency: "CNY", Method: schema.MethodWalletA,
					Status: schema.StatusReady, Description: "bench order", ClientIP: "127.0.0.1",
					QRPayload: "http://127.0.0.1/sandbox/checkout/" + "x", CreatedAt: at, UpdatedAt: at, Version: 1}
				p.XAdd(ctx, &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(schema.EventCreated, at, &o)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("inject events: %w", err)
		}
		done = min(done+batch, n)
	}
	return nil
}
