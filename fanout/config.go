package fanout

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Config is the fan-out's settings. A zero field takes its default, except
// BaseURL.
type Config struct {
	// BaseURL is the gateway's public URL, of which an order's links are
	// made in its events' data, as GET /api/order makes them.
	BaseURL string
	// Consumer is this process's name in the group; default
	// platform.ConsumerName().
	Consumer string
	// Count bounds one read of each stream: a backlog is worked in slices.
	Count int
	// Block is how long one read waits for new entries.
	Block time.Duration
	// ClaimIdle is how long an entry stays pending (its scheduling failed,
	// or its process died) before it is read again.
	ClaimIdle time.Duration
}

// Defaults: 256 entries a read, 1 s blocking, 30 s before an entry is
// taken back (the dispatcher's).
func Defaults() Config { return Config{Count: 256, Block: time.Second, ClaimIdle: 30 * time.Second} }

func (c Config) withDefaults() Config {
	d := Defaults()
	if c.Count == 0 {
		c.Count = d.Count
	}
	if c.Block == 0 {
		c.Block = d.Block
	}
	if c.ClaimIdle == 0 {
		c.ClaimIdle = d.ClaimIdle
	}
	return c
}

// Validate reports every bad value at once.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("events fan-out: base URL %q is not an http(s) URL", c.BaseURL))
	}
	if c.Count < 1 || c.Count > 10_000 {
		errs = append(errs, fmt.Errorf("events fan-out: count %d: 1 to 10000", c.Count))
	}
	if c.Block < time.Millisecond {
		errs = append(errs, fmt.Errorf("events fan-out: block %s is below 1ms", c.Block))
	}
	if c.ClaimIdle < time.Millisecond {
		errs = append(errs, fmt.Errorf("events fan-out: claim idle %s is below 1ms", c.ClaimIdle))
	}
	return errors.Join(errs...)
}
