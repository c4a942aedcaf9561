package chaos

import (
	"context"
	"errors"
	"time"
)

// clockSkews are the clocks of the clock-skew scenario: one command+query
// process and one dispatcher five minutes ahead, the other pair five
// minutes behind, so every cross-process comparison of times meets a
// writer on the other side of the real time.
var clockSkews = []struct{ proc, offset string }{
	{"cq1", "5m"}, {"disp1", "5m"}, {"cq2", "-5m"}, {"disp2", "-5m"},
}

// clockSkew restarts the processes of clockSkews with GATEWAY_CLOCK_OFFSET
// (a Go binary's clock cannot be moved from outside: it reads the vDSO,
// which libfaketime does not reach), holds, and restarts them on the real
// clock. Restarts are one at a time and graceful, so the fault is the
// skew, not an outage.
func clockSkew(ctx context.Context, c *Cluster, hold time.Duration) error {
	var errs []error
	for _, s := range clockSkews {
		errs = append(errs, c.restart(ctx, s.proc, "GATEWAY_CLOCK_OFFSET="+s.offset))
	}
	errs = append(errs, sleep(ctx, hold))
	for _, s := range clockSkews {
		errs = append(errs, c.restart(ctx, s.proc))
	}
	return errors.Join(errs...)
}

// restart stops the named process gracefully and starts it with extra
// in its environment for this run.
func (c *Cluster) restart(ctx context.Context, name string, extra ...string) error {
	p := c.Proc(name)
	p.Stop()
	return p.Start(ctx, extra...)
}
