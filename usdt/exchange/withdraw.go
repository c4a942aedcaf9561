package exchange

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Withdrawal statuses of the withdraw history.
const (
	WithdrawEmailSent  = 0
	WithdrawCancelled  = 1
	WithdrawAwaiting   = 2 // awaiting approval
	WithdrawRejected   = 3
	WithdrawProcessing = 4
	WithdrawFailure    = 5
	WithdrawCompleted  = 6
)

// WithdrawWindow is the longest time range the history answers for one
// withdrawOrderId; without a range it answers the last WithdrawWindow.
const WithdrawWindow = 7 * 24 * time.Hour

// CodeDuplicateWithdrawOrderID is the refusal of a second apply under a
// withdrawOrderId already used. The exchange documents the client id as
// the key of the history, not this refusal's code: the simulator answers
// it, and the payout rail never depends on it (it looks a withdrawal up
// before it applies again). The one code to confirm against the live
// exchange.
const CodeDuplicateWithdrawOrderID = -4115

// WithdrawAsk is one withdrawal of USDT: Amount (a decimal literal) to
// Address on Network (the exchange's name: TRX, BSC, ETH), under OrderID,
// our own id for it (withdrawOrderId), by which the history finds it.
type WithdrawAsk struct {
	OrderID, Network, Address, Amount string
}

// WithdrawRow is one row of the withdraw history.
type WithdrawRow struct {
	ID              string `json:"id"` // the exchange's id
	Amount          string `json:"amount"`
	TransactionFee  string `json:"transactionFee"`
	Coin            string `json:"coin"`
	Status          int    `json:"status"` // Withdraw* above
	Address         string `json:"address"`
	TxID            string `json:"txId"`      // the chain's transaction, once sent
	ApplyTime       string `json:"applyTime"` // UTC, "2006-01-02 15:04:05"
	Network         string `json:"network"`
	TransferType    int    `json:"transferType"` // 1 internal, 0 on the chain
	WithdrawOrderID string `json:"withdrawOrderId,omitempty"`
	Info            string `json:"info,omitempty"` // why it failed
}

// ApplyTimeLayout is how the history writes applyTime.
const ApplyTimeLayout = time.DateTime

// Withdraw applies for a withdrawal and answers the exchange's id. An
// *APIError is the exchange refusing it; any other error leaves unknown
// whether it was accepted, which only the history can tell.
func (c *Client) Withdraw(ctx context.Context, a WithdrawAsk) (string, error) {
	if a.OrderID == "" || a.Network == "" || a.Address == "" || a.Amount == "" {
		return "", errors.New("exchange withdraw: OrderID, Network, Address and Amount are required")
	}
	var out struct {
		ID string `json:"id"`
	}
	err := c.call(ctx, "POST", WithdrawPath, &out, param{"coin", "USDT"}, param{"withdrawOrderId", a.OrderID},
		param{"network", a.Network}, param{"address", a.Address}, param{"amount", a.Amount})
	if err != nil {
		return "", fmt.Errorf("exchange withdraw %s: %w", a.OrderID, err)
	}
	if out.ID == "" {
		return "", fmt.Errorf("exchange withdraw %s: an answer without an id", a.OrderID)
	}
	return out.ID, nil
}

// Withdrawal reads the withdrawal applied for under orderID between from
// and to (at most WithdrawWindow apart; zero times: the last
// WithdrawWindow). found is false when the history of that range has none.
func (c *Client) Withdrawal(ctx context.Context, orderID string, from, to time.Time) (row WithdrawRow, found bool, err error) {
	params := []param{{"coin", "USDT"}, {"withdrawOrderId", orderID}}
	if !from.IsZero() || !to.IsZero() {
		if to.Sub(from) > WithdrawWindow || to.Before(from) {
			return row, false, fmt.Errorf("exchange withdrawal %s: a range of %v, at most %v", orderID, to.Sub(from), WithdrawWindow)
		}
		params = append(params, param{"startTime", strconv.FormatInt(from.UnixMilli(), 10)},
			param{"endTime", strconv.FormatInt(to.UnixMilli(), 10)})
	}
	var rows []WithdrawRow
	if err := c.get(ctx, WithdrawHistoryPath, &rows, params...); err != nil {
		return row, false, fmt.Errorf("exchange withdrawal %s: %w", orderID, err)
	}
	for _, r := range rows {
		if r.WithdrawOrderID == orderID {
			return r, true, nil
		}
	}
	return row, false, nil
}
