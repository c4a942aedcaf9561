package operator

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/payout"
)

// Payouts is the operator's side of the merchants' payouts: the review
// queue, the approved bank payouts awaiting their reference, and the
// decisions. The maker-checker rule and every move are the payout Store's.
type Payouts struct {
	s   *payout.Store
	now func() time.Time
}

// CheckerWindow is how long a changer may not approve (maker-checker).
func (p *Payouts) CheckerWindow() time.Duration { return p.s.CheckerWindow() }

// NewPayouts is the use case over s.
func NewPayouts(s *payout.Store, now func() time.Time) *Payouts {
	if now == nil {
		now = time.Now
	}
	return &Payouts{s: s, now: now}
}

// PayoutQueues is what an operator looks at: payouts awaiting review, and
// approved ones not yet ended (bank payouts awaiting their reference, USDT
// payouts with the sender).
type PayoutQueues struct {
	Review  []payout.Payout `json:"review"`
	Sending []payout.Payout `json:"sending"`
}

// queueLimit bounds each queue per shard: a page and a CLI listing.
const queueLimit = 200

// Queues reads both queues.
func (p *Payouts) Queues(ctx context.Context, actor access.Actor) (PayoutQueues, error) {
	if err := allow(actor, access.PermOpPayoutsRead); err != nil {
		return PayoutQueues{}, err
	}
	review, err := p.s.Queue(ctx, true, queueLimit)
	if err != nil {
		return PayoutQueues{}, err
	}
	sending, err := p.s.Queue(ctx, false, queueLimit)
	if err != nil {
		return PayoutQueues{}, err
	}
	return PayoutQueues{Review: nonNilPayouts(review), Sending: nonNilPayouts(sending)}, nil
}

// Of is merchant appid's payouts, newest first: the ended ones too.
func (p *Payouts) Of(ctx context.Context, actor access.Actor, appid string, limit int) ([]payout.Payout, error) {
	if err := allow(actor, access.PermOpPayoutsRead); err != nil {
		return nil, err
	}
	l, err := p.s.List(ctx, appid, 0, limit)
	return nonNilPayouts(l), err
}

// Get reads one payout, whoever's.
func (p *Payouts) Get(ctx context.Context, actor access.Actor, id string) (payout.Payout, error) {
	if err := allow(actor, access.PermOpPayoutsRead); err != nil {
		return payout.Payout{}, err
	}
	return p.s.Get(ctx, "", id)
}

// Approve lets payout id go: refused (403) when actor changed the
// merchant's payout details within the checker window.
func (p *Payouts) Approve(ctx context.Context, actor access.Actor, id string) (payout.Payout, error) {
	e, err := p.decision(actor, payout.ActionApprove, nil)
	if err != nil {
		return payout.Payout{}, err
	}
	return p.s.Approve(ctx, id, Decider(actor), e)
}

// Reject refuses payout id with reason, which the merchant reads; its
// money goes back.
func (p *Payouts) Reject(ctx context.Context, actor access.Actor, id, reason string) (payout.Payout, error) {
	reason, err := audit.Text("the reason", reason, audit.MaxText)
	if err != nil {
		return payout.Payout{}, err
	}
	e, err := p.decision(actor, payout.ActionReject, map[string]string{"reason": reason})
	if err != nil {
		return payout.Payout{}, err
	}
	return p.s.Reject(ctx, id, Decider(actor), reason, e)
}

// Paid records an approved bank payout's bank reference: it ends paid.
func (p *Payouts) Paid(ctx context.Context, actor access.Actor, id, ref string) (payout.Payout, error) {
	ref, err := BankRef(ref)
	if err != nil {
		return payout.Payout{}, err
	}
	e, err := p.decision(actor, payout.ActionPaid, map[string]string{"ref": ref})
	if err != nil {
		return payout.Payout{}, err
	}
	return p.s.MarkPaid(ctx, id, "", "", ref, e)
}

func (p *Payouts) decision(actor access.Actor, action string, d map[string]string) (audit.Entry, error) {
	if err := allow(actor, access.PermOpPayoutsDecide); err != nil {
		return audit.Entry{}, err
	}
	return entry(p.now(), actor, action, "", "", d), nil
}

// Decider is actor as the payout Store knows a decider: By on the record,
// Key the one NoteChange is called with wherever an operator changes a
// merchant's payout destinations or settings ("operator:<id>" of a console
// operator, "cli:<name>" of the CLI), so maker-checker compares the same
// names.
func Decider(actor access.Actor) payout.Decider {
	return payout.Decider{By: By(actor), Key: ChangerKey(actor)}
}

// ChangerKey is the key under which actor's changes of a merchant's payout
// details are noted (payout.Store.NoteChange) and its decisions checked.
func ChangerKey(actor access.Actor) string {
	if actor.Realm == audit.RealmCLI {
		return "cli:" + actor.ID
	}
	return "operator:" + actor.ID
}

// BankRef is a bank payout's reference as typed: 1 to 64 characters of
// text, trimmed.
func BankRef(ref string) (string, error) {
	ref, err := audit.Text("the bank reference", ref, 64)
	if err == nil && ref == "" {
		err = invalid("the bank reference is required")
	}
	return ref, err
}

func nonNilPayouts(l []payout.Payout) []payout.Payout {
	if l == nil {
		return []payout.Payout{}
	}
	return l
}
