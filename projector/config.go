package projector

import (
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

func (c *Config) setDefaults() {
	if c.Consumer == "" {
		c.Consumer = platform.ConsumerName()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.BatchSize == 0 {
		c.BatchSize = 20_000
	}
	def(&c.FlushInterval, 250*time.Millisecond)
	def(&c.ClaimIdle, 30*time.Second)
	def(&c.ClaimEvery, 5*time.Second)
	def(&c.TrimEvery, 10*time.Second)
	def(&c.BackoffMin, 100*time.Millisecond)
	def(&c.BackoffMax, 5*time.Second)
	if c.TrimGroups == nil {
		c.TrimGroups = schema.ConsumerGroups()
	}
}

// Validate fills defaults and reports every bad value at once.
func (c *Config) Validate() error {
	c.setDefaults()
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
