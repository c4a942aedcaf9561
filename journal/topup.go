package journal

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// TopUp credits appid's available balance with amount in cur, with who did
// it (entry, when not nil) in the same step, once under key: "topup:<id>",
// a fresh one when key is empty; a retry with the same key moves nothing.
// It answers the available balance after and whether this call posted it.
func (j *Journal) TopUp(ctx context.Context, key, appid, cur string, amount schema.Amount, entry *audit.Entry) (schema.Amount, bool, error) {
	if amount <= 0 {
		return 0, false, fmt.Errorf("%w: a top-up must be positive", ErrInvalid)
	}
	if key == "" {
		key = rand.Text()
	}
	res, err := j.PostAudited(ctx, TopUpTx(KindTopUp+":"+key, appid, cur, amount, j.cfg.Now()), entry)
	if err != nil {
		return 0, false, err
	}
	b, err := j.Balance(ctx, appid, cur)
	if err != nil {
		return 0, false, err
	}
	return b.Available, res.Outcome == Posted, nil
}

// OpenBalances carries appid's balances of before the journal (the hash
// schema.BalanceKey: currency → minor units) into it as opening entries,
// opening:<appid>:<CUR>, each once for ever; run again it moves nothing.
// The old hash is left as it was and nothing reads it any more. It answers
// how many entries it posted now.
func (j *Journal) OpenBalances(ctx context.Context, appid string) (int, error) {
	h, err := j.rdb.HGetAll(ctx, schema.BalanceKey(appid)).Result()
	if err != nil && err != redis.Nil {
		return 0, fmt.Errorf("read old balances of %s: %w", appid, err)
	}
	curs := make([]string, 0, len(h))
	for cur := range h {
		curs = append(curs, cur)
	}
	sort.Strings(curs)
	posted := 0
	for _, cur := range curs {
		n, err := strconv.ParseInt(h[cur], 10, 64)
		if err != nil {
			return posted, fmt.Errorf("old balance %s of %s: %q", cur, appid, h[cur])
		}
		if n == 0 {
			continue
		}
		res, err := j.Post(ctx, OpeningTx(appid, cur, schema.Amount(n), j.cfg.Now()))
		if err != nil {
			return posted, fmt.Errorf("open balance %s of %s: %w", cur, appid, err)
		}
		if res.Outcome == Posted {
			posted++
		}
	}
	return posted, nil
}
