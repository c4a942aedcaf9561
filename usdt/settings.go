package usdt

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// Store keeps the networks as data in Redis (schema.USDTConfigKey), one JSON
// value per network, so `gateway usdt config` changes what every process
// offers without a restart. Live and sandbox networks share the hash under
// different fields (Network.Key): one place to read, one version to watch,
// and a sandbox TRC20 can coexist with the live TRC20 without either
// shadowing the other.
type Store struct {
	rdb redis.UniversalClient
}

// NewStore reads and writes the networks in rdb.
func NewStore(rdb redis.UniversalClient) *Store { return &Store{rdb: rdb} }

// ErrNoNetwork is a network the store does not hold.
var ErrNoNetwork = errors.New("usdt: no such network configured")

// Key is the network's field in the store: its name, prefixed with
// "sandbox:" for a sandbox network.
func (n Network) Key() string { return key(n.Name, n.Sandbox) }

func key(name string, sandbox bool) string {
	if sandbox {
		return "sandbox:" + name
	}
	return name
}

// Check gives n as it is stored: names upper case, EVM addresses lower
// case (as chains report them), defaults for what was left out (the
// chain's USDT contract and decimals, 30 confirmations on TRON, 15 on BSC,
// mode chain, the exchange's name of the network), or an error naming
// what is wrong. Every address must be well formed on its chain: a typo
// here sends payers' money where no one can spend it.
func Check(n Network) (Network, error) {
	n.Name = strings.ToUpper(strings.TrimSpace(n.Name))
	c, ok := chains[n.Name]
	if !ok {
		return Network{}, fmt.Errorf("usdt network %q is unknown; want one of %s", n.Name, strings.Join(NetworkNames, ", "))
	}
	addrs := make([]string, 0, len(n.Addresses))
	for _, a := range n.Addresses {
		a = c.normalise(strings.TrimSpace(a))
		if !c.address(a) {
			return Network{}, fmt.Errorf("usdt network %s: %q is not a %s address", n.Name, a, n.Name)
		}
		if slices.Contains(addrs, a) {
			return Network{}, fmt.Errorf("usdt network %s: address %s is given twice", n.Name, a)
		}
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return Network{}, fmt.Errorf("usdt network %s: at least one receiving address is required", n.Name)
	}
	n.Addresses = addrs
	n.Contract = c.normalise(cmp.Or(strings.TrimSpace(n.Contract), c.contract))
	if !c.address(n.Contract) {
		return Network{}, fmt.Errorf("usdt network %s: contract %q is not a %s address", n.Name, n.Contract, n.Name)
	}
	n.Decimals = cmp.Or(n.Decimals, c.decimals)
	n.Confirmations = cmp.Or(n.Confirmations, c.confirmations)
	n.Mode = cmp.Or(n.Mode, ModeChain)
	n.ExchangeNetwork = strings.ToUpper(cmp.Or(strings.TrimSpace(n.ExchangeNetwork), c.exchangeNetwork))
	switch {
	case n.Decimals < 1 || n.Decimals > 36:
		return Network{}, fmt.Errorf("usdt network %s: decimals %d out of range 1..36", n.Name, n.Decimals)
	case n.Confirmations < 1:
		return Network{}, fmt.Errorf("usdt network %s: confirmations must be positive", n.Name)
	case !n.Mode.Valid():
		return Network{}, fmt.Errorf("usdt network %s: mode %q is not chain, exchange, dual or exchange_pay", n.Name, n.Mode)
	}
	return n, nil
}

// normalise writes an address as the chain reports it: EVM hex in lower
// case; TRON base58 is case-sensitive and kept.
func (c chain) normalise(addr string) string {
	if strings.HasPrefix(strings.ToLower(addr), "0x") {
		return strings.ToLower(addr)
	}
	return addr
}

// Set stores n (checked, with defaults) and bumps the version, so every
// Watcher reloads within its interval. The version is bumped after the
// write: a watcher that sees the new version reads the new value.
func (s *Store) Set(ctx context.Context, n Network) error {
	n, err := Check(n)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(n)
	if err != nil {
		return err
	}
	// One MULTI (both keys carry one hash tag): a watcher never sees the
	// version without the value, and a failed write bumps nothing.
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.USDTConfigKey, n.Key(), raw)
		p.Incr(ctx, schema.USDTConfigVersionKey)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store usdt network %s: %w", n.Key(), err)
	}
	return nil
}

// Remove deletes the live or sandbox network name; ErrNoNetwork when the
// store holds none.
func (s *Store) Remove(ctx context.Context, name string, sandbox bool) error {
	n, err := s.rdb.HDel(ctx, schema.USDTConfigKey, key(strings.ToUpper(strings.TrimSpace(name)), sandbox)).Result()
	if err != nil {
		return fmt.Errorf("remove usdt network %s: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s", ErrNoNetwork, key(name, sandbox))
	}
	return s.bump(ctx)
}

func (s *Store) bump(ctx context.Context) error {
	if err := s.rdb.Incr(ctx, schema.USDTConfigVersionKey).Err(); err != nil {
		return fmt.Errorf("bump usdt config version: %w", err)
	}
	return nil
}

// List reads every network, live ones first, each kind in the order of
// NetworkNames (the order payers see them in).
func (s *Store) List(ctx context.Context) ([]Network, error) {
	h, err := s.rdb.HGetAll(ctx, schema.USDTConfigKey).Result()
	if err != nil {
		return nil, fmt.Errorf("read usdt networks: %w", err)
	}
	out := make([]Network, 0, len(h))
	for k, raw := range h {
		var n Network
		if err := json.Unmarshal([]byte(raw), &n); err != nil {
			return nil, fmt.Errorf("usdt network %s: %w", k, err)
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Network) int {
		if a.Sandbox != b.Sandbox {
			return map[bool]int{true: 1, false: -1}[a.Sandbox]
		}
		return cmp.Compare(slices.Index(NetworkNames, a.Name), slices.Index(NetworkNames, b.Name))
	})
	return out, nil
}

// Seed stores nets when the store was never configured (no version yet, no
// network): the first start of a deployment takes GATEWAY_USDT_NETWORKS and
// GATEWAY_USDT_SANDBOX_NETWORKS, later starts leave what operators set
// alone, even when they removed every network. Two processes seeding at
// once write the same values (HSETNX). It reports whether it seeded.
func (s *Store) Seed(ctx context.Context, nets []Network) (bool, error) {
	if len(nets) == 0 {
		return false, nil
	}
	checked := make([]Network, len(nets))
	for i, n := range nets {
		c, err := Check(n)
		if err != nil {
			return false, err
		}
		checked[i] = c
	}
	exists, err := s.rdb.Exists(ctx, schema.USDTConfigVersionKey, schema.USDTConfigKey).Result()
	if err != nil {
		return false, fmt.Errorf("read usdt config: %w", err)
	}
	if exists > 0 {
		return false, nil
	}
	for _, n := range checked {
		raw, _ := json.Marshal(n)
		if err := s.rdb.HSetNX(ctx, schema.USDTConfigKey, n.Key(), raw).Err(); err != nil {
			return false, fmt.Errorf("seed usdt network %s: %w", n.Key(), err)
		}
	}
	return true, s.bump(ctx)
}
