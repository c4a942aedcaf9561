package merchant

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// Ledger entry fields. Every balance change, a credit here or a debit by a
// balance payment in the order script, appends one entry with them.
const (
	LedgerType     = "type"
	LedgerCurrency = "cur"
	LedgerAmount   = "amt"
	LedgerBalance  = "bal"
	LedgerRef      = "ref"
	LedgerAt       = "at"
)

//go:embed credit.lua
var creditLua string

var (
	creditScript = redis.NewScript("local function audit_hook() end\n" + creditLua)
	// creditAudited is the credit appending the store's audit entry
	// (Store.Audited) to the merchant's home shard's audit stream.
	creditAudited = audit.Script("local function audit_hook() gw_audit(KEYS[3]) end\n" + creditLua)
)

// Credit tops up a balance and records the ledger entry in the same script.
func (s *Store) Credit(ctx context.Context, appid, currency string, amount schema.Amount) (schema.Amount, error) {
	if amount <= 0 {
		return 0, errors.New("credit amount must be positive")
	}
	if !schema.MethodBalance.Supports(currency) {
		// A balance in another currency could never be spent.
		return 0, fmt.Errorf("currency %q: balance payments take %s", currency, strings.Join(schema.MethodBalance.Currencies(), " and "))
	}
	if _, err := s.Get(ctx, appid); err != nil {
		return 0, err
	}
	keys := []string{schema.BalanceKey(appid), schema.LedgerKey(appid)}
	script, args := creditScript, []any{currency, int64(amount), s.now().UnixMilli()}
	if s.entry != nil {
		full, err := audit.ScriptArgs(args, *s.entry)
		if err != nil {
			return 0, err
		}
		script, args, keys = creditAudited, full, append(keys, schema.AuditKey(schema.HomeShard(appid).Tag()))
	}
	bal, err := script.Run(ctx, s.rdb, keys, args...).Int64()
	if err != nil {
		return 0, fmt.Errorf("credit %s %s: %w", appid, currency, err)
	}
	return schema.Amount(bal), nil
}

// Balances reads every currency balance of a merchant.
func (s *Store) Balances(ctx context.Context, appid string) (map[string]schema.Amount, error) {
	h, err := s.rdb.HGetAll(ctx, schema.BalanceKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read balances of %s: %w", appid, err)
	}
	out := make(map[string]schema.Amount, len(h))
	for cur, v := range h {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("balance %s of %s: %w", cur, appid, err)
		}
		out[cur] = schema.Amount(n)
	}
	return out, nil
}
