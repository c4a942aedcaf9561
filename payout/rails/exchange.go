package rails

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/usdt/exchange"
)

// ExchangeConfig is how the exchange rail waits and looks back.
type ExchangeConfig struct {
	// Poll is the pause between history reads while an accepted
	// withdrawal is processing.
	Poll time.Duration
	// LookBack is how far back Lookup searches the history, a window of
	// exchange.WithdrawWindow at a time: the history's own reach, so "not
	// found" means the exchange has no withdrawal under the reference.
	LookBack time.Duration
	Now      func() time.Time
}

// ExchangeDefaults: a read every 2 s, 90 days back, the system clock.
func ExchangeDefaults() ExchangeConfig {
	return ExchangeConfig{Poll: 2 * time.Second, LookBack: 90 * 24 * time.Hour, Now: time.Now}
}

// Validate checks the configuration as given.
func (c ExchangeConfig) Validate() error {
	if c.Poll <= 0 || c.LookBack < exchange.WithdrawWindow || c.Now == nil {
		return fmt.Errorf("exchange rail: poll %v must be positive, look-back %v at least %v, and a clock", c.Poll, c.LookBack, exchange.WithdrawWindow)
	}
	return nil
}

// Exchange is a rail over the exchange's withdrawal API for one network:
// each payout is a withdrawal whose withdrawOrderId is the payout's
// reference, which the withdraw history finds again. The exchange pays
// the network fee on top (transactionFeeFlag left false), so the merchant
// receives the amount.
type Exchange struct {
	cfg     ExchangeConfig
	client  *exchange.Client
	network string // the exchange's name of it: TRX, BSC, ETH
}

// NewExchange is the rail of network (ours: TRC20, BEP20, ERC20) over
// client.
func NewExchange(cfg ExchangeConfig, client *exchange.Client, network string) (*Exchange, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	name := usdt.ExchangeNetwork(network)
	if name == "" {
		return nil, fmt.Errorf("exchange rail: no exchange network for %q", network)
	}
	return &Exchange{cfg: cfg, client: client, network: name}, nil
}

// errProcessing is an accepted withdrawal not yet ended: neither sent nor
// absent, so the payout stays with its sender until the history tells.
var errProcessing = errors.New("the withdrawal is processing at the exchange")

// lookStep is how far each older window of Lookup moves back: an hour
// short of a window, so windows overlap by an hour and a clock of ours an
// hour off the exchange's leaves no gap between the first (the exchange's
// clock) and the second (ours).
const lookStep = exchange.WithdrawWindow - time.Hour

// Lookup finds the withdrawal made under ref: the last window first (the
// exchange's own default range, on its own clock), then older ones.
func (e *Exchange) Lookup(ctx context.Context, ref string) (payout.Transfer, bool, error) {
	var from, to time.Time
	for back := time.Duration(0); back < e.cfg.LookBack; back += lookStep {
		if back > 0 {
			to = e.cfg.Now().Add(-back)
			from = to.Add(-exchange.WithdrawWindow)
		}
		row, found, err := e.client.Withdrawal(ctx, ref, from, to)
		if err != nil {
			return payout.Transfer{}, false, fmt.Errorf("exchange rail lookup: %w", err)
		}
		if found {
			t, err := transferOf(row)
			return t, err == nil, err
		}
	}
	return payout.Transfer{}, false, nil
}

// Send applies for the withdrawal and waits, within ctx, for it to end.
// The exchange refusing the withdrawal itself (an address, an amount) is a
// refusal; refusing the request (its signature, its clock, the key's
// permissions) is not the payout's fault, and it waits for the operator.
func (e *Exchange) Send(ctx context.Context, ref, address string, amount schema.Amount) (payout.Transfer, error) {
	_, err := e.client.Withdraw(ctx, exchange.WithdrawAsk{OrderID: ref, Network: e.network, Address: address, Amount: amount.String()})
	var refused *exchange.APIError
	switch {
	case errors.As(err, &refused) && refused.Code == exchange.CodeDuplicateWithdrawOrderID:
		// Applied for before: what it became is in the history.
	case errors.As(err, &refused) && refused.Status == 400 && refused.Code <= -4000 && refused.Code > -5000:
		return payout.Transfer{Refused: true, Reason: fmt.Sprintf("the exchange refused the withdrawal: %.200s", refused.Msg)}, nil
	case err != nil:
		return payout.Transfer{}, fmt.Errorf("exchange rail: %w", err)
	}
	return e.await(ctx, ref)
}

// await reads the history of ref until the withdrawal ends or ctx does.
func (e *Exchange) await(ctx context.Context, ref string) (payout.Transfer, error) {
	for {
		t, found, err := e.Lookup(ctx, ref)
		switch {
		case found:
			return t, nil
		case err == nil:
			err = fmt.Errorf("exchange rail: withdrawal %s accepted but not in the history", ref)
		case !errors.Is(err, errProcessing):
			return payout.Transfer{}, err
		}
		select {
		case <-ctx.Done():
			return payout.Transfer{}, fmt.Errorf("exchange rail: withdrawal %s: %w", ref, err)
		case <-time.After(e.cfg.Poll):
		}
	}
}

// transferOf is what a history row says: completed with its transaction,
// ended without one (money back), or still processing.
func transferOf(row exchange.WithdrawRow) (payout.Transfer, error) {
	switch row.Status {
	case exchange.WithdrawCompleted:
		if row.TxID == "" {
			return payout.Transfer{}, fmt.Errorf("exchange rail: withdrawal %s completed without a txId", row.WithdrawOrderID)
		}
		return payout.Transfer{TxHash: row.TxID}, nil
	case exchange.WithdrawCancelled, exchange.WithdrawRejected, exchange.WithdrawFailure:
		return payout.Transfer{Refused: true, Reason: fmt.Sprintf("the exchange ended the withdrawal (status %d): %.200s", row.Status, row.Info)}, nil
	}
	return payout.Transfer{}, fmt.Errorf("withdrawal %s, status %d: %w", row.WithdrawOrderID, row.Status, errProcessing)
}
