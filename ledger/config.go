package ledger

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/platform"
)

// Config tunes the ledger role. The zero value of a field takes its default.
type Config struct {
	Consumer string // this process's name in the group
	// Batch bounds the entries posted in one pipeline (one round trip).
	Batch      int
	Block      time.Duration // how long one stream read waits for new entries
	ClaimIdle  time.Duration // an entry pending this long is taken over
	ClaimEvery time.Duration // how often to look for such entries
	// SettleEvery is the Settler's pass interval; SettleLimit the due moves
	// one pass takes from each shard.
	SettleEvery time.Duration
	SettleLimit int
	Now         func() time.Time
}

// Defaults is what `gateway serve` runs the ledger role with.
func Defaults() Config {
	return Config{Consumer: platform.ConsumerName(), Batch: 4000, Block: time.Second, ClaimIdle: 30 * time.Second,
		ClaimEvery: 5 * time.Second, SettleEvery: 10 * time.Second, SettleLimit: 500, Now: time.Now}
}

func (c Config) withDefaults() Config {
	d := Defaults()
	c.Consumer = cmp.Or(c.Consumer, d.Consumer)
	c.Batch = cmp.Or(c.Batch, d.Batch)
	c.Block = cmp.Or(c.Block, d.Block)
	c.ClaimIdle = cmp.Or(c.ClaimIdle, d.ClaimIdle)
	c.ClaimEvery = cmp.Or(c.ClaimEvery, d.ClaimEvery)
	c.SettleEvery = cmp.Or(c.SettleEvery, d.SettleEvery)
	c.SettleLimit = cmp.Or(c.SettleLimit, d.SettleLimit)
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// Validate reports every bad value at once; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if c.Consumer == "" {
		errs = append(errs, errors.New("ledger: consumer name is empty"))
	}
	if c.Batch < 1 || c.Batch > 10_000 {
		errs = append(errs, fmt.Errorf("ledger: batch %d must be 1 to 10000", c.Batch))
	}
	if c.SettleLimit < 1 || c.SettleLimit > 10_000 {
		errs = append(errs, fmt.Errorf("ledger: settle limit %d must be 1 to 10000", c.SettleLimit))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"block", c.Block}, {"claim idle", c.ClaimIdle}, {"claim every", c.ClaimEvery}, {"settle every", c.SettleEvery}} {
		if d.v < time.Millisecond {
			errs = append(errs, fmt.Errorf("ledger: %s %s is below 1ms", d.name, d.v))
		}
	}
	if c.Now == nil {
		errs = append(errs, errors.New("ledger: no clock"))
	}
	return errors.Join(errs...)
}
