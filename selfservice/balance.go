package selfservice

import (
	"context"
	"sort"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// Balance is the use cases of the merchant's money (the Balance page):
// it reads and changes nothing else.
type Balance struct {
	merchants *merchant.Store
}

// CurrencyBalance is one currency's balance.
type CurrencyBalance struct {
	Currency string
	Amount   schema.Amount
}

// Balances reads the merchant's balances, one per currency, in currency
// order.
func (d *Balance) Balances(ctx context.Context, actor access.Actor) ([]CurrencyBalance, error) {
	appid, err := may(actor, access.PermBalanceRead)
	if err != nil {
		return nil, err
	}
	m, err := d.merchants.Balances(ctx, appid)
	if err != nil {
		return nil, err
	}
	out := make([]CurrencyBalance, 0, len(m))
	for cur, amt := range m {
		out = append(out, CurrencyBalance{Currency: cur, Amount: amt})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out, nil
}

// Ledger reads a page of the merchant's balance ledger, newest first:
// limit entries older than the entry before ("" for the newest). The
// ledger is written by every balance change in the same script as the
// change (merchant.Ledger), so it and the balances always agree.
func (d *Balance) Ledger(ctx context.Context, actor access.Actor, before string, limit int) ([]merchant.LedgerEntry, error) {
	appid, err := may(actor, access.PermBalanceRead)
	if err != nil {
		return nil, err
	}
	entries, err := d.merchants.Ledger(ctx, appid, before, limit)
	if err != nil {
		return nil, invalid("%v", err)
	}
	return entries, nil
}
