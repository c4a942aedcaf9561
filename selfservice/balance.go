package selfservice

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
)

// Balance is the use cases of the merchant's money (the Balance page): it
// reads the journal's balances and due index in Redis and the journal's
// copy in ClickHouse, and changes nothing. Every read is of the actor's
// own merchant; every role that may read the balance reads all of it.
type Balance struct {
	journal    *journal.Journal
	statements *query.Statements // nil: no ClickHouse on this node
	now        func() time.Time
}

// BalanceOverview is what the page shows first: the balances per currency
// and bucket, and the next settlement.
type BalanceOverview struct {
	Balances []journal.Balance
	Next     journal.NextSettlement
}

// Overview reads the merchant's balances and its next settlement.
func (d *Balance) Overview(ctx context.Context, actor access.Actor) (BalanceOverview, error) {
	appid, err := may(actor, access.PermBalanceRead)
	if err != nil {
		return BalanceOverview{}, err
	}
	bals, err := d.journal.Balances(ctx, appid)
	if err != nil {
		return BalanceOverview{}, err
	}
	next, err := d.journal.NextSettlement(ctx, appid)
	if err != nil {
		return BalanceOverview{}, err
	}
	return BalanceOverview{Balances: bals, Next: next}, nil
}

// errNoStatements is the answer of a node without ClickHouse.
var errNoStatements = platform.Errorf(platform.KindUnavailable, "transactions and statements are not served by this node")

// Transactions is a page of the merchant's transactions, newest first,
// after cursor ("" for the newest).
func (d *Balance) Transactions(ctx context.Context, actor access.Actor, cursor string, limit int) (query.TxPage, error) {
	appid, err := may(actor, access.PermBalanceRead)
	if err != nil {
		return query.TxPage{}, err
	}
	if d.statements == nil {
		return query.TxPage{}, errNoStatements
	}
	p, err := d.statements.Transactions(ctx, query.TxFilter{AppID: appid, Cursor: cursor, Limit: limit})
	if err != nil {
		return query.TxPage{}, unavailable(err)
	}
	return p, nil
}

// StatementDays is the longest statement the page shows or exports.
const StatementDays = 93

// Statement is the merchant's daily statement from from's day to to's
// (both UTC days, inclusive).
func (d *Balance) Statement(ctx context.Context, actor access.Actor, from, to time.Time) ([]query.StatementDay, error) {
	appid, err := may(actor, access.PermBalanceRead)
	if err != nil {
		return nil, err
	}
	if d.statements == nil {
		return nil, errNoStatements
	}
	end := to.AddDate(0, 0, 1)
	if !end.After(from) || end.Sub(from) > StatementDays*24*time.Hour {
		return nil, invalid("a statement covers 1 to %d days, from before to", StatementDays)
	}
	days, err := d.statements.Statement(ctx, appid, from, end)
	if err != nil {
		return nil, unavailable(err)
	}
	return days, nil
}

// unavailable is a read error as the page shows it: ClickHouse's detail
// stays in the log.
func unavailable(err error) error {
	if pe, ok := err.(*platform.Error); ok {
		return pe
	}
	return &platform.Error{Kind: platform.KindUnavailable, Msg: "transactions and statements are unavailable; retry later", Err: err}
}
