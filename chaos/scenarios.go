package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Scenario is one fault, or several at once. Inject starts the fault,
// holds it for d while the load runs, and ends it (restarts what it
// killed); the runner then stops the load and audits.
type Scenario struct {
	Name   string
	Fault  string // what was done, for the report
	Quick  bool   // part of `make chaos-quick`
	Hold   time.Duration
	QHold  time.Duration // the hold in quick mode
	Inject func(ctx context.Context, c *Cluster, hold time.Duration) error
	// NoFailedCreates makes any create the load could not get answered a
	// failure of the scenario: its fault must cost nothing the gateway
	// could have served otherwise.
	NoFailedCreates bool
	// Audit, when set, adds the scenario's own problems to the run's
	// audit once that has settled.
	Audit func(ctx context.Context, c *Cluster) []string
}

// restartPause is how long a killed process stays dead: long enough for
// the load to hit the hole, short enough to keep the run short.
const restartPause = 3 * time.Second

// Scenarios is every scenario, in the order of a full run.
func Scenarios() []Scenario {
	return []Scenario{
		kill9("kill9-command", "kill -9 of one command+query process", "cq1"),
		kill9("kill9-projector", "kill -9 of one projector", "proj1"),
		kill9("kill9-dispatcher", "kill -9 of one dispatcher", "disp1"),
		{Name: "kill9-all", Fault: "kill -9 of all six gateway processes at once", Quick: true,
			Inject: func(ctx context.Context, c *Cluster, _ time.Duration) error { return c.killAll(ctx) }},
		{Name: "redis-kill9", Fault: "kill -9 of Redis, restart from its AOF", Quick: true,
			Inject: func(ctx context.Context, c *Cluster, _ time.Duration) error { return c.redisKill9(ctx, nil) }},
		{Name: "ledger-kill9", Fault: "two ledger processes, one killed with kill -9 every 0.2-0.8 s mid-batch and restarted; a planted double posting",
			Quick: true, Hold: 20 * time.Second, QHold: 4 * time.Second, Inject: ledgerKill9,
			Audit: func(ctx context.Context, c *Cluster) []string { return c.ledgerAudit(ctx) }},
		{Name: "payouts-kill9", Fault: "two payout senders, one killed with kill -9 every 0.1-0.5 s mid-send and restarted",
			Quick: true, Hold: 15 * time.Second, QHold: 3 * time.Second, Inject: payoutsKill9,
			Audit: func(ctx context.Context, c *Cluster) []string { return payoutsChaos{c}.payoutsAudit(ctx) }},
		{Name: "payouts-redis-restart", Fault: "payouts asked for (auto-approved, retried under their idempotency keys) and sent by two senders while Redis is killed with kill -9 and restarted on its AOF",
			Hold: 15 * time.Second, QHold: 15 * time.Second, Inject: payoutsRedisRestart,
			Audit: func(ctx context.Context, c *Cluster) []string { return payoutsChaos{c}.payoutsRestartAudit(ctx) }},
		{Name: "events-dispatcher-kill9", Fault: "a burst of endpoint events (3 per order to 3 endpoints) while the dispatchers are killed with kill -9 in turn every 0.3-1 s",
			Hold: 20 * time.Second, QHold: 20 * time.Second, Inject: eventsKill9,
			Audit: func(ctx context.Context, c *Cluster) []string { return eventsChaos{c}.eventsAudit(ctx) }},
		{Name: "channels-fault", Fault: "wallet_a's and wallet_b's default channel hangs, alt resets connections; spare serves",
			Quick: true, Hold: 30 * time.Second, QHold: 6 * time.Second, Inject: channelFaults, NoFailedCreates: true},
		{Name: "clickhouse-stop", Fault: "ClickHouse stopped", Hold: 60 * time.Second, QHold: 15 * time.Second,
			Inject: clickhouseStop},
		receiver("receiver-hang", "merchant endpoint hangs (never answers)", ModeHang, true),
		receiver("receiver-reset", "merchant endpoint resets connections", ModeReset, false),
		receiver("receiver-slow", "merchant endpoint answers after 3 s", ModeSlow, false),
		{Name: "partition", Fault: "dispatcher disp2 cut off from Redis (blackholing proxy)",
			Hold: 30 * time.Second, QHold: 10 * time.Second, Inject: partition},
		{Name: "clock-skew", Fault: "cq1+disp1 clocks 5 min ahead, cq2+disp2 5 min behind (GATEWAY_CLOCK_OFFSET)",
			Hold: 30 * time.Second, QHold: 10 * time.Second, Inject: clockSkew},
		{Name: "combined-storm", Fault: "merchant endpoint hangs + Redis kill -9 + kill -9 of all gateways",
			Hold: 20 * time.Second, QHold: 10 * time.Second, Inject: storm},
		{Name: "combined-degraded", Fault: "ClickHouse stopped + kill -9 of a projector + partition of disp2 + slow endpoint",
			Hold: 30 * time.Second, QHold: 10 * time.Second, Inject: degraded},
	}
}

