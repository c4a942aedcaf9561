package chaos

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Result is one scenario's outcome.
type Result struct {
	Name, Fault string
	Hold        time.Duration
	Ops         map[string]OpCount // requests during the scenario
	Answered    int                // creates answered 2xx during the scenario
	Failed      int                // creates not answered 2xx during the scenario
	Audit       Figures            // of everything since the run began
	Settled     time.Duration      // from the end of the load to a passing audit (or the give-up)
	Err         string             // the fault itself could not be injected or undone
	Recovery    string             // after a failed audit: what restarting the gateways showed
	Activity    Activity           // what the scenario achieved, for the floors
	Want        Want               // the floors of the activity
	Floor       []string           // floors the activity fell below
	Reasons     map[string]int     // failed requests by "op reason"
	FailingFor  time.Duration      // from the fault's start to the last failed request (0: none failed)
}

// OK reports whether the scenario passed: its fault was injected and
// undone, the audit passed and the activity reached its floors.
func (r Result) OK() bool { return r.Err == "" && r.Audit.OK() && len(r.Floor) == 0 }

// Run is a whole chaos run: the cluster, each scenario with its audit, the
// planted loss, the report. It fails when any audit fails.
func Run(ctx context.Context, cfg Config, log *slog.Logger) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	c, err := Start(ctx, cfg, log)
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	log.Info("cluster up", "redis", c.RedisURL(), "clickhouse", c.ClickHouseDSN(), "receiver", c.Recv.URL())
	rep := &Report{Mode: mode(cfg.Quick), Started: started.UTC(), Rates: cfg.Rates, Floors: cfg.Floors,
		FailuresFile: cfg.Failures, ClientTimeout: cfg.ClientTimeout}
	fl, err := openFailureLog(cfg.Failures)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	load := NewLoad(c, fl)
	var ref *Activity // the baseline's, once it ran
	for _, s := range chosen(cfg) {
		if ctx.Err() != nil {
			break
		}
		r := c.scenario(ctx, load, s, ref)
		if ref == nil {
			ref = &r.Activity
		}
		logResult(log, r)
		rep.Results = append(rep.Results, r)
	}
	if cs := clusterScenario(); wants(cfg, cs) && ctx.Err() == nil {
		r := runOnRedisCluster(ctx, cfg, log, c.CH.Port, cs, fl, ref)
		logResult(log, r)
		rep.Results = append(rep.Results, r)
	}
	rep.Usage = c.usage
	if cfg.PlantLoss && ctx.Err() == nil {
		rep.Planted = c.plantLoss(ctx, load)
		log.Info("planted loss", "result", rep.Planted)
	}
	rep.Duration = time.Since(started).Round(time.Second)
	return rep, rep.Err()
}

func logResult(log *slog.Logger, r Result) {
	log.Info("scenario done", "name", r.Name, "ok", r.OK(), "answered", r.Answered,
		"failed", r.Failed, "settled", r.Settled, "problems", r.Audit.Problems, "floor", r.Floor, "err", r.Err)
	log.Info("activity", "scenario", r.Name, "creates", r.Activity.Creates, "want", r.Want.Creates,
		"paid_with_webhook", r.Activity.PaidWebhooks, "want", r.Want.PaidWebhooks,
		"balance_payments", r.Activity.BalancePayments, "want", r.Want.BalancePayments,
		"in", r.Activity.Duration.Round(100*time.Millisecond), "basis", r.Want.Basis)
	for op, n := range r.Ops {
		log.Info("requests", "scenario", r.Name, "op", op, "ok", n.OK, "failed", n.Failed,
			"slowest_answered", n.Slowest.Round(time.Millisecond), "first_err", n.FirstErr)
	}
	if len(r.Reasons) > 0 {
		log.Info("failed requests by reason", "scenario", r.Name, "reasons", reasonsLine(r.Reasons))
	}
}

func mode(quick bool) string {
	if quick {
		return "quick"
	}
	return "full"
}

// wants reports whether the run includes s.
func wants(cfg Config, s Scenario) bool {
	if len(cfg.Scenarios) > 0 {
		return slices.Contains(cfg.Scenarios, s.Name)
	}
	return !cfg.Quick || s.Quick
}

// runOnRedisCluster runs s in a world of its own on a Redis Cluster (the
// other scenarios' faults are a single Redis's), with the same load and
// the same audit. Its floors come from the main run's baseline (ref).
func runOnRedisCluster(ctx context.Context, cfg Config, log *slog.Logger, chPort int, s Scenario, fl *failureLog, ref *Activity) Result {
	c, err := StartOnRedisCluster(ctx, cfg, log, chPort)
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		return Result{Name: s.Name, Fault: s.Fault, Err: "start on a Redis Cluster: " + err.Error()}
	}
	log.Info("redis cluster up", "seed", c.RedisURL(), "clickhouse", c.ClickHouseDSN(), "receiver", c.Recv.URL())
	return c.scenario(ctx, NewLoad(c, fl), s, ref)
}

// chosen is the scenarios of the run: the baseline first, then those named
// or those of the mode.
func chosen(cfg Config) []Scenario {
	out := []Scenario{{Name: "baseline", Fault: "none", Quick: true,
		Inject: func(ctx context.Context, _ *Cluster, _ time.Duration) error { return sleep(ctx, 5*time.Second) }}}
	for _, s := range Scenarios() {
		if wants(cfg, s) {
			out = append(out, s)
		}
	}
	return out
}

