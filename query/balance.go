package query

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// BalanceReader is the merchant's balances as the journal keeps them in
// Redis (journal.Journal).
type BalanceReader interface {
	Balances(ctx context.Context, appid string) ([]journal.Balance, error)
}

// Balances are the use cases of GET /api/balance (web/api serves it): the
// merchant's admission, then its balances (Redis) or a page of its
// transactions (ClickHouse). The merchant is always the one the query key
// authenticated: no parameter names another.
type Balances struct {
	cfg        Config
	accounts   Accounts
	balances   BalanceReader
	statements *Statements // nil: action=transactions answers 503
	limiter    *platform.Limiter
}

// NewBalances wires the balance reads; a nil limiter applies no limit.
func NewBalances(cfg Config, accounts Accounts, balances BalanceReader, statements *Statements, limiter *platform.Limiter) (*Balances, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if accounts == nil || balances == nil {
		return nil, errors.New("balances: accounts and the balance reader are required")
	}
	return &Balances{cfg: cfg, accounts: accounts, balances: balances, statements: statements, limiter: limiter}, nil
}

// balanceParams are the parameters of each action besides appid, key and
// action; anything else is refused, as GET /api/order does.
var balanceParams = map[string][]string{
	"":             nil,
	"transactions": {"cursor", "limit", "type", "from", "to"},
}

// Admit checks the query key, then the merchant's budget (the query class
// for balances, the report class for transactions, which read ClickHouse),
// then the action and its parameters (names, the request's).
func (b *Balances) Admit(ctx context.Context, appid, key, action string, names []string) (*merchant.Account, error) {
	acct, err := b.accounts.AuthQuery(ctx, appid, key)
	if err != nil {
		return nil, err
	}
	if action == "transactions" {
		err = b.limiter.Allow(ctx, platform.ClassReport, acct.AppID, merchant.Limit(acct.ReportLimit, b.cfg.ReportLimit))
	} else {
		err = b.limiter.Allow(ctx, platform.ClassQuery, acct.AppID, merchant.Limit(acct.QueryLimit, b.cfg.QueryLimit))
	}
	if err != nil {
		return nil, err
	}
	known, ok := balanceParams[action]
	if !ok {
		return nil, platform.Errorf(platform.KindInvalidParameter, "action %q is not supported (omit it for balances, or use transactions)", action)
	}
	allowed := map[string]bool{"appid": true, "key": true, "action": true}
	for _, p := range known {
		allowed[p] = true
	}
	for _, n := range names {
		if !allowed[n] {
			return nil, platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to this action", n)
		}
	}
	return acct, nil
}

// BalanceView is one currency of GET /api/balance (journal.BalanceView,
// which balance.settled events carry too).
type BalanceView = journal.BalanceView

// Balance is the merchant's balances, one per currency it ever held.
func (b *Balances) Balance(ctx context.Context, acct *merchant.Account) ([]BalanceView, error) {
	bals, err := b.balances.Balances(ctx, acct.AppID)
	if err != nil {
		return nil, err
	}
	out := make([]BalanceView, 0, len(bals))
	for _, x := range bals {
		out = append(out, x.View())
	}
	return out, nil
}

// TransactionView is one transaction of action=transactions.
type TransactionView struct {
	ID       string `json:"id"` // the transaction's key
	Type     string `json:"type"`
	Ref      string `json:"ref"`
	Time     string `json:"time"`
	Currency string `json:"currency"`
	Gross    string `json:"gross"`
	Fee      string `json:"fee"`
	Net      string `json:"net"`
	Settled  string `json:"settled,omitempty"`
}

// TransactionsView is a page of action=transactions.
type TransactionsView struct {
	Transactions []TransactionView `json:"transactions"`
	NextCursor   string            `json:"nextCursor,omitempty"`
}

// TxKinds are the transaction types a filter may name.
var TxKinds = []string{journal.KindPayment, journal.KindRefund, journal.KindRefundReversal, journal.KindSettlement,
	journal.KindReserveRelease, journal.KindTopUp, journal.KindAdjustment, journal.KindOpening, journal.KindBalanceDebit,
	journal.KindBalanceRevert, journal.KindBalanceOrder}

// DefaultTxLimit is a page's size when the request names none.
const DefaultTxLimit = 50

// Transactions is a page of the merchant's transactions, newest first.
func (b *Balances) Transactions(ctx context.Context, acct *merchant.Account, args Args) (TransactionsView, error) {
	if b.statements == nil {
		return TransactionsView{}, platform.Errorf(platform.KindUnavailable, "transactions are not served by this node")
	}
	f, err := TxFilterOf(acct.AppID, args)
	if err != nil {
		return TransactionsView{}, err
	}
	p, err := b.statements.Transactions(ctx, f)
	if err != nil {
		var pe *platform.Error
		if errors.As(err, &pe) {
			return TransactionsView{}, err
		}
		return TransactionsView{}, &platform.Error{Kind: platform.KindUnavailable, Msg: "transactions are unavailable; retry later", Err: err}
	}
	out := TransactionsView{Transactions: make([]TransactionView, 0, len(p.Rows)), NextCursor: p.Next}
	for _, r := range p.Rows {
		v := TransactionView{ID: r.Tx, Type: r.Kind, Ref: r.Ref, Time: r.At.Format(time.RFC3339Nano), Currency: r.Currency,
			Gross: r.Gross.String(), Fee: r.Fee.String(), Net: r.Net.String()}
		if r.Settled != 0 {
			v.Settled = r.Settled.String()
		}
		out.Transactions = append(out.Transactions, v)
	}
	return out, nil
}

// TxFilterOf reads cursor, limit, type (comma-separated kinds), from and to
// for appid (the authenticated merchant's, never a parameter).
func TxFilterOf(appid string, args Args) (TxFilter, error) {
	f := TxFilter{AppID: appid, Limit: DefaultTxLimit, Cursor: strings.Clone(args.Query("cursor"))}
	if v := args.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxTxLimit {
			return TxFilter{}, platform.Errorf(platform.KindInvalidParameter, "limit must be 1 to %d", MaxTxLimit)
		}
		f.Limit = n
	}
	if v := args.Query("type"); v != "" {
		for _, k := range strings.Split(v, ",") {
			if !knownKind(k) {
				return TxFilter{}, platform.Errorf(platform.KindInvalidParameter, "type must be one or more of %s", strings.Join(TxKinds, ", "))
			}
			f.Kinds = append(f.Kinds, strings.Clone(k))
		}
	}
	var err error
	if f.From, err = timeParam(args, "from"); err != nil {
		return TxFilter{}, err
	}
	if f.To, err = timeParam(args, "to"); err != nil {
		return TxFilter{}, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return TxFilter{}, platform.Errorf(platform.KindInvalidParameter, "to must be after from")
	}
	if f.Cursor != "" {
		if _, err := parseTxCursor(f.Cursor); err != nil {
			return TxFilter{}, err
		}
	}
	return f, nil
}

func knownKind(k string) bool {
	for _, x := range TxKinds {
		if x == k {
			return true
		}
	}
	return false
}
