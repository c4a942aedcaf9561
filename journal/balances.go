package journal

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Balance is one currency of a merchant's money, by bucket.
type Balance struct {
	Currency   string
	Pending    schema.Amount
	Available  schema.Amount
	Reserve    schema.Amount
	PayoutHold schema.Amount
}

// Total is everything the platform owes the merchant in the currency.
func (b Balance) Total() schema.Amount { return b.Pending + b.Available + b.Reserve + b.PayoutHold }

// BalanceView is one currency of a merchant's balance as GET /api/balance
// answers it (and balance.settled events carry it): decimals of the
// currency.
type BalanceView struct {
	Currency   string `json:"currency"`
	Pending    string `json:"pending"`
	Available  string `json:"available"`
	Reserve    string `json:"reserve"`
	PayoutHold string `json:"payoutHold"`
	Total      string `json:"total"`
}

// View is b as the API shows it.
func (b Balance) View() BalanceView {
	return BalanceView{Currency: b.Currency, Pending: b.Pending.String(), Available: b.Available.String(),
		Reserve: b.Reserve.String(), PayoutHold: b.PayoutHold.String(), Total: b.Total().String()}
}

// Balances reads appid's balances, one per currency it ever held, sorted by
// currency.
func (j *Journal) Balances(ctx context.Context, appid string) ([]Balance, error) {
	h, err := j.rdb.HGetAll(ctx, schema.AccountsKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read balances of %s: %w", appid, err)
	}
	by := map[string]*Balance{}
	for f, v := range h {
		bucket, cur, ok := strings.Cut(f, ":")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("balance field %q of %s: %q", f, appid, v)
		}
		b := by[cur]
		if b == nil {
			b = &Balance{Currency: cur}
			by[cur] = b
		}
		switch bucket {
		case Pending:
			b.Pending = schema.Amount(n)
		case Available:
			b.Available = schema.Amount(n)
		case Reserve:
			b.Reserve = schema.Amount(n)
		case PayoutHold:
			b.PayoutHold = schema.Amount(n)
		}
	}
	out := make([]Balance, 0, len(by))
	for _, b := range by {
		out = append(out, *b)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Currency < out[b].Currency })
	return out, nil
}

// Balance is appid's balance in currency cur (zero when it holds none).
func (j *Journal) Balance(ctx context.Context, appid, cur string) (Balance, error) {
	all, err := j.Balances(ctx, appid)
	if err != nil {
		return Balance{}, err
	}
	for _, b := range all {
		if b.Currency == cur {
			return b, nil
		}
	}
	return Balance{Currency: cur}, nil
}

// PlatformBalances sums the platform's accounts over every shard: account
// → currency → balance.
func (j *Journal) PlatformBalances(ctx context.Context) (map[string]map[string]schema.Amount, error) {
	out := map[string]map[string]schema.Amount{}
	for s := range schema.Shard(schema.NumShards) {
		h, err := j.rdb.HGetAll(ctx, schema.PlatformAccountsKey(s)).Result()
		if err != nil {
			return nil, fmt.Errorf("read platform accounts of shard %s: %w", s.Tag(), err)
		}
		for f, v := range h {
			i := strings.LastIndexByte(f, ':')
			n, err := strconv.ParseInt(v, 10, 64)
			if i < 0 || err != nil {
				return nil, fmt.Errorf("platform account field %q: %q", f, v)
			}
			acct, cur := f[:i], f[i+1:]
			if out[acct] == nil {
				out[acct] = map[string]schema.Amount{}
			}
			out[acct][cur] += schema.Amount(n)
		}
	}
	return out, nil
}
