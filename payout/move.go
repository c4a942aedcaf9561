package payout

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Audit actions of a payout's steps.
const (
	ActionApprove = "payout.approve"
	ActionReject  = "payout.reject"
	ActionSend    = "payout.send"
	ActionPaid    = "payout.paid"
	ActionFail    = "payout.fail"
)

// Decider is the operator deciding a payout: By names it on the record,
// Key is the key NoteChange and destinations record changes under.
type Decider struct{ By, Key string }

// step is one move of a payout, as move.lua takes it.
type step struct {
	from    []State
	to      State
	checker string // the deciding operator's key, checked against changes
	lease   string // the lease the payout must hold
	score   int64  // the send queue's score after the move
	fields  []any
	tx      func(p Payout, at time.Time) journal.Tx
	// byHand is an operator's record of a bank payout's end: a USDT
	// payout ends only through its sender, which holds the lease.
	byHand bool
}

// Approve lets payout id be sent. The approver must not have changed the
// merchant's payout destinations or settings within CheckerWindow.
func (s *Store) Approve(ctx context.Context, id string, d Decider, e audit.Entry) (Payout, error) {
	now := s.now()
	return s.step(ctx, id, step{from: []State{Requested}, to: Approved, checker: d.Key,
		fields: []any{fRev, d.By, fRevKey, d.Key, fDecided, now.UnixMilli()}}, e)
}

// Reject refuses payout id with reason, and gives its hold back.
func (s *Store) Reject(ctx context.Context, id string, d Decider, reason string, e audit.Entry) (Payout, error) {
	if strings.TrimSpace(reason) == "" {
		return Payout{}, platform.Errorf(platform.KindMissingParameter, "a rejection needs its reason: the merchant reads it")
	}
	now := s.now()
	return s.step(ctx, id, step{from: []State{Requested}, to: Rejected,
		fields: []any{fRev, d.By, fRevKey, d.Key, fDecided, now.UnixMilli(), fReason, reason, fDone, now.UnixMilli()},
		tx:     release}, e)
}

// Claim gives a sender the lease of an approved payout, or of one whose
// previous sender's lease ended before it recorded an end (resumed): the
// caller must then look the transfer up by the payout's Reference before it
// sends anything, since the previous sender may have sent it.
func (s *Store) Claim(ctx context.Context, id, token string, lease time.Duration, e audit.Entry) (p Payout, resumed bool, err error) {
	if p, err = s.load(ctx, id); err != nil {
		return Payout{}, false, err
	}
	from := []State{Approved}
	if p.State == Sending {
		until, _ := strconv.ParseInt(p.leaseUntil, 10, 64)
		if until > s.now().UnixMilli() {
			return Payout{}, false, platform.Errorf(platform.KindConflict, "another sender holds this payout")
		}
		from, resumed = []State{Sending}, true
	}
	end := s.now().Add(lease).UnixMilli()
	p, err = s.step(ctx, id, step{from: from, to: Sending, score: end,
		fields: []any{fLease, token, fLeaseUntil, end}}, e)
	return p, resumed, err
}

// MarkPaid ends payout id paid: a USDT payout with its transaction hash
// (by the sender holding lease), a bank payout with the operator's
// reference (lease ""). The amount leaves payout_hold.
func (s *Store) MarkPaid(ctx context.Context, id, lease, txHash, bankRef string, e audit.Entry) (Payout, error) {
	from := []State{Sending}
	if lease == "" {
		from = []State{Approved}
	}
	return s.step(ctx, id, step{from: from, to: Paid, lease: lease, byHand: lease == "",
		fields: []any{fTx, txHash, fBank, bankRef, fDone, s.now().UnixMilli()}, tx: paid}, e)
}

// MarkFailed ends payout id failed with reason: the rail refused it, and
// the hold goes back to available.
func (s *Store) MarkFailed(ctx context.Context, id, lease, reason string, e audit.Entry) (Payout, error) {
	from := []State{Sending}
	if lease == "" {
		from = []State{Approved}
	}
	return s.step(ctx, id, step{from: from, to: Failed, lease: lease, byHand: lease == "",
		fields: []any{fReason, reason, fDone, s.now().UnixMilli()}, tx: release}, e)
}

func release(p Payout, at time.Time) journal.Tx {
	return journal.PayoutReleaseTx(p.AppID, p.ID, p.Currency, p.Amount, p.Fee, at)
}

func paid(p Payout, at time.Time) journal.Tx {
	return journal.PayoutPaidTx(p.AppID, p.ID, p.Currency, p.Amount, p.Fee, at)
}

func (s *Store) step(ctx context.Context, id string, st step, e audit.Entry) (Payout, error) {
	p, err := s.load(ctx, id)
	if err != nil {
		return Payout{}, err
	}
	if st.byHand && p.Kind != Bank {
		return Payout{}, platform.Errorf(platform.KindConflict, "a USDT payout is sent and recorded by the payout sender")
	}
	sh := schema.HomeShard(p.AppID)
	now := s.now()
	from := make([]string, len(st.from))
	for i, f := range st.from {
		from[i] = string(f)
	}
	args := append([]any{strings.Join(from, ","), string(st.to), now.UnixMilli(), st.checker,
		now.Add(-s.cfg.CheckerWindow).UnixMilli(), st.lease, st.score, len(st.fields)}, st.fields...)
	keys := []string{schema.PayoutKey(sh, id), schema.PayoutEventsKey(sh), schema.PayoutReviewKey(sh),
		schema.PayoutSendKey(sh), schema.AuditKey(sh.Tag()), schema.PayoutChangesKey(p.AppID)}
	if st.tx != nil {
		jk, ja, err := s.j.ScriptArgs(st.tx(p, now))
		if err != nil {
			return Payout{}, err
		}
		keys, args = append(keys, jk...), append(args, ja...)
	}
	e.Target, e.AppID = "payout:"+id, p.AppID
	e.Details = withDetail(e.Details, "amount", p.Amount.String(), "currency", p.Currency, "state", string(st.to))
	if args, err = audit.ScriptArgs(args, e); err != nil {
		return Payout{}, err
	}
	res, err := s.move.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return Payout{}, fmt.Errorf("move payout %s to %s: %w", id, st.to, err)
	}
	if err := moved(res, st.to); err != nil {
		return Payout{}, err
	}
	s.moves.WithLabelValues(string(st.to)).Inc()
	return s.load(ctx, id)
}

// moved reads move.lua's answer.
func moved(res []any, to State) error {
	code, _ := res[0].(int64)
	str := func(i int) string {
		if i < len(res) {
			v, _ := res[i].(string)
			return v
		}
		return ""
	}
	switch code {
	case 1:
		return nil
	case 6:
		return platform.Errorf(platform.KindConflict, "this payout is %s: it cannot become %s", str(1), to)
	case 8:
		return platform.Errorf(platform.KindForbidden,
			"you changed this merchant's payout details recently: another operator must decide its payouts")
	case 9:
		return platform.Errorf(platform.KindConflict, "another sender holds this payout")
	case 3:
		return fmt.Errorf("move payout to %s: its hold was never posted", to)
	}
	return fmt.Errorf("move payout to %s: unexpected answer %v", to, res)
}
