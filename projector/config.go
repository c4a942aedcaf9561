package projector

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Group is the projector's consumer group on every shard stream.
const Group = "projector"

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
		host, _ := os.Hostname()
		c.Consumer = fmt.Sprintf("%s-%d", host, os.Getpid())
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
		c.TrimGroups = []string{Group, "dispatcher"}
	}
}

// Validate fills defaults and checks the result.
func (c *Config) Validate() error {
	c.setDefaults()
	switch {
	case c.BatchSize < 1 || c.BatchSize > 100_000:
		return errors.New("projector: batch size must be 1 to 100000")
	case c.FlushInterval > time.Second:
		return errors.New("projector: flush interval above 1s breaks the visibility promise")
	case c.BackoffMin > c.BackoffMax:
		return errors.New("projector: backoff min above max")
	}
	return nil
}
