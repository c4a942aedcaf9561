package usdtsim

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/provider"
)

// Config tunes a simulated chain node; the zero value is the sandbox's.
type Config struct {
	Now     func() time.Time // the chain's clock; time.Now when nil
	Genesis time.Time        // block 1; DefaultGenesis when zero
	KeepFor time.Duration    // how long a simulated transaction is remembered; 30 days when zero
	Hang    time.Duration    // the longest a Hang failure holds an answer; 30 s when zero
}

// Defaults is the sandbox's node: the system clock, DefaultGenesis, a
// transaction kept 30 days, a hang held at most 30 s.
func Defaults() Config {
	return Config{Now: time.Now, Genesis: DefaultGenesis, KeepFor: 30 * 24 * time.Hour, Hang: 30 * time.Second}
}

// withDefaults fills the zero fields from Defaults, and a negative duration
// too: NewNode returns no error, and the store always took the default then.
func (c Config) withDefaults() Config {
	d := Defaults()
	if c.Now == nil {
		c.Now = d.Now
	}
	if c.Genesis.IsZero() {
		c.Genesis = d.Genesis
	}
	if c.KeepFor <= 0 {
		c.KeepFor = d.KeepFor
	}
	if c.Hang <= 0 {
		c.Hang = d.Hang
	}
	return c
}

// Validate refuses a missing clock or genesis and a duration that is not
// positive; it changes nothing.
func (c Config) Validate() error {
	if c.Now == nil || c.Genesis.IsZero() || c.KeepFor <= 0 || c.Hang <= 0 {
		return fmt.Errorf("usdtsim: clock, genesis, keep-for %s and hang %s must all be set", c.KeepFor, c.Hang)
	}
	return nil
}

// Node is what every simulated chain node (tron, bsc) is made of: its
// chain's clock and its transactions kept in a provider.State. The chains'
// APIs and transaction shapes stay in their packages.
type Node struct {
	name  string
	Chain Chain
	Store Store
}

// NewNode is the node of chain name (its State prefix is usdtsim:<name>:),
// a block every interval.
func NewNode(name string, cfg Config, interval time.Duration, state provider.State) Node {
	cfg = cfg.withDefaults() // always valid after this: nothing to refuse
	return Node{
		name:  name,
		Chain: Chain{Genesis: cfg.Genesis, Interval: interval, Now: cfg.Now},
		Store: Store{State: state, Prefix: "usdtsim:" + name + ":", KeepFor: cfg.KeepFor, Hang: cfg.Hang},
	}
}

// Add keeps tx, a transaction just made under hash (err: why it could not
// be made), and answers its hash.
func (n Node) Add(ctx context.Context, hash string, tx any, err error) (string, error) {
	if err == nil {
		err = n.Store.Put(ctx, "tx", hash, tx)
	}
	if err != nil {
		return "", fmt.Errorf("%s simulator: %w", n.name, err)
	}
	return hash, nil
}

// MinedAt is when a transaction asked for at is mined: now when at is
// zero; never before the chain's genesis.
func (n Node) MinedAt(at time.Time) (time.Time, error) {
	if at.IsZero() {
		at = n.Chain.Now()
	}
	if at.Before(n.Chain.Genesis) {
		return time.Time{}, fmt.Errorf("%v is before the chain's genesis", at)
	}
	return at, nil
}

// Fail makes the node misbehave for the transaction id (Healthy heals it).
func (n Node) Fail(ctx context.Context, id string, f Failure) error {
	if err := n.Store.SetFailure(ctx, id, f); err != nil {
		return fmt.Errorf("%s simulator: %w", n.name, err)
	}
	return nil
}

// Head is the newest block now.
func (n Node) Head() int64 { return n.Chain.Head() }
