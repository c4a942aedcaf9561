package payout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ActionRequest is the audit action of a payout asked for.
const ActionRequest = "payout.request"

// Limits are a merchant's payout terms in one currency, set by operators.
type Limits struct {
	Min schema.Amount // the smallest amount that may be asked for
	Fee schema.Amount // the platform's fee per payout, held with the amount
	// AutoApproveBelow approves a payout below it at once (0 = never).
	AutoApproveBelow schema.Amount
}

// Ask is a merchant's request for a payout.
type Ask struct {
	AppID, Destination, Currency string
	Amount                       schema.Amount
	By                           string // "user:<id>" or "api"
	IdempotencyKey               string // optional: the same key gives the same payout
	Limits                       Limits
}

func (a Ask) fingerprint() string {
	h := sha256.Sum256([]byte(a.Destination + "\x00" + a.Currency + "\x00" + strconv.FormatInt(int64(a.Amount), 10)))
	return hex.EncodeToString(h[:8])
}

// Request holds the amount and the fee and records the payout, or refuses:
// 400 below the minimum or to a destination that does not take the
// currency, 409 to a destination cooling off or removed, 422
// insufficient_balance when available does not cover both, 409
// idempotency_mismatch when the key was used for another request. A key
// used before for the same request gives its payout back (replayed true).
func (s *Store) Request(ctx context.Context, a Ask, e audit.Entry) (p Payout, replayed bool, err error) {
	d, _, err := s.destination(ctx, a.AppID, a.Destination)
	if err != nil {
		return Payout{}, false, err
	}
	if err := a.check(d); err != nil {
		return Payout{}, false, err
	}
	now := s.now().Truncate(time.Millisecond)
	p = Payout{ID: newID(a.AppID, now), AppID: a.AppID, Destination: d.ID, Kind: d.Kind, Currency: a.Currency,
		Amount: a.Amount, Fee: a.Limits.Fee, State: Requested, RequestedBy: a.By, Created: now}
	if a.Limits.AutoApproveBelow > 0 && a.Amount < a.Limits.AutoApproveBelow {
		p.State, p.Reviewer, p.reviewerKey, p.Decided = Approved, "auto", "auto", now
	}
	res, err := s.runRequest(ctx, a, p, e)
	if err != nil {
		return Payout{}, false, err
	}
	return s.requested(ctx, a, p, res)
}

func (a Ask) check(d Destination) error {
	switch {
	case a.Amount <= 0:
		return platform.Errorf(platform.KindInvalidParameter, "amount must be above zero")
	case a.Amount < a.Limits.Min:
		return platform.Errorf(platform.KindBelowMinimum, "the smallest payout is %s %s", a.Limits.Min, a.Currency)
	case !d.Kind.Currency(a.Currency):
		return platform.Errorf(platform.KindInvalidParameter, "a %s destination does not take payouts of a %s balance", d.Kind, a.Currency)
	case !d.Removed.IsZero():
		return platform.Errorf(platform.KindConflict, "this destination was removed; choose another")
	case len(a.IdempotencyKey) > 128:
		return platform.Errorf(platform.KindInvalidParameter, "Idempotency-Key is at most 128 characters")
	}
	return nil
}

func (s *Store) runRequest(ctx context.Context, a Ask, p Payout, e audit.Entry) ([]any, error) {
	sh := schema.HomeShard(a.AppID)
	jk, ja, err := s.j.ScriptArgs(journal.PayoutHoldTx(a.AppID, p.ID, a.Currency, a.Amount, a.Limits.Fee, p.Created))
	if err != nil {
		return nil, err
	}
	idem, ttl := schema.PayoutKey(sh, p.ID), int64(0)
	if a.IdempotencyKey != "" {
		idem, ttl = schema.PayoutIdemKey(a.AppID, a.IdempotencyKey), int64(s.cfg.IdempotencyTTL/time.Second)
	}
	f := p.fields()
	args := append([]any{p.Created.UnixMilli(), p.ID, p.Destination, string(p.State), ttl, a.fingerprint(), string(p.Kind), len(f)}, f...)
	e.Target, e.AppID = "payout:"+p.ID, a.AppID
	e.Details = withDetail(e.Details, "amount", p.Amount.String(), "currency", p.Currency, "kind", string(p.Kind))
	args, err = audit.ScriptArgs(append(args, ja...), e)
	if err != nil {
		return nil, err
	}
	keys := append([]string{schema.PayoutKey(sh, p.ID), schema.PayoutEventsKey(sh), schema.PayoutReviewKey(sh),
		schema.PayoutSendKey(sh), schema.PayoutsKey(a.AppID), idem, schema.PayoutDestinationsKey(a.AppID),
		schema.AuditKey(sh.Tag())}, jk...)
	res, err := s.request.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("request payout: %w", err)
	}
	return res, nil
}

func (s *Store) requested(ctx context.Context, a Ask, p Payout, res []any) (Payout, bool, error) {
	code, _ := res[0].(int64)
	str := func(i int) string { v, _ := res[i].(string); return v }
	switch code {
	case 1:
		s.moves.WithLabelValues(string(Requested)).Inc()
		if p.State == Approved {
			s.moves.WithLabelValues(string(Approved)).Inc()
		}
		return p, false, nil
	case 0:
		r := journal.DecodeResult(res)
		return Payout{}, false, platform.Errorf(platform.KindInsufficientFunds,
			"the available balance (%s %s) does not cover %s %s and its fee %s", r.Balance, a.Currency,
			a.Amount, a.Currency, a.Limits.Fee)
	case 5:
		if str(2) != a.fingerprint() {
			return Payout{}, false, platform.Errorf(platform.KindIdempotencyMismatch, "this Idempotency-Key was used for another payout request")
		}
		prev, err := s.Get(ctx, a.AppID, str(1))
		return prev, true, err
	case 7:
		return Payout{}, false, destinationRefusal(str(1), str(2))
	}
	return Payout{}, false, fmt.Errorf("request payout: unexpected answer %v", res)
}

func destinationRefusal(why, when string) error {
	switch why {
	case "cooling":
		ms, _ := strconv.ParseInt(when, 10, 64)
		return platform.Errorf(platform.KindConflict, "this destination can receive payouts from %s (UTC), when its cooling-off period ends",
			time.UnixMilli(ms).UTC().Format("2006-01-02 15:04"))
	case "removed":
		return platform.Errorf(platform.KindConflict, "this destination was removed; choose another")
	}
	return platform.Errorf(platform.KindNotFound, "no such payout destination")
}
