package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// claimLua takes a pending request for one checker, so two admins
// approving at once post it once: the first claims it, the second finds it
// claimed. The same checker may claim again a request left approved but
// not posted (a crash between claim and post): the journal's key
// adjustment:<id> posts it once whatever happens.
// KEYS[1] the request, KEYS[2] the pending set; ARGV checker, its key, ms.
var claimLua = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], 'state')
if st == 'pending' then
  redis.call('HSET', KEYS[1], 'state', 'approved', 'checker', ARGV[1], 'ckey', ARGV[2], 'dat', ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[4])
  return {1, st}
end
if st == 'approved' and redis.call('HGET', KEYS[1], 'ckey') == ARGV[2] then
  return {1, st}
end
return {0, st or ''}
`)

// rejectLua rejects a pending request and appends its audit entry in the
// same step. KEYS[1] the request, KEYS[2] the pending set, KEYS[3] the
// shard's audit stream; ARGV checker, its key, ms, id, reason, keep (s).
var rejectLua = audit.Script(`
local st = redis.call('HGET', KEYS[1], 'state')
if st ~= 'pending' then
  return {0, st or ''}
end
redis.call('HSET', KEYS[1], 'state', 'rejected', 'checker', ARGV[1], 'ckey', ARGV[2], 'dat', ARGV[3], 'note', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[4])
gw_audit(KEYS[3])
return {1, st}
`)

// Approve posts the request id: a second admin, never its maker, and
// never the CLI approving a request made with the CLI (anyone holding
// Redis is "the CLI", so it cannot be told apart from itself). The post
// carries the approval's audit entry in the same step; a request the
// balance no longer covers ends refused.
func (m *Money) Approve(ctx context.Context, actor access.Actor, id string) (Adjustment, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return Adjustment{}, err
	}
	a, err := m.load(ctx, id)
	if err != nil {
		return Adjustment{}, err
	}
	if err := mayCheck(a, actor); err != nil {
		return Adjustment{}, err
	}
	acct, err := m.st.Get(ctx, a.AppID)
	if err != nil {
		return Adjustment{}, notFoundMerchant(err)
	}
	e, err := checked(m.adjEntry(actor, "ledger.adjust_approve", a, map[string]string{"note": "made by " + a.Maker}))
	if err != nil {
		return Adjustment{}, err
	}
	s := schema.HomeShard(a.AppID)
	now := m.now()
	res, err := claimLua.Run(ctx, m.rdb, []string{schema.AdjustmentKey(s, id), schema.AdjustmentsPendingKey(s)},
		By(actor), actorKey(actor), now.UnixMilli(), id).Slice()
	if err != nil {
		return Adjustment{}, fmt.Errorf("claim adjustment %s: %w", id, err)
	}
	if ok, _ := res[0].(int64); ok != 1 {
		st, _ := res[1].(string)
		return Adjustment{}, decided(id, st)
	}
	a.Checker, a.checkerKey, a.Decided = By(actor), actorKey(actor), now
	postErr := m.post(ctx, &a, acct.Terms, e)
	var pe *platform.Error
	switch {
	case postErr == nil:
		a.State = AdjPosted
	case errors.As(postErr, &pe) && pe.Kind == platform.KindInsufficientFunds:
		a.State, a.Note = AdjRefused, pe.Msg
		re, err := checked(m.adjEntry(actor, "ledger.adjust_refused", a, map[string]string{"note": "made by " + a.Maker}))
		if err == nil {
			err = record(ctx, m.log, re)
		}
		if err != nil {
			return Adjustment{}, err
		}
	default:
		return Adjustment{}, postErr // still approved: approving again resumes it
	}
	if err := m.saveDecided(ctx, a); err != nil {
		return Adjustment{}, err
	}
	return a, postErr
}

// Reject closes the request id with a reason; nothing moves. Its maker may
// withdraw it so, and so may any other admin.
func (m *Money) Reject(ctx context.Context, actor access.Actor, id, reason string) (Adjustment, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return Adjustment{}, err
	}
	reason, err := audit.Text("reason", reason, audit.MaxText)
	if err != nil {
		return Adjustment{}, err
	}
	if reason == "" {
		return Adjustment{}, invalid("a reason is required")
	}
	a, err := m.load(ctx, id)
	if err != nil {
		return Adjustment{}, err
	}
	e := m.adjEntry(actor, "ledger.adjust_reject", a, map[string]string{"reason": reason, "note": "made by " + a.Maker})
	s := schema.HomeShard(a.AppID)
	now := m.now()
	args, err := audit.ScriptArgs([]any{By(actor), actorKey(actor), now.UnixMilli(), id, reason, int64(m.cfg.Keep.Seconds())}, e)
	if err != nil {
		return Adjustment{}, err
	}
	res, err := rejectLua.Run(ctx, m.rdb, []string{schema.AdjustmentKey(s, id), schema.AdjustmentsPendingKey(s),
		schema.AuditKey(s.Tag())}, args...).Slice()
	if err != nil {
		return Adjustment{}, fmt.Errorf("reject adjustment %s: %w", id, err)
	}
	if ok, _ := res[0].(int64); ok != 1 {
		st, _ := res[1].(string)
		return Adjustment{}, decided(id, st)
	}
	a.State, a.Checker, a.Note, a.Decided = AdjRejected, By(actor), reason, now
	return a, nil
}

// mayCheck refuses the maker approving their own request, and the CLI
// approving one made with the CLI.
func mayCheck(a Adjustment, actor access.Actor) error {
	if a.makerKey == actorKey(actor) {
		return platform.Errorf(platform.KindForbidden, "you made this request: a second admin approves it")
	}
	if actor.Realm == audit.RealmCLI && strings.HasPrefix(a.makerKey, audit.RealmCLI+":") {
		return platform.Errorf(platform.KindForbidden, "a request made with the CLI is approved by an admin in the operator console")
	}
	return nil
}

// decided is the conflict of a request no longer pending.
func decided(id, state string) error {
	if state == "" {
		return platform.Errorf(platform.KindNotFound, "no such adjustment")
	}
	return platform.Errorf(platform.KindConflict, "adjustment %s is already %s", id, state)
}
