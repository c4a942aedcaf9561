package query

import (
	"sort"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// actionParams are the parameters each action of GET /api/order reads
// besides appid, key and action. Anything else is refused with 400 naming
// it: a misspelt filter (paymentmethod, state) silently ignored would answer
// with every order, and the merchant would take it for the filtered set.
var actionParams = map[string][]string{
	"order":      {"paymentId"},
	"webhooks":   {"paymentId"},
	"orders":     {"page", "limit", "status", "clientOrderId", "from", "to", "paymentMethod", "currency"},
	"summary":    {"from", "to", "paymentMethod", "currency", "status"},
	"timeseries": {"from", "to", "interval", "groupBy", "tz", "paymentMethod", "currency", "status"},
	"export":     {"from", "to", "status", "paymentMethod", "currency", "clientOrderId", "format"},
}

// Args are a request's query parameters as the door reads them: the value
// of key, or the first default when it is absent (the API door passes its request).
// What the action functions read from it they copy before keeping.
type Args interface {
	Query(key string, defaultValue ...string) string
}

// UnknownParam answers 400 for the first of names (the request's parameter
// names) the action does not read, in name order, so the answer is the same
// whatever the request's order.
func UnknownParam(action string, names []string) error {
	known := map[string]bool{"appid": true, "key": true, "action": true}
	for _, p := range actionParams[action] {
		known[p] = true
	}
	var unknown []string
	for _, k := range names {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return platform.Errorf(platform.KindInvalidParameter, "parameter %q is not known to action=%s", unknown[0], action)
}

// The times ClickHouse's DateTime holds (seconds since 1970 in a UInt32,
// up to 2106-02-07): a time outside them would wrap round in the query and
// match the wrong orders (to=2200-01-01 used to list none).
var (
	minWireTime = time.Unix(0, 0).UTC()
	maxWireTime = time.Date(2106, 1, 1, 0, 0, 0, 0, time.UTC)
)

// timeParam reads an RFC 3339 time the orders table can hold; zero when absent.
func timeParam(c Args, name string) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, platform.Errorf(platform.KindInvalidParameter, "%s must be an RFC 3339 time such as 2026-11-21T00:00:00Z", name)
	}
	if t.Before(minWireTime) || !t.Before(maxWireTime) {
		return time.Time{}, platform.Errorf(platform.KindInvalidParameter, "%s must be from 1970-01-01T00:00:00Z and before 2106-01-01T00:00:00Z", name)
	}
	return t.UTC(), nil
}

// methodParam reads a payment method code filter; "" when absent.
func methodParam(c Args) (schema.Method, error) {
	v := schema.Method(c.Query("paymentMethod"))
	if v != "" && !v.Known() {
		return "", platform.Errorf(platform.KindInvalidParameter, "paymentMethod must be a payment method code such as wallet_a")
	}
	return v, nil
}

// currencyParam reads a currency filter; "" when absent.
func currencyParam(c Args) (string, error) {
	v := c.Query("currency")
	if v != "" && !schema.KnownCurrency(v) {
		return "", platform.Errorf(platform.KindInvalidParameter, "currency must be an upper-case currency code such as USD")
	}
	return v, nil
}

// statusParam reads a status filter (name or code); nil when absent.
func statusParam(c Args) (*schema.Status, error) {
	v := c.Query("status")
	if v == "" {
		return nil, nil
	}
	st, ok := schema.ParseStatus(v)
	if !ok {
		return nil, platform.Errorf(platform.KindInvalidParameter, "status must be a status name or code 0 to 4")
	}
	return &st, nil
}
