package operator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// RefundAttempt is a provider refund of a mismatch that got no answer: the
// exception stays open and shows it, so the administrator knows to refund
// again (the same refund id: the provider refunds once).
type RefundAttempt struct {
	At       time.Time `json:"at"`
	By       string    `json:"by"`
	RefundID string    `json:"refundId"`
	Error    string    `json:"error"`
}

// attemptKey is where e's last unanswered refund is kept, beside its mark.
func attemptKey(e Exception) string {
	return schema.ExceptionHandledKey(markTag(e), e.Kind+":refund-attempt", e.ID)
}

// leaseKey holds e against a second refund while one is under way.
func leaseKey(e Exception) string {
	return schema.ExceptionHandledKey(markTag(e), e.Kind+":refund-lease", e.ID)
}

// readAttempt is the attempt cmd read, when it is of e's occurrence at.
func readAttempt(cmd *redis.StringCmd, at time.Time) *RefundAttempt {
	if cmd == nil {
		return nil
	}
	var a RefundAttempt
	if raw, err := cmd.Result(); err != nil || json.Unmarshal([]byte(raw), &a) != nil || a.At.Before(at) {
		return nil
	}
	return &a
}

// unanswered keeps an attempt the provider did not answer, with its audit
// entry, and says so to the caller; the exception stays open.
func (x *Exceptions) unanswered(ctx context.Context, actor access.Actor, e Exception, h Handled, d map[string]string, cause error) error {
	a := RefundAttempt{At: h.At, By: h.By, RefundID: h.RefundID, Error: "the provider could not be reached"}
	raw, _ := json.Marshal(a) // plain fields always marshal
	d["error"] = clip(cause.Error())
	args, err := audit.ScriptArgs([]any{string(raw), x.cfg.KeepHandled.Milliseconds()},
		entry(h.At, actor, "exception.refund_unanswered", "order:"+e.OrderID, e.AppID, d))
	if err != nil {
		return err
	}
	if err := handleScript.Run(ctx, x.rdb, []string{attemptKey(e), schema.AuditKey(markTag(e))}, args...).Err(); err != nil {
		return fmt.Errorf("keep exception refund attempt: %w", err)
	}
	return &platform.Error{Kind: platform.KindUnavailable, Err: cause,
		Msg: "the provider could not be reached; the exception stays open: refund again (the provider refunds once per refund " + h.RefundID + ")"}
}

// refundLease is one refund's hold on its exception.
type refundLease struct {
	x     *Exceptions
	key   string
	token string
}

// releaseLua deletes the lease only if it is still this refund's.
var releaseLua = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// lease takes e for one refund, or answers that another is under way.
func (x *Exceptions) lease(ctx context.Context, e Exception) (*refundLease, error) {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	l := &refundLease{x: x, key: leaseKey(e), token: hex.EncodeToString(b)}
	ok, err := x.rdb.SetNX(ctx, l.key, l.token, x.cfg.RefundLease).Result()
	if err != nil {
		return nil, fmt.Errorf("lease exception refund: %w", err)
	}
	if !ok {
		return nil, platform.Errorf(platform.KindConflict, "a refund of this exception is under way: look again in a moment")
	}
	return l, nil
}

// release gives the lease back; it survives a cancelled request.
func (l *refundLease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = releaseLua.Run(ctx, l.x.rdb, []string{l.key}, l.token).Err()
}
