package command

import (
	"context"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// USDTSimulator makes transfers on the sandbox's simulated chains: what a
// sandbox payer's wallet would do, so the whole USDT flow can be shown
// without a chain.
type USDTSimulator interface {
	// SimulateTransfer sends payable USDT to address on network and gives
	// the transaction's hash.
	SimulateTransfer(ctx context.Context, network, address, payable string) (string, error)
}

// SimulateUSDTTransfer is the sandbox checkout's "simulate a transfer": the
// exact payable amount to the order's network address, on the simulated
// chain the sandbox's reviews read. Live orders never get one.
func (h *USDTPay) SimulateUSDTTransfer(ctx context.Context, id string) (string, error) {
	o, err := h.store.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if !o.Sandbox || o.Method != schema.MethodUSDTDirect {
		return "", platform.Errorf(platform.KindNotFound, "no sandbox USDT order %s", id)
	}
	if !o.Status.Live() || o.NextAction != schema.NextUSDTDirectPay || o.Network == "" {
		return "", platform.Errorf(platform.KindConflict, "order %s takes no transfer now", id)
	}
	if h.sim == nil {
		return "", platform.Errorf(platform.KindMethodUnavailable, "no simulated chain is running")
	}
	for _, n := range h.offer.For(true) {
		if n.Name == o.Network {
			return h.sim.SimulateTransfer(ctx, n.Name, n.Address, o.PayableAmount)
		}
	}
	return "", platform.Errorf(platform.KindMethodUnavailable, "network %s is not offered", o.Network)
}
