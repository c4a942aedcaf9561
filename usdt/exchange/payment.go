package exchange

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/gateway/usdt"
)

// PayHistory is the Pay trade history's answer.
type PayHistory struct {
	Code    string   `json:"code"` // "000000" on success
	Message string   `json:"message"`
	Success bool     `json:"success"`
	Data    []PayRow `json:"data"`
}

// PayRow is one Pay transaction. The order reference is MerchantTradeNo:
// Binance Pay's documented field for the merchant's own order id (Create
// Order's merchantTradeNo, letters and digits). The public description of
// GET /sapi/v1/pay/transactions lists no order field in its rows; an
// account that receives merchant payments is expected to see it there, and
// that is the one assumption to confirm against the live exchange.
type PayRow struct {
	OrderType       string `json:"orderType"` // PAY, PAY_REFUND, C2C, ...
	TransactionID   string `json:"transactionId"`
	TransactionTime int64  `json:"transactionTime"` // milliseconds
	Amount          string `json:"amount"`          // positive: income
	Currency        string `json:"currency"`
	MerchantTradeNo string `json:"merchantTradeNo"`
}

// PayLimit is how many of the newest Pay transactions are searched (the
// endpoint's maximum page; without a time range it covers 90 days).
const PayLimit = 100

// Payment reads the Pay record of orderID: a PAY transaction carrying it.
// It is Success only as income that no PAY_REFUND of the same order has
// undone. None among the newest PayLimit transactions is usdt.ErrNotFound.
func (c *Client) Payment(ctx context.Context, orderID string) (usdt.Payment, error) {
	var h PayHistory
	if err := c.get(ctx, PayPath, &h, param{"limit", fmt.Sprint(PayLimit)}); err != nil {
		return usdt.Payment{}, fmt.Errorf("exchange payment %s: %w", orderID, err)
	}
	if h.Code != "000000" {
		return usdt.Payment{}, fmt.Errorf("exchange payment %s: answered %q %.200s", orderID, h.Code, h.Message)
	}
	var pay *PayRow
	refunded := false
	for i, r := range h.Data {
		if r.MerchantTradeNo != orderID {
			continue
		}
		switch r.OrderType {
		case "PAY":
			if pay == nil {
				pay = &h.Data[i]
			}
		case "PAY_REFUND":
			refunded = true
		}
	}
	if pay == nil {
		return usdt.Payment{}, fmt.Errorf("exchange payment %s: %w", orderID, usdt.ErrNotFound)
	}
	income := pay.Amount != "" && !strings.HasPrefix(pay.Amount, "-")
	return usdt.Payment{OrderID: orderID, Amount: pay.Amount, Coin: pay.Currency, Success: income && !refunded,
		TxID: pay.TransactionID, Time: time.UnixMilli(pay.TransactionTime).UTC()}, nil
}