func kill9(name, fault, proc string) Scenario {
	return Scenario{Name: name, Fault: fault, Inject: func(ctx context.Context, c *Cluster, _ time.Duration) error {
		p := c.Proc(proc)
		p.Kill9()
		time.Sleep(restartPause)
		return p.Start(ctx)
	}}
}

// receiverQHold is the quick run's hold of a receiver fault: past the
// dispatcher's 10 s attempt time-out, so attempts made early in a hang time
// out and are retried while it lasts, which is what the scenario is about.
const receiverQHold = 12 * time.Second

func receiver(name, fault string, m Mode, quick bool) Scenario {
	return Scenario{Name: name, Fault: fault, Quick: quick, Hold: 30 * time.Second, QHold: receiverQHold,
		Inject: func(ctx context.Context, c *Cluster, hold time.Duration) error {
			c.Recv.SetMode(m)
			defer c.Recv.SetMode(ModeNormal)
			return sleep(ctx, hold)
		}}
}

// killAll is SIGKILL to every gateway at once, then all restarted.
func (c *Cluster) killAll(ctx context.Context) error {
	for _, p := range c.Procs {
		go p.Kill9()
	}
	for _, p := range c.Procs {
		for p.running() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(restartPause)
	return c.startProcs(ctx, c.Procs)
}

// redisKill9 kills Redis with SIGKILL and starts it again from its data
// directory (the AOF), with env for the restarted server.
func (c *Cluster) redisKill9(ctx context.Context, env []string) error {
	if err := c.Redis.Kill9(); err != nil {
		return err
	}
	time.Sleep(restartPause)
	return c.Redis.Start(ctx, env...)
}

// clickhouseStop also measures what the outage costs Redis (usage.go).
func clickhouseStop(ctx context.Context, c *Cluster, hold time.Duration) error {
	if err := c.CH.Stop(ctx); err != nil {
		return err
	}
	err := c.measureOutage(ctx, func() error { return sleep(ctx, hold) })
	return errors.Join(err, c.CH.Start(ctx))
}

func partition(ctx context.Context, c *Cluster, hold time.Duration) error {
	c.Proxy.Cut()
	defer c.Proxy.Heal()
	return sleep(ctx, hold)
}

func storm(ctx context.Context, c *Cluster, hold time.Duration) error {
	c.Recv.SetMode(ModeHang)
	defer c.Recv.SetMode(ModeNormal)
	if err := sleep(ctx, hold/2); err != nil {
		return err
	}
	for _, p := range c.Procs {
		go p.Kill9()
	}
	if err := c.redisKill9(ctx, nil); err != nil {
		return err
	}
	for _, p := range c.Procs {
		for p.running() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := c.startProcs(ctx, c.Procs); err != nil {
		return err
	}
	return sleep(ctx, hold/2)
}

func degraded(ctx context.Context, c *Cluster, hold time.Duration) error {
	c.Recv.SetMode(ModeSlow)
	defer c.Recv.SetMode(ModeNormal)
	c.Proxy.Cut()
	defer c.Proxy.Heal()
	if err := c.CH.Stop(ctx); err != nil {
		return err
	}
	p := c.Proc("proj2")
	p.Kill9()
	err := sleep(ctx, hold)
	return errors.Join(err, c.CH.Start(ctx), p.Start(ctx))
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("interrupted: %w", ctx.Err())
	case <-time.After(d):
		return nil
	}
}
