package access

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// spendStep spends a TOTP step of a user once: a code confirms one action
// (or one login), never two, so a code seen over a shoulder is spent.
// KEYS: user. ARGV: step. Returns 1, or -1 when the step (or a later one)
// was spent already, -3 when the second factor is locked.
var spendStep = redis.NewScript(`
local u = redis.call('HMGET', KEYS[1], 'totpStep', 'sfLocked')
if u[2] and u[2] ~= '' and u[2] ~= '0' then return -3 end
if tonumber(ARGV[1]) <= tonumber(u[1] or '0') then return -1 end
redis.call('HSET', KEYS[1], 'totpStep', ARGV[1])
return 1`)

// ConfirmTOTP checks that user id typed a fresh code of its own second
// factor now, for an action that must not rest on the session alone (a
// payout destination). It spends the code's step, as a login does. A user
// without TOTP is refused: the action needs a second factor set up first.
func (a *Accounts) ConfirmTOTP(ctx context.Context, id, code string) error {
	secret, err := a.rdb.HGet(ctx, userKey(id), "totp").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read second factor: %w", err)
	}
	if secret == "" {
		return platform.Errorf(platform.KindForbidden, "set up two-factor authentication (Team & security) before this action")
	}
	step := matchStep(secret, code, a.now())
	if step == 0 {
		return &platform.Error{Kind: platform.KindInvalidParameter, Msg: "the authentication code is wrong or expired", Err: ErrWrongCode}
	}
	res, err := spendStep.Run(ctx, a.rdb, []string{userKey(id)}, strconv.FormatUint(step, 10)).Int()
	if err != nil {
		return fmt.Errorf("spend second factor: %w", err)
	}
	switch res {
	case -1:
		return &platform.Error{Kind: platform.KindInvalidParameter, Msg: "this authentication code was used already; wait for the next one", Err: ErrCodeReplayed}
	case -3:
		return &platform.Error{Kind: platform.KindForbidden, Msg: "your second factor is locked; ask the owner or an operator to unlock it", Err: ErrFactorLocked}
	}
	return nil
}
