package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// SandboxUSDTNetworks are offered to sandbox orders when no sandbox
// networks are configured: the null addresses of each chain, well formed
// so pages and tests behave as in production, and held by no one, so no
// one can mistake them for a place to receive money.
func SandboxUSDTNetworks() []schema.USDTNetwork {
	return []schema.USDTNetwork{
		{Name: "TRC20", Address: "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"},
		{Name: "BEP20", Address: "0x0000000000000000000000000000000000000000"},
	}
}

// ParseUSDTNetworks reads GATEWAY_USDT_NETWORKS, "TRC20=T...,BEP20=0x...":
// our receiving address on each network, in the order payers see them.
// Names are TRC20, BEP20 or ERC20, each at most once; an empty value
// configures none.
func ParseUSDTNetworks(s string) ([]schema.USDTNetwork, error) {
	var out []schema.USDTNetwork
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, addr, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("usdt network %q: want NETWORK=ADDRESS", part)
		}
		n := schema.USDTNetwork{Name: strings.ToUpper(strings.TrimSpace(name)), Address: strings.TrimSpace(addr)}
		if err := checkUSDTNetwork(n); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o schema.USDTNetwork) bool { return o.Name == n.Name }) {
			return nil, fmt.Errorf("usdt network %s is given twice", n.Name)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkUSDTNetwork refuses an unknown network or a malformed address.
func checkUSDTNetwork(n schema.USDTNetwork) error {
	if !usdt.KnownNetwork(n.Name) {
		return fmt.Errorf("usdt network %q is unknown; want one of %s", n.Name, strings.Join(usdt.NetworkNames, ", "))
	}
	if !usdt.ValidAddress(n.Name, n.Address) {
		return fmt.Errorf("usdt network %s: %q is not a %s address", n.Name, n.Address, n.Name)
	}
	return nil
}

func checkUSDTNetworks(list []schema.USDTNetwork) error {
	var errs []error
	for _, n := range list {
		if err := checkUSDTNetwork(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// USDTNetworkSource is the process's copy of the networks as data
// (usdt.Watcher), so `gateway usdt config` changes are offered without a
// restart.
type USDTNetworkSource interface {
	For(sandbox bool) []usdt.Network
}

// usdtOffer is the USDT networks offered to payers, shared by create, the
// select page and USDTPay.
type usdtOffer struct {
	live, sandbox []schema.USDTNetwork // Config's, used when no source is wired
	source        USDTNetworkSource
}

// USDTPay is usdt_direct's payer side: the network to send on, the
// transaction hash submitted for review (usdt_txhash.go), and the sandbox's
// simulated transfer (usdt_simulate.go).
type USDTPay struct {
	store  *Store
	offer  *usdtOffer
	usdt   *USDT
	sim    USDTSimulator
	window time.Duration // Config.USDTReviewWindow with its default
	log    *slog.Logger
	now    func() time.Time
}

// USDTNetworks are the networks the payer of a sandbox or live order may
// send on (usdtOffer.For).
func (h *USDTPay) USDTNetworks(sandbox bool) []schema.USDTNetwork { return h.offer.For(sandbox) }

// For is the networks a usdt_direct payer of a sandbox or live
// order may send on, each with the address payers are shown (the first
// configured). They come from the USDTNetworkSource when one is wired,
// else from Config. A live order gets only configured networks; a sandbox
// one the configured sandbox networks, else SandboxUSDTNetworks.
func (h *usdtOffer) For(sandbox bool) []schema.USDTNetwork {
	var out []schema.USDTNetwork
	switch {
	case h.source != nil:
		for _, n := range h.source.For(sandbox) {
			if len(n.Addresses) > 0 { // usdt.Check requires one; a hand-edited entry may lack it
				out = append(out, schema.USDTNetwork{Name: n.Name, Address: n.Addresses[0]})
			}
		}
	case sandbox:
		out = slices.Clone(h.sandbox)
	default:
		out = slices.Clone(h.live)
	}
	if sandbox && len(out) == 0 {
		return SandboxUSDTNetworks()
	}
	return out
}

// ChooseUSDTNetwork records the network the payer of usdt_direct order id
// sends on, with a changed event. The payer may change it until a
// transaction hash is submitted: the update is guarded on the next action,
// so a choice racing a submit either lands before it or is refused.
func (h *USDTPay) ChooseUSDTNetwork(ctx context.Context, id, network string) (*schema.Order, error) {
	o, err := h.usdtOrder(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := awaitingUSDT(o); err != nil {
		return nil, err
	}
	n, err := h.offer.offered(o.Sandbox, network)
	if err != nil {
		return nil, err
	}
	if o.Network == n.Name {
		return o, nil
	}
	applied, err := h.store.Update(ctx, id, []schema.Status{schema.StatusReady}, schema.FNextAction, schema.NextUSDTDirectPay,
		h.now(), schema.FNetwork, n.Name)
	if err != nil {
		return nil, err
	}
	if !applied {
		return nil, platform.Errorf(platform.KindConflict, "order %s changed meanwhile and takes no network choice now", id)
	}
	return h.store.Get(ctx, id)
}

// offeredNetwork finds the network a payer named among those offered.
func (h *usdtOffer) offered(sandbox bool, name string) (schema.USDTNetwork, error) {
	offered := h.For(sandbox)
	if len(offered) == 0 {
		return schema.USDTNetwork{}, platform.Errorf(platform.KindMethodUnavailable, "no USDT network is configured for usdt_direct")
	}
	names := make([]string, len(offered))
	for i, n := range offered {
		if strings.EqualFold(n.Name, strings.TrimSpace(name)) {
			return n, nil
		}
		names[i] = n.Name
	}
	return schema.USDTNetwork{}, platform.Errorf(platform.KindInvalidParameter, "network %q is not offered; choose one of %s", name, strings.Join(names, ", "))
}

// usdtOrder reads usdt_direct order id; any other order is not found, as
// the payer pages know nothing else by this path.
func (h *USDTPay) usdtOrder(ctx context.Context, id string) (*schema.Order, error) {
	o, err := h.store.Get(ctx, id)
	if platform.KindOf(err) == platform.KindNotFound || (err == nil && o.Method != schema.MethodUSDTDirect) {
		return nil, platform.Errorf(platform.KindNotFound, "no usdt_direct order %s", id)
	}
	return o, err
}

// awaitingUSDT refuses an order whose payer has nothing to do any more.
func awaitingUSDT(o *schema.Order) error {
	switch {
	case o.TxHash != "":
		return platform.Errorf(platform.KindConflict, "a transaction hash was submitted for order %s; it is under review", o.ID)
	case !o.Status.Live() || o.NextAction != schema.NextUSDTDirectPay:
		return platform.Errorf(platform.KindConflict, "order %s is %s and takes no payment now", o.ID, o.Status)
	}
	return nil
}
