package epay

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// api.php's use cases: the protocol's merchant calls authenticated by pid
// and key (the merchant's API key, sent as is), then our own read or
// refund use cases for that merchant only (docs/epay-api.md).

// APIOrders are the query side's reads for a merchant another door proved
// (query.Orders).
type APIOrders interface {
	OrderFor(ctx context.Context, acct *merchant.Account, id string) (*schema.Order, error)
	PageFor(ctx context.Context, acct *merchant.Account, f query.Filter) (int, []schema.Order, error)
}

// LiveClientOrders finds the live order holding a clientOrderId
// (command.Store): nil when none is live.
type LiveClientOrders interface {
	LiveByClientOrder(ctx context.Context, appid, clientOrderID string) (*schema.Order, error)
}

// APIRefunds is the command side's refund for a merchant another door
// proved (command.Refunds).
type APIRefunds interface {
	RefundFor(ctx context.Context, acct *merchant.Account, ask command.RefundAsk) (*schema.Refund, *schema.Order, bool, error)
}

// APIBalances are the merchant's balances as the journal keeps them.
type APIBalances interface {
	Balances(ctx context.Context, appid string) ([]journal.Balance, error)
}

// APITotals counts the merchant's orders without a scan (query.RedisOrders).
type APITotals interface {
	Total(ctx context.Context, appid string) (int, error)
}

// APIDeps are api.php's collaborators; all but Limiter and Now are required.
type APIDeps struct {
	Accounts merchant.Lookuper
	Orders   APIOrders
	Live     LiveClientOrders
	Refunds  APIRefunds
	Balances APIBalances
	Totals   APITotals
	Types    TypeSource
	Limiter  *platform.Limiter // nil: no rate limit
	// QueryLimit and ReportLimit are the defaults of the merchant's query
	// class (act=query, act=order) and report class (act=orders, which
	// reads ClickHouse), as GET /api/order spends them.
	QueryLimit, ReportLimit platform.Limit
	Now                     func() time.Time
}

// API serves api.php's acts.
type API struct {
	d APIDeps
}

// NewAPI builds api.php's use cases.
func NewAPI(d APIDeps) (*API, error) {
	if d.Accounts == nil || d.Orders == nil || d.Live == nil || d.Refunds == nil || d.Balances == nil || d.Totals == nil || d.Types == nil {
		return nil, errors.New("epay api: accounts, orders, live, refunds, balances, totals and types are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &API{d: d}, nil
}

// Acts are the protocol's act values we serve.
const (
	ActQuery  = "query"
	ActOrder  = "order"
	ActOrders = "orders"
	ActRefund = "refund"
)

// APICall is one api.php request as the door received it: its parameters
// (query string and form together) and whether it came by POST.
type APICall struct {
	Params Params
	Post   bool
}

// Do runs the act p names and returns its answer, or an *APIError (the
// protocol's refusal) or an error of ours.
func (a *API) Do(ctx context.Context, c APICall) (any, error) {
	act := c.Params["act"]
	switch act {
	case ActQuery, ActOrder, ActOrders, ActRefund:
	default:
		return nil, &APIError{Code: APICodeNoAct, Msg: "No Act!"}
	}
	if act == ActRefund && !c.Post {
		return nil, &APIError{Code: APICodeNoAct, Msg: "act=refund must be sent by POST"}
	}
	acct, err := a.admit(ctx, c.Params)
	if err != nil {
		return nil, err
	}
	switch act {
	case ActQuery:
		return a.merchantInfo(ctx, acct)
	case ActOrder:
		return a.order(ctx, acct, c.Params)
	case ActOrders:
		return a.orders(ctx, acct, c.Params)
	}
	return a.refund(ctx, acct, c.Params)
}

// admit is the protocol's order of checks: the merchant, its key, then
// ours: a disabled merchant is refused (its own API is, SPEC.md's too).
func (a *API) admit(ctx context.Context, p Params) (*merchant.Account, error) {
	if p["pid"] == "" {
		return nil, &APIError{Code: APICodeAuth, Msg: "merchant does not exist"}
	}
	acct, err := a.d.Accounts.Lookup(ctx, p["pid"])
	if errors.Is(err, merchant.ErrNotFound) {
		return nil, &APIError{Code: APICodeAuth, Msg: "merchant does not exist"}
	}
	if err != nil {
		return nil, fmt.Errorf("look up merchant: %w", err)
	}
	if !keyMatches(acct, p["key"], a.d.Now()) {
		return nil, &APIError{Code: APICodeAuth, Msg: "merchant key is wrong"}
	}
	if acct.Disabled {
		return nil, &APIError{Code: APICodeRefused, Msg: "merchant is disabled"}
	}
	return acct, nil
}

// keyMatches compares key with every API key the merchant's rotation
// accepts at now, each in constant time and all of them whatever the first
// answers, so the timing tells nothing of which (if any) was close.
func keyMatches(acct *merchant.Account, key string, now time.Time) bool {
	if key == "" {
		return false
	}
	ok := 0
	for _, k := range acct.SignKeys(now) {
		ok |= subtle.ConstantTimeCompare([]byte(k), []byte(key))
	}
	return ok == 1
}

// allow spends one call of the merchant's budget in class.
func (a *API) allow(ctx context.Context, acct *merchant.Account, class string) error {
	def, over := a.d.QueryLimit, acct.QueryLimit
	if class == platform.ClassReport {
		def, over = a.d.ReportLimit, acct.ReportLimit
	}
	if err := a.d.Limiter.Allow(ctx, class, acct.AppID, merchant.Limit(over, def)); err != nil {
		return fromAPIDomain(err)
	}
	return nil
}
