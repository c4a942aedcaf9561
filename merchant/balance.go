package merchant

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Balances reads what the merchant can spend in each currency: the
// available bucket of its journal accounts (package journal, which owns
// the hash schema.AccountsKey, fields "<bucket>:<CUR>"; it imports this
// package, so the field is read here by name). Money comes in by journal
// transactions only (a top-up is journal.TopUp).
func (s *Store) Balances(ctx context.Context, appid string) (map[string]schema.Amount, error) {
	h, err := s.rdb.HGetAll(ctx, schema.AccountsKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read balances of %s: %w", appid, err)
	}
	out := make(map[string]schema.Amount, len(h))
	for f, v := range h {
		cur, ok := strings.CutPrefix(f, availablePrefix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("balance %s of %s: %w", cur, appid, err)
		}
		out[cur] = schema.Amount(n)
	}
	return out, nil
}

// availablePrefix is the journal's field prefix of the available bucket.
const availablePrefix = "available:"