// scenario runs the load, injects the fault while it runs, stops the load
// and audits until the audit passes or Settle is spent. ref is the run's
// baseline activity, for the floors (nil: s is the baseline).
func (c *Cluster) scenario(ctx context.Context, load *Load, s Scenario, ref *Activity) Result {
	hold := s.Hold
	if c.cfg.Quick && s.QHold > 0 {
		hold = s.QHold
	}
	// Load runs this long before the fault and after it ends, so every
	// scenario sees work done on both sides of its fault.
	around := 5 * time.Second
	if c.cfg.Quick {
		around = 2 * time.Second
	}
	r := Result{Name: s.Name, Fault: s.Fault, Hold: hold}
	opsBefore, createsBefore, paidBefore := load.Ops(), len(load.Creates()), len(load.Paid())
	c.log.Info("scenario", "name", s.Name, "fault", s.Fault, "hold", hold)
	began := time.Now()
	load.Run(s.Name, c.cfg.Rates)
	_ = sleep(ctx, around)
	injected := time.Now()
	if err := s.Inject(ctx, c, hold); err != nil {
		r.Err = err.Error()
	}
	_ = sleep(ctx, around)
	load.Stop()
	r.Activity.Duration = time.Since(began)
	if last := load.LastFailure(); last.After(injected) {
		r.FailingFor = last.Sub(injected)
	}
	r.Ops = diffOps(load.Ops(), opsBefore)
	r.Reasons = load.Reasons()
	for _, cr := range load.Creates()[createsBefore:] {
		if cr.PaymentID != "" {
			r.Answered++
		} else {
			r.Failed++
		}
	}
	r.Audit, r.Settled = c.settle(ctx, load)
	if s.Audit != nil && ctx.Err() == nil {
		r.Audit.Problems = append(r.Audit.Problems, s.Audit(ctx, c)...)
	}
	r.Activity.Creates, r.Activity.CreatesSent = r.Answered, r.Answered+r.Failed
	r.Activity.PaidWebhooks = acknowledged(load.Paid()[paidBefore:], c.Recv.Seen())
	r.Activity.BalancePayments = r.Ops["balance create"].OK + r.Ops["balance transfer"].OK
	for _, n := range r.Ops {
		r.Activity.FailedRequests += n.Failed
	}
	r.Activity.FailedBy = r.Reasons
	r.Want = c.cfg.Floors.For(ref, r.Activity)
	r.Floor = c.cfg.Floors.Check(ref, r.Activity)
	if s.NoFailedCreates && r.Failed > 0 {
		r.Floor = append(r.Floor, fmt.Sprintf("%d creates failed that another channel could serve", r.Failed))
	}
	if !r.Audit.OK() && ctx.Err() == nil {
		r.Recovery = c.recover(ctx, load)
	}
	return r
}

// acknowledged counts the paid orders whose webhook the receiver answered
// "success" (after the settle, so retried deliveries count).
func acknowledged(paid []string, seen map[string]Webhook) int {
	n := 0
	for _, id := range paid {
		if seen[id].Acked > 0 {
			n++
		}
	}
	return n
}

// recover restarts every gateway process after a failed audit and audits
// again, so that one stuck process does not fail every later scenario and
// the report says whether anything was lost or only stuck. The scenario
// stays failed either way.
func (c *Cluster) recover(ctx context.Context, load *Load) string {
	for _, p := range c.Procs {
		p.Stop()
	}
	if err := c.startProcs(ctx, c.Procs); err != nil {
		return "gateways could not be restarted: " + err.Error()
	}
	f, took := c.settle(ctx, load)
	if f.OK() {
		return fmt.Sprintf("the audit passed %s after restarting every gateway process", took)
	}
	return "still failing after restarting every gateway process: " + strings.Join(f.Problems, "; ")
}

// settle audits every two seconds until the audit passes or Settle is
// spent; the last audit is the result.
func (c *Cluster) settle(ctx context.Context, load *Load) (Figures, time.Duration) {
	start := time.Now()
	var f Figures
	for {
		s, err := Collect(ctx, c.sources(load))
		if err != nil {
			f = Figures{Problems: []string{"collect: " + err.Error()}}
		} else {
			f = Audit(s)
		}
		if f.OK() || time.Since(start) > c.cfg.Settle || ctx.Err() != nil {
			return f, time.Since(start).Round(time.Second)
		}
		_ = sleep(ctx, 2*time.Second)
	}
}

func (c *Cluster) sources(load *Load) Sources {
	return Sources{Redis: c.rdb, CH: c.ch, Received: c.Recv.Seen(), M: c.M, Creates: load.Creates()}
}

func diffOps(after, before map[string]OpCount) map[string]OpCount {
	out := map[string]OpCount{}
	for k, a := range after {
		b := before[k]
		out[k] = OpCount{OK: a.OK - b.OK, Failed: a.Failed - b.Failed, FirstErr: a.FirstErr, Slowest: a.Slowest}
	}
	return out
}

// plantLoss shows the audit can fail: it deletes one answered order from
// Redis, as a lost write would, and expects the audit to name it.
func (c *Cluster) plantLoss(ctx context.Context, load *Load) string {
	var victim string
	for _, cr := range load.Creates() {
		if cr.PaymentID != "" && cr.AppID == c.M.Shop.AppID {
			victim = cr.PaymentID
			break
		}
	}
	shard, ok := schema.ParseOrderID(victim)
	if !ok {
		return "not run: no answered order"
	}
	if err := c.rdb.Del(ctx, schema.OrderKey(shard, victim)).Err(); err != nil {
		return "not run: " + err.Error()
	}
	s, err := Collect(ctx, c.sources(load))
	if err != nil {
		return "not run: " + err.Error()
	}
	for _, p := range Audit(s).Problems {
		if strings.HasPrefix(p, "lost: "+victim) {
			return "detected: deleted " + victim + " from Redis; the audit said \"" + p + "\""
		}
	}
	return "MISSED: deleted " + victim + " from Redis and the audit did not notice"
}
