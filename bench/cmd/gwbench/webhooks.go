package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/bench/loadgen"
	"github.com/paygate/gateway/schema"
)

// webhookScenario is the dispatcher family: paid-to-delivered at a steady
// rate and the drain of a backlog.
type webhookScenario struct{ *bench }

// dispatcherGroup is the dispatcher's consumer group on every shard stream.
const dispatcherGroup = schema.GroupDispatcher

// dispatcherMissing reports whether a gateway's log says it was asked for
// the dispatcher role and does not have it yet.
func dispatcherMissing(logPath string) bool {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return false
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if bytes.Contains(line, []byte("not built yet")) && bytes.Contains(line, []byte(dispatcherGroup)) {
			return true
		}
	}
	return false
}

// startDispatcherAtEnd creates the dispatcher group at the end of every
// stream when it does not exist yet, so that a first dispatcher does not
// spend the webhook phases working through the hundreds of thousands of
// created events the earlier phases queued (it would, from "0").
func (b webhookScenario) startDispatcherAtEnd(ctx context.Context) {
	for _, s := range schema.AllShards() {
		err := b.rdb.XGroupCreateMkStream(ctx, schema.EventsKey(s), dispatcherGroup, "$").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			b.note("create the dispatcher group: %v", err)
			return
		}
	}
}

// createFor creates n orders of merchant m whose notify_url is the
// receiver's, with a closed loop that ends when the bodies are used up.
func (b webhookScenario) createFor(ctx context.Context, name string, gw *server, m account, prefix string, n int, rcv *receiver) ([]string, error) {
	bodies := createBodies(m, ownCreate, prefix, n, rcv.url)
	ids := make([]string, n)
	res, err := loadgen.Closed(ctx, createTarget(bodies), loadgen.Options{Addr: gw.addr, Concurrency: b.cfg.Concurrency,
		Duration: 10 * time.Minute, OnResponse: checkCreate(ids)})
	b.logf("%s: %s", name, res.String())
	if err != nil {
		return nil, err
	}
	return compact(ids), nil
}

// runWebhooksSteady pays orders open-loop at HookRate against a gateway
// with every role, and times each from the pay answer to the webhook's
// arrival. It skips, saying why, when the gateway has no dispatcher yet.
func (b webhookScenario) runWebhooksSteady(ctx context.Context, gw *server) error {
	wr := &webhookReport{Ports: b.cfg.HookPorts, SteadyRate: float64(b.cfg.HookRate)}
	b.rep.Hooks = wr
	if dispatcherMissing(gw.logPath) {
		wr.Skipped = "dispatcher role not available (the gateway logs that the role is not built yet)"
		b.logf("webhooks: %s", wr.Skipped)
		return nil
	}
	rcv, err := newReceiver(b.cfg.HookPorts)
	if err != nil {
		return err
	}
	defer rcv.close()
	m, err := newMerchant(ctx, b.cfg, "bench-hooks")
	if err != nil {
		return err
	}
	n := int(float64(b.cfg.HookRate)*(b.cfg.ShortPhase+warmup(b.cfg.ShortPhase)).Seconds()) + 1
	ids, err := b.createFor(ctx, "webhook orders", gw, m, "hook", n, rcv)
	if err != nil {
		return err
	}
	payAt := make([]atomic.Int64, len(ids))
	check := func(r *loadgen.Response) error {
		if err := checkOK(r); err != nil {
			return err
		}
		payAt[r.Index].Store(r.Done.UnixNano())
		return nil
	}
	pays, err := b.open(ctx, "webhook pays", gw, payTarget(m, ids), float64(b.cfg.HookRate), b.cfg.ShortPhase, check)
	wr.Pays = &pays
	if err != nil {
		return err
	}
	var paid []string
	var firstPay time.Time
	for i := range ids {
		if ns := payAt[i].Load(); ns != 0 {
			paid = append(paid, ids[i])
			if t := time.Unix(0, ns); firstPay.IsZero() || t.Before(firstPay) {
				firstPay = t
			}
		}
	}
	if len(paid) == 0 {
		return errors.New("no pay succeeded")
	}
	got, _, last := b.waitArrivals(ctx, rcv, paid, firstPay.Add(10*time.Second), 30*time.Second)
	if got == 0 {
		wr.Skipped = "dispatcher role not available (no webhook arrived within 10 s of the first pay)"
		b.logf("webhooks: %s", wr.Skipped)
		return nil
	}
	var h loadgen.Histogram
	for i, id := range ids {
		if at, ok := rcv.arrival(id); ok && payAt[i].Load() != 0 {
			h.Record(at.Sub(time.Unix(0, payAt[i].Load())))
		}
	}
	wr.Delivered, wr.Duplicates, wr.Delay = got, rcv.duplicates(), h.Summary()
	wr.SteadyPerS = float64(got) / last.Sub(firstPay).Seconds()
	b.logf("webhooks steady: %d of %d delivered, %.0f/s, paid-to-delivered p50 %.1f ms p99 %.1f ms",
		got, len(paid), wr.SteadyPerS, wr.Delay.P50, wr.Delay.P99)
	return nil
}

