package projector

import (
	"cmp"
	"errors"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Group is the projector's consumer group on every shard stream.
const Group = schema.GroupProjector

// Config tunes the projector. The zero value of a field takes its default.
type Config struct {
	Consumer      string        // this process's name in the group
	BatchSize     int           // rows per insert, at most
	FlushInterval time.Duration // a lone event is inserted within this
	ClaimIdle     time.Duration // a pending entry idle this long is taken over
	ClaimEvery    time.Duration // how often to look for such entries
	TrimEvery     time.Duration // how often to trim the streams
	TrimGroups    []string      // every group that must have acknowledged before trimming
	BackoffMin    time.Duration
	BackoffMax    time.Duration
}

// Defaults is what `gateway serve` runs the projector with.
func Defaults() Config {
	return Config{
		Consumer:      platform.ConsumerName(),
		BatchSize:     20_000,
		FlushInterval: 250 * time.Millisecond,
		ClaimIdle:     30 * time.Second,
		ClaimEvery:    5 * time.Second,
		TrimEvery:     10 * time.Second,
		TrimGroups:    schema.ConsumerGroups(),
		BackoffMin:    100 * time.Millisecond,
		BackoffMax:    5 * time.Second,
	}
}

// withDefaults fills the zero fields from Defaults.
func (c Config) withDefaults() Config {
	d := Defaults()
	c.Consumer = cmp.Or(c.Consumer, d.Consumer)
	c.BatchSize = cmp.Or(c.BatchSize, d.BatchSize)
	c.FlushInterval = cmp.Or(c.FlushInterval, d.FlushInterval)
	c.ClaimIdle = cmp.Or(c.ClaimIdle, d.ClaimIdle)
	c.ClaimEvery = cmp.Or(c.ClaimEvery, d.ClaimEvery)
	c.TrimEvery = cmp.Or(c.TrimEvery, d.TrimEvery)
	c.BackoffMin = cmp.Or(c.BackoffMin, d.BackoffMin)
	c.BackoffMax = cmp.Or(c.BackoffMax, d.BackoffMax)
	if c.TrimGroups == nil {
		c.TrimGroups = d.TrimGroups
	}
	return c
}

// Validate reports every bad value at once; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if c.BatchSize < 1 || c.BatchSize > 100_000 {
		errs = append(errs, errors.New("projector: batch size must be 1 to 100000"))
	}
	if c.FlushInterval < time.Millisecond || c.FlushInterval > time.Second {
		errs = append(errs, errors.New("projector: flush interval must be 1ms to 1s (the visibility promise)"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"claim idle", c.ClaimIdle}, {"claim every", c.ClaimEvery}, {"trim every", c.TrimEvery}, {"backoff min", c.BackoffMin}} {
		if d.v <= 0 {
			errs = append(errs, errors.New("projector: "+d.name+" must be positive"))
		}
	}
	if c.BackoffMin > c.BackoffMax {
		errs = append(errs, errors.New("projector: backoff min above max"))
	}
	return errors.Join(errs...)
}
