package epay

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// MerchantInfo is act=query's answer: what the protocol answers that we
// hold. The reference also echoes the key and names a settlement account
// (type, account, username); we hold no such account, and a key does not
// belong in an answer a plugin may log.
type MerchantInfo struct {
	Code int `json:"code"`
	// PID is the appid as a number, as the reference answers it.
	PID json.Number `json:"pid"`
	// Active is 1: a disabled merchant's calls are refused.
	Active int `json:"active"`
	// Money is the available balance in CNY (the ledger's), two decimals.
	Money string `json:"money"`
	// Orders counts every order the merchant made; OrdersToday and
	// OrdersLastday the paid ones created today and yesterday, days in the
	// merchant's time zone (its ledger terms).
	Orders        int `json:"orders"`
	OrdersToday   int `json:"orders_today"`
	OrdersLastday int `json:"orders_lastday"`
}

// merchantInfo is act=query.
func (a *API) merchantInfo(ctx context.Context, acct *merchant.Account) (MerchantInfo, error) {
	if err := a.allow(ctx, acct, platform.ClassReport); err != nil {
		return MerchantInfo{}, err
	}
	info := MerchantInfo{Code: APICodeOK, PID: json.Number(acct.AppID), Active: 1, Money: schema.Amount(0).String()}
	bals, err := a.d.Balances.Balances(ctx, acct.AppID)
	if err != nil {
		return MerchantInfo{}, err
	}
	for _, b := range bals {
		if b.Currency == apiCurrency {
			info.Money = b.Available.String()
		}
	}
	if info.Orders, err = a.d.Totals.Total(ctx, acct.AppID); err != nil {
		return MerchantInfo{}, err
	}
	today := dayStart(a.d.Now(), zone(acct))
	if info.OrdersToday, err = a.paidCreated(ctx, acct, today, today.AddDate(0, 0, 1)); err != nil {
		return MerchantInfo{}, err
	}
	if info.OrdersLastday, err = a.paidCreated(ctx, acct, today.AddDate(0, 0, -1), today); err != nil {
		return MerchantInfo{}, err
	}
	return info, nil
}

// paidCreated counts acct's paid orders created in [from, to): the
// listing's total, which the report rollups give without a scan.
func (a *API) paidCreated(ctx context.Context, acct *merchant.Account, from, to time.Time) (int, error) {
	paid := schema.StatusPaid
	f := query.Filter{Page: 1, Limit: 1, Status: &paid, From: from, To: to}
	n, _, err := a.d.Orders.PageFor(ctx, acct, f)
	if err != nil {
		return 0, fromAPIDomain(err)
	}
	return n, nil
}

// zone is the merchant's day: its ledger terms' time zone, UTC when none
// or one this host cannot load.
func zone(acct *merchant.Account) *time.Location {
	if acct.Terms.TimeZone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(acct.Terms.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

func dayStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
}

// apiCurrency is the balance act=query answers: the protocol has no
// currency, and its merchants price in CNY.
const apiCurrency = "CNY"
