package simkit

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// Cost is the fee schedule the simulated provider account charges now:
// its sandbox channel's configured cost, the schedule the ledger prices a
// payment's cost with (journal.Price, from the order's cost). A simulator
// keeps what it charges as the fee of its statement line, so a day's
// statement reconciles with the ledger, and a changed cost is a fee
// difference the reconciliation finds. Nil charges nothing.
type Cost func(ctx context.Context) (schema.FeeSchedule, error)

// FixedCost is a Cost that is always f: for tests and tools.
func FixedCost(f schema.FeeSchedule) Cost {
	return func(context.Context) (schema.FeeSchedule, error) { return f, nil }
}

// Fee is what cost charges on amount (minor units of the charged
// currency), as journal.Price prices it.
func Fee(ctx context.Context, cost Cost, amount schema.Amount) (schema.Amount, error) {
	if cost == nil {
		return 0, nil
	}
	f, err := cost(ctx)
	if err != nil {
		return 0, fmt.Errorf("the account's cost: %w", err)
	}
	return f.Fee(amount), nil
}