// waitArrivals waits for every id's webhook: none by firstBy means none is
// coming; otherwise it waits up to within for the rest.
func (b webhookScenario) waitArrivals(ctx context.Context, rcv *receiver, ids []string, firstBy time.Time, within time.Duration) (int, time.Time, time.Time) {
	deadline := time.Now().Add(within)
	for {
		n, first, last := rcv.count(ids)
		now := time.Now()
		if n == len(ids) || ctx.Err() != nil || now.After(deadline) || (n == 0 && now.After(firstBy)) {
			return n, first, last
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runWebhooksBacklog measures the dispatcher's most deliveries/s: Webhooks
// orders are created and paid on a gateway without the dispatcher role,
// then a gateway with only that role drains them.
func (b webhookScenario) runWebhooksBacklog(ctx context.Context) error {
	wr := b.rep.Hooks
	if wr == nil || wr.Skipped != "" || b.cfg.Webhooks == 0 {
		return nil
	}
	rcv, err := newReceiver(b.cfg.HookPorts)
	if err != nil {
		return err
	}
	defer rcv.close()
	gw, err := startGateway(ctx, b.cfg, "gateway-command", "command")
	if err != nil {
		return err
	}
	m, err := newMerchant(ctx, b.cfg, "bench-hooks-backlog")
	if err != nil {
		gw.stop()
		return err
	}
	ids, err := b.createFor(ctx, "backlog orders", gw, m, "backlog", b.cfg.Webhooks, rcv)
	if err != nil {
		gw.stop()
		return err
	}
	paid := make([]string, len(ids))
	res, err := loadgen.Closed(ctx, payTarget(m, ids), loadgen.Options{Addr: gw.addr, Concurrency: b.cfg.Concurrency,
		Duration: 10 * time.Minute, OnResponse: func(r *loadgen.Response) error {
			if err := checkOK(r); err != nil {
				return err
			}
			paid[r.Index] = ids[r.Index]
			return nil
		}})
	b.logf("backlog pays: %s", res.String())
	gw.stop()
	if err != nil {
		return err
	}
	paid = compact(paid)
	wr.Backlog = len(paid)
	time.Sleep(b.cfg.ReadyAfter)
	start := time.Now()
	d, err := startGateway(ctx, b.cfg, "gateway-dispatcher", "dispatcher")
	if err != nil {
		return err
	}
	defer d.stop()
	ph := b.startPhase("dispatcher backlog", d)
	rec := b.perfPhase(ctx, "dispatcher backlog", d, time.Duration(len(paid)/5000+1)*time.Second)
	got, first, last := b.waitArrivals(ctx, rcv, paid, start.Add(10*time.Second), time.Minute+time.Duration(len(paid)/1000)*time.Second)
	ph.stop()
	if m, err := scrape(ctx, d.ops, "gateway_webhook_"); err == nil {
		wr.Metrics = m
		wr.MeanAttemptMs = 1000 * ratio(m["gateway_webhook_attempt_seconds_sum"], m["gateway_webhook_attempt_seconds_count"])
	}
	b.perfDone(ctx, rec, "dispatcher backlog")
	wr.BacklogGot = got
	if got < 2 {
		return fmt.Errorf("the dispatcher delivered %d of %d queued webhooks", got, len(paid))
	}
	wr.BacklogPerS = float64(got) / last.Sub(first).Seconds()
	b.logf("webhooks backlog: %d of %d in %.2f s = %.0f/s (first after %.2f s); mean attempt %.1f ms", got, len(paid),
		last.Sub(first).Seconds(), wr.BacklogPerS, first.Sub(start).Seconds(), wr.MeanAttemptMs)
	return nil
}
