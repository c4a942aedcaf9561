package command

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// usdtChain is what we know of a network a usdt_direct payer may send on:
// how our receiving address and a transaction hash look there. An address
// that is not well formed would take payers' money to nowhere, so it is
// refused when the configuration is read, not when a payer sees it.
type usdtChain struct {
	address func(string) bool
	tx      func(string) bool // on the lower-cased, trimmed hash
}

var usdtChains = map[string]usdtChain{
	"TRC20": {address: tronAddress, tx: func(s string) bool { return len(s) == 64 && isHex(s) }},
	"BEP20": {address: evmAddress, tx: evmTxHash},
	"ERC20": {address: evmAddress, tx: evmTxHash},
}

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
	c, ok := usdtChains[n.Name]
	if !ok {
		return fmt.Errorf("usdt network %q is unknown; want one of TRC20, BEP20, ERC20", n.Name)
	}
	if !c.address(n.Address) {
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

// USDTNetworks are the networks a usdt_direct payer of a sandbox or live
// order may send on. A live order gets only configured networks; a sandbox
// one the configured sandbox networks, else SandboxUSDTNetworks.
func (h *CreateOrder) USDTNetworks(sandbox bool) []schema.USDTNetwork {
	switch {
	case !sandbox:
		return slices.Clone(h.cfg.USDTNetworks)
	case len(h.cfg.USDTSandboxNetworks) > 0:
		return slices.Clone(h.cfg.USDTSandboxNetworks)
	}
	return SandboxUSDTNetworks()
}

// ChooseUSDTNetwork records the network the payer of usdt_direct order id
// sends on, with a changed event. The payer may change it until a
// transaction hash is submitted: the update is guarded on the next action,
// so a choice racing a submit either lands before it or is refused.
func (h *CreateOrder) ChooseUSDTNetwork(ctx context.Context, id, network string) (*schema.Order, error) {
	o, err := h.usdtOrder(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := awaitingUSDT(o); err != nil {
		return nil, err
	}
	n, err := h.offeredNetwork(o.Sandbox, network)
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
func (h *CreateOrder) offeredNetwork(sandbox bool, name string) (schema.USDTNetwork, error) {
	offered := h.USDTNetworks(sandbox)
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
func (h *CreateOrder) usdtOrder(ctx context.Context, id string) (*schema.Order, error) {
	o, err := h.store.Get(ctx, id)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && o.Method != schema.MethodUSDTDirect) {
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

// tronAddress is a TRON address: base58check of 0x41 and 20 bytes, which
// always reads T and 33 more characters. The checksum catches a mistyped
// character.
func tronAddress(s string) bool {
	if len(s) != 34 || s[0] != 'T' {
		return false
	}
	b, ok := base58(s)
	if !ok || len(b) != 25 || b[0] != 0x41 {
		return false
	}
	sum := sha256.Sum256(b[:21])
	sum = sha256.Sum256(sum[:])
	return bytes.Equal(sum[:4], b[21:])
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58 decodes Bitcoin's base58; each leading '1' is a zero byte.
func base58(s string) ([]byte, bool) {
	n, radix := new(big.Int), big.NewInt(58)
	for _, r := range s {
		d := strings.IndexRune(base58Alphabet, r)
		if d < 0 {
			return nil, false
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(d)))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	return append(make([]byte, zeros), n.Bytes()...), true
}

// evmAddress is 0x and 20 bytes in hex. A mixed-case (EIP-55) checksum is
// not verified: that needs Keccak-256, which the standard library lacks.
func evmAddress(s string) bool {
	return len(s) == 42 && s[:2] == "0x" && isHex(s[2:])
}

func evmTxHash(s string) bool { return len(s) == 66 && s[:2] == "0x" && isHex(s[2:]) }

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
