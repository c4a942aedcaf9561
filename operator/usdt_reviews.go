package operator

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// USDTReviews are the administrator's USDT reviews: SPEC.md's super
// administrator approves or rejects the transfers the reviewers could not
// decide. Only the admin role decides (access.PermUSDTReview); support and
// auditors read.
type USDTReviews struct {
	r       *command.USDTReview
	backlog *command.USDTBacklog
	log     Auditor
	now     func() time.Time
}

// NewUSDTReviews wraps the review use cases of the command side: decisions
// (r) and what waits for them (backlog).
func NewUSDTReviews(r *command.USDTReview, backlog *command.USDTBacklog, log Auditor) *USDTReviews {
	return &USDTReviews{r: r, backlog: backlog, log: log, now: time.Now}
}

// Reviews lists the orders of a backlog state: waiting, failed or all.
func (d *USDTReviews) Reviews(ctx context.Context, actor access.Actor, state string) ([]*schema.Order, error) {
	if err := allow(actor, access.PermUSDTRead); err != nil {
		return nil, err
	}
	return d.backlog.Reviews(ctx, state)
}

// Review is one order with its review history, oldest decision first.
func (d *USDTReviews) Review(ctx context.Context, actor access.Actor, id string) (*schema.Order, []usdt.Decision, error) {
	if err := allow(actor, access.PermUSDTRead); err != nil {
		return nil, nil, err
	}
	o, err := d.r.Order(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	h, err := d.backlog.History(ctx, id)
	return o, h, err
}

// Approve: the transfer under review on order id pays it. note says what
// the administrator checked.
func (d *USDTReviews) Approve(ctx context.Context, actor access.Actor, id, note string) (*schema.Order, error) {
	return d.decide(ctx, actor, "approve", id, usdt.Decision{Note: note})
}

// Reject: it does not; the payer reads reason and may pay again.
func (d *USDTReviews) Reject(ctx context.Context, actor access.Actor, id, reason, note string) (*schema.Order, error) {
	return d.decide(ctx, actor, "reject", id, usdt.Decision{Reason: reason, Note: note})
}

func (d *USDTReviews) decide(ctx context.Context, actor access.Actor, verb, id string, dec usdt.Decision) (*schema.Order, error) {
	if err := allow(actor, access.PermUSDTReview); err != nil {
		return nil, err
	}
	var err error
	if dec.Note, err = audit.Text("note", dec.Note, audit.MaxText); err != nil {
		return nil, err
	}
	if dec.Reason, err = audit.Text("reason", dec.Reason, audit.MaxText); err != nil {
		return nil, err
	}
	switch {
	case verb == "approve" && dec.Note == "":
		return nil, invalid("a note is required: say what you checked")
	case verb == "reject" && dec.Reason == "":
		return nil, invalid("a reason is required: the payer reads it")
	}
	dec.By = deciderName(actor)
	before, err := d.r.Order(ctx, id) // its merchant, network and amount, which a decision does not change
	if err != nil {
		return nil, err
	}
	e, err := checked(entry(d.now(), actor, "usdt.review_"+verb, "order:"+id, before.AppID,
		map[string]string{"note": dec.Note, "reason": dec.Reason, "network": before.Network, "amount": before.PayableAmount}))
	if err != nil {
		return nil, err
	}
	decide := d.r.AdminReject
	if verb == "approve" {
		decide = d.r.AdminApprove
	}
	o, err := decide(ctx, id, dec)
	if err != nil {
		return nil, err
	}
	return o, record(ctx, d.log, e)
}

// Attach puts a transfer under review on order id (one its payer could not
// submit); the review then decides as usual.
func (d *USDTReviews) Attach(ctx context.Context, actor access.Actor, id, hash, note string) (*schema.Order, error) {
	if err := allow(actor, access.PermUSDTReview); err != nil {
		return nil, err
	}
	note, err := audit.Text("note", note, audit.MaxText)
	if err != nil {
		return nil, err
	}
	if note == "" {
		return nil, invalid("a note is required: say why the transfer is this order's")
	}
	before, err := d.r.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	e, err := checked(entry(d.now(), actor, "usdt.review_attach", "order:"+id, before.AppID,
		map[string]string{"note": note, "network": before.Network}))
	if err != nil {
		return nil, err
	}
	o, err := d.r.Attach(ctx, id, hash, usdt.Decision{By: deciderName(actor), Note: note})
	if err != nil {
		return nil, err
	}
	return o, record(ctx, d.log, e)
}

// deciderName is how a review's history names the person: admin:NAME (the
// CLI's --by or OS user, or the operator's e-mail).
func deciderName(actor access.Actor) string {
	if actor.Email != "" {
		return "admin:" + actor.Email
	}
	return "admin:" + actor.ID
}
