package bsc

import (
	"context"

	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// Decimals are USDT's on BSC.
const Decimals = 18

// payoutTransfer makes a payout's transfer: amount of USDT to to, mined now,
// from a hot wallet the simulator makes up.
func (s *Sim) payoutTransfer(ctx context.Context, to, amount string) (string, error) {
	if !usdt.ValidAddress("BEP20", to) {
		return "", &usdtsim.BadTransfer{Reason: "not a BSC address"}
	}
	units, err := usdt.Units(amount, Decimals)
	if err != nil || units.Sign() <= 0 {
		return "", &usdtsim.BadTransfer{Reason: "not a positive USDT amount"}
	}
	return s.AddTransfer(ctx, TransferSpec{To: to, Units: units, Success: true})
}
