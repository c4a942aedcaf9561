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
}

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
	rep := &Report{Mode: mode(cfg.Quick), Started: started.UTC()}
	load := NewLoad(c)
	for _, s := range chosen(cfg) {
		if ctx.Err() != nil {
			break
		}
		r := c.scenario(ctx, load, s)
		log.Info("scenario done", "name", r.Name, "ok", r.Audit.OK() && r.Err == "", "answered", r.Answered,
			"failed", r.Failed, "settled", r.Settled, "problems", r.Audit.Problems, "err", r.Err)
		for op, n := range r.Ops {
			if n.Failed > 0 {
				log.Info("failed requests", "scenario", r.Name, "op", op, "failed", n.Failed, "first", n.FirstErr)
			}
		}
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

func mode(quick bool) string {
	if quick {
		return "quick"
	}
	return "full"
}

// chosen is the scenarios of the run: the baseline first, then those named
// or those of the mode.
func chosen(cfg Config) []Scenario {
	out := []Scenario{{Name: "baseline", Fault: "none", Quick: true,
		Inject: func(ctx context.Context, _ *Cluster, _ time.Duration) error { return sleep(ctx, 5*time.Second) }}}
	for _, s := range Scenarios() {
		switch {
		case len(cfg.Scenarios) > 0 && slices.Contains(cfg.Scenarios, s.Name):
		case len(cfg.Scenarios) == 0 && (!cfg.Quick || s.Quick):
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// scenario runs the load, injects the fault while it runs, stops the load
// and audits until the audit passes or Settle is spent.
func (c *Cluster) scenario(ctx context.Context, load *Load, s Scenario) Result {
	hold := s.Hold
	if c.cfg.Quick && s.QHold > 0 {
		hold = s.QHold
	}
	around := 5 * time.Second
	if c.cfg.Quick {
		around = 3 * time.Second
	}
	r := Result{Name: s.Name, Fault: s.Fault, Hold: hold}
	opsBefore, createsBefore := load.Ops(), len(load.Creates())
	c.log.Info("scenario", "name", s.Name, "fault", s.Fault, "hold", hold)
	load.Run(DefaultRates)
	_ = sleep(ctx, around)
	if err := s.Inject(ctx, c, hold); err != nil {
		r.Err = err.Error()
	}
	_ = sleep(ctx, around)
	load.Stop()
	r.Ops = diffOps(load.Ops(), opsBefore)
	for _, cr := range load.Creates()[createsBefore:] {
		if cr.PaymentID != "" {
			r.Answered++
		} else {
			r.Failed++
		}
	}
	r.Audit, r.Settled = c.settle(ctx, load)
	if !r.Audit.OK() && ctx.Err() == nil {
		r.Recovery = c.recover(ctx, load)
	}
	return r
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
		out[k] = OpCount{OK: a.OK - b.OK, Failed: a.Failed - b.Failed, FirstErr: a.FirstErr}
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
