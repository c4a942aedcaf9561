package reviewer

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// modeUnknown labels reviews of an order whose network is not configured.
const modeUnknown = "unknown"

// review decides one claimed order. Nothing is returned: a failure is
// logged and counted, and the order falls due again when its lease ends.
//
// The review window is counted from the order's UpdatedAt, which is when the
// hash was submitted: while an order is under review nothing but its review
// outcome changes it (the submit script is the last change before, the
// outcome the first after), so UpdatedAt stays the submit time throughout.
func (r *Reviewer) review(ctx context.Context, c claim) {
	o, ok := r.order(ctx, c)
	if !ok {
		return
	}
	r.progress(ctx, o, schema.USDTProgress{Step: schema.ReviewChecking, Until: o.UpdatedAt.Add(r.cfg.Window)})
	n, known := r.d.Networks.Lookup(o.Network, o.Sandbox)
	if !known {
		r.apply(ctx, o, modeUnknown, verdict{step: stepEscalate, reason: reasonUnknownNetwork, evidence: "network " + o.Network})
		return
	}
	var v verdict
	switch n.Mode {
	case usdt.ModeChain:
		v = r.checkChain(ctx, o, n)
	case usdt.ModeExchange:
		v = r.checkDeposit(ctx, o, n)
	case usdt.ModeDual:
		v = both(r.checkChain(ctx, o, n), r.checkDeposit(ctx, o, n))
	case usdt.ModeExchangePay:
		v = r.checkPayment(ctx, o)
	default:
		v = verdict{step: stepEscalate, reason: reasonUnknownNetwork, evidence: "network " + n.Name + " has mode " + string(n.Mode)}
	}
	r.apply(ctx, o, string(n.Mode), v)
}

// order reads the claimed order and reports whether it is still under
// review; an order that is gone or moved on leaves the queue.
func (r *Reviewer) order(ctx context.Context, c claim) (*schema.Order, bool) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	o, err := r.d.Orders.Order(cctx, c.id)
	cancel()
	if err != nil && !isKind(err, platform.KindNotFound) {
		r.m.errors.WithLabelValues(backendOrders).Inc()
		r.log.Warn("read order under review failed; retried after the lease", "order", c.id, "err", err)
		return nil, false
	}
	if err == nil && underReview(o) {
		return o, true
	}
	r.log.Info("order no longer under review; dropped from the queue", "order", c.id)
	if err := r.q.forget(ctx, c); err != nil {
		r.m.errors.WithLabelValues(backendRedis).Inc()
		r.log.Warn("drop review failed", "order", c.id, "err", err)
	}
	return nil, false
}

// underReview: a live usdt_direct order whose payer submitted a hash and
// whose review is not with an administrator.
func underReview(o *schema.Order) bool {
	return o != nil && o.Status == schema.StatusReady && o.NextAction == schema.NextUSDTReview &&
		o.TxHash != "" && o.Review != usdt.OutcomeWaiting
}

// apply carries a verdict out through the command side. Undecided reviews
// are checked again after the backoff, but never later than the window's
// end, where whatever is still undecided goes to an administrator.
func (r *Reviewer) apply(ctx context.Context, o *schema.Order, mode string, v verdict) {
	now := r.cfg.Now.Now()
	deadline := o.UpdatedAt.Add(r.cfg.Window)
	if v.step == stepLater && !now.Before(deadline) {
		v.step = stepEscalate
	}
	if v.step == stepLater {
		due := now.Add(r.cfg.delay(now.Sub(o.UpdatedAt)))
		if due.After(deadline) {
			due = deadline
		}
		cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		err := r.d.Orders.RescheduleUSDT(cctx, o.ID, due)
		cancel()
		if r.outcomeErr(o, "reschedule", err) {
			r.m.reviews.WithLabelValues(mode, outRetry).Inc()
			r.progress(ctx, o, schema.USDTProgress{Step: v.progress(), NextCheck: due, Until: deadline, Confirmations: v.have, Required: v.need})
		}
		return
	}
	d := usdt.Decision{By: r.id, At: now.UTC(), Reason: v.reason, Note: v.note, Evidence: v.evidence}
	call, out := r.d.Orders.EscalateUSDT, outWaiting
	d.Outcome = usdt.OutcomeWaiting
	switch v.step {
	case stepApprove:
		call, out, d.Outcome, d.Reason = r.d.Orders.ApproveUSDT, outApproved, usdt.OutcomeApproved, ""
	case stepReject:
		call, out, d.Outcome, d.Finding = r.d.Orders.RejectUSDT, outRejected, usdt.OutcomeRejected, v.finding
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	_, err := call(cctx, o.ID, o.TxHash, d)
	cancel()
	if r.outcomeErr(o, out, err) {
		r.m.reviews.WithLabelValues(mode, out).Inc()
		r.m.latency.WithLabelValues(mode).Observe(max(now.Sub(o.UpdatedAt), 0).Seconds())
		r.log.Info("usdt review decided", "order", o.ID, "mode", mode, "outcome", d.Outcome, "reason", d.Reason, "evidence", d.Evidence)
		if v.moveTo != "" {
			r.move(ctx, o, v.moveTo)
		}
	}
}

// move hands a transfer rejected on o for its amount to the order that
// amount names (someone else's public transfer submitted on o). Nothing
// to move to is the common case (a payer's own mistake): not an error.
func (r *Reviewer) move(ctx context.Context, o *schema.Order, payable string) {
	d := usdt.Decision{By: r.id, At: r.cfg.Now.Now().UTC()}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	to, err := r.d.Orders.MoveUSDT(cctx, o.ID, o.TxHash, payable, d)
	cancel()
	switch {
	case err == nil:
		r.log.Info("usdt transfer moved to the order its amount names", "from", o.ID, "to", to.ID, "payable", payable)
	case isKind(err, platform.KindNotFound) || isKind(err, platform.KindConflict):
	default:
		r.m.errors.WithLabelValues(backendOrders).Inc()
		r.log.Warn("move usdt transfer failed", "from", o.ID, "payable", payable, "err", err)
	}
}

// progress records where o's review stands. A failure only leaves the
// payer with older words: it is logged and counted, and the review goes on.
func (r *Reviewer) progress(ctx context.Context, o *schema.Order, p schema.USDTProgress) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	err := r.d.Orders.ProgressUSDT(cctx, o.ID, o.TxHash, p)
	cancel()
	if err != nil && !isKind(err, platform.KindConflict) && !isKind(err, platform.KindNotFound) {
		r.m.errors.WithLabelValues(backendOrders).Inc()
		r.log.Warn("record usdt review progress failed", "order", o.ID, "step", p.Step, "err", err)
	}
}

// outcomeErr reports whether an outcome call landed. A conflict or a
// missing order means another decision got there first (an administrator,
// a reviewer whose lease ran out, a payment another way): nothing to do.
// Any other failure leaves the order to be claimed again after the lease.
func (r *Reviewer) outcomeErr(o *schema.Order, what string, err error) bool {
	switch {
	case err == nil:
		return true
	case isKind(err, platform.KindConflict) || isKind(err, platform.KindNotFound):
		r.log.Info("usdt review outcome refused: the order moved on", "order", o.ID, "outcome", what, "err", err)
	default:
		r.m.errors.WithLabelValues(backendOrders).Inc()
		r.log.Warn("usdt review outcome failed; retried after the lease", "order", o.ID, "outcome", what, "err", err)
	}
	return false
}

func isKind(err error, k platform.Kind) bool { return platform.KindOf(err) == k }
