package epay

import (
	"context"
	"regexp"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

// OrderRow is one order as act=order and act=orders answer it, the
// reference's fields that we hold: our order id as trade_no, the
// clientOrderId as out_trade_no, the type word (the one sent, or the
// operator's word for the method the payer chose), the appid as pid,
// times in the merchant's time zone, the description as name.
type OrderRow struct {
	TradeNo    string  `json:"trade_no"`
	OutTradeNo string  `json:"out_trade_no"`
	Type       string  `json:"type"`
	PID        string  `json:"pid"`
	AddTime    string  `json:"addtime"`
	EndTime    *string `json:"endtime"` // null until the order is final
	Name       string  `json:"name"`
	Money      string  `json:"money"`
	Param      string  `json:"param"`
	Buyer      string  `json:"buyer"` // we hold no payer account: ""
	// Status is 0 unpaid, 1 paid, 2 paid and refunded (all or part: the
	// reference marks any refund so), with RefundMoney then.
	Status      int    `json:"status"`
	RefundMoney string `json:"refundmoney,omitempty"`
}

// OrderAnswer is act=order's answer.
type OrderAnswer struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	OrderRow
}

// The protocol's order status values.
const (
	StatusUnpaid   = 0
	StatusPaid     = 1
	StatusRefunded = 2
)

const apiTime = "2006-01-02 15:04:05"

// outTradeNo is what an out_trade_no can be (our clientOrderId's pattern):
// anything else names no order.
var outTradeNo = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// order is act=order: by trade_no (our order id), else by out_trade_no.
func (a *API) order(ctx context.Context, acct *merchant.Account, p Params) (OrderAnswer, error) {
	if p["trade_no"] == "" && p["out_trade_no"] == "" {
		return OrderAnswer{}, &APIError{Code: APICodeNoOrder, Msg: "trade_no or out_trade_no is required"}
	}
	if err := a.allow(ctx, acct, platform.ClassQuery); err != nil {
		return OrderAnswer{}, err
	}
	o, err := a.find(ctx, acct, p)
	if err != nil {
		return OrderAnswer{}, err
	}
	t, err := a.d.Types.Types(ctx)
	if err != nil {
		return OrderAnswer{}, err
	}
	return OrderAnswer{Code: APICodeOK, Msg: "succ", OrderRow: Row(o, t, zone(acct))}, nil
}

// find reads the merchant's order a call names: by trade_no when given.
func (a *API) find(ctx context.Context, acct *merchant.Account, p Params) (*schema.Order, error) {
	if id := p["trade_no"]; id != "" {
		o, err := a.d.Orders.OrderFor(ctx, acct, id)
		if err != nil {
			return nil, fromAPIDomain(err)
		}
		return o, nil
	}
	return a.byOutTradeNo(ctx, acct, p["out_trade_no"])
}

// byOutTradeNo is the live order holding the clientOrderId, else the
// newest the listing holds (a final order's clientOrderId is free again,
// so more than one may have held it).
func (a *API) byOutTradeNo(ctx context.Context, acct *merchant.Account, coid string) (*schema.Order, error) {
	if !outTradeNo.MatchString(coid) {
		return nil, apiRefused("order does not exist")
	}
	o, err := a.d.Live.LiveByClientOrder(ctx, acct.AppID, coid)
	if err != nil {
		return nil, err
	}
	if o != nil && o.AppID == acct.AppID {
		return o, nil
	}
	_, found, err := a.d.Orders.PageFor(ctx, acct, query.Filter{Page: 1, Limit: 1, ClientOrderID: coid})
	if err != nil {
		return nil, fromAPIDomain(err)
	}
	if len(found) == 0 {
		return nil, apiRefused("order does not exist")
	}
	return &found[0], nil
}

// Row is o as the protocol lists it; types names the method when the
// order carries no type word of its own (the payer chose, or it came by
// SPEC.md's API).
func Row(o *schema.Order, types Types, loc *time.Location) OrderRow {
	r := OrderRow{TradeNo: o.ID, OutTradeNo: o.ClientOrderID, Type: o.DoorType, PID: o.AppID,
		AddTime: o.CreatedAt.In(loc).Format(apiTime), Name: o.Description, Money: o.Amount.String(),
		Param: o.DoorParam, Status: StatusUnpaid}
	if r.Type == "" {
		r.Type, _ = types.Word(o.Method)
	}
	if !o.CompletedAt.IsZero() {
		end := o.CompletedAt.In(loc).Format(apiTime)
		r.EndTime = &end
	}
	if o.Status == schema.StatusPaid {
		r.Status = StatusPaid
		if o.Refunded > 0 {
			r.Status, r.RefundMoney = StatusRefunded, o.Refunded.String()
		}
	}
	return r
}
