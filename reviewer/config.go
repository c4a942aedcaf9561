package reviewer

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/gateway/platform"
)

// Config is the reviewer's configuration.
type Config struct {
	// Lease is how long a claimed review stays invisible to other
	// reviewers. It must outlast a whole review (at most four backend or
	// order calls, each bound by Timeout), so that two reviews of one
	// order never overlap unless a process stalls far beyond its time-outs;
	// even then the outcome calls are safe to repeat.
	Lease time.Duration
	// PollInterval is how often the queues are looked at when the last
	// round found nothing due.
	PollInterval time.Duration
	// Batch bounds the reviews in flight in this process.
	Batch int
	// Window is how long after the hash was submitted an undecided review
	// keeps being checked; then it waits for an administrator.
	Window time.Duration
	// Backoff is the delay before checking again, step by step; the last
	// step repeats.
	Backoff []time.Duration
	// Timeout bounds each call to a backend or to the order store.
	Timeout time.Duration
	// WaitingInterval is how often the waiting-for-an-administrator gauge is
	// refreshed (only with Deps.Waiting).
	WaitingInterval time.Duration
	// Now is the clock the review window and the next check are decided
	// by (platform.Clock); nil is the system clock. Leases are on Redis's.
	Now platform.Clock
}

// callsPerReview bounds the calls of one review that each take up to
// Timeout: the order, the chain, the exchange, the outcome.
const callsPerReview = 4

// Defaults is what `gateway serve` runs with unless told otherwise.
func Defaults() Config {
	return Config{
		Lease:           2 * time.Minute,
		PollInterval:    time.Second,
		Batch:           16,
		Window:          24 * time.Hour,
		Backoff:         []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute},
		Timeout:         10 * time.Second,
		WaitingInterval: 30 * time.Second,
	}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.Lease <= 0 || c.PollInterval <= 0 || c.Window <= 0 || c.Timeout <= 0 || c.WaitingInterval <= 0 {
		errs = append(errs, errors.New("usdt review lease, poll interval, window, timeout and waiting interval must be positive"))
	}
	if c.Lease <= callsPerReview*c.Timeout {
		errs = append(errs, fmt.Errorf("usdt review lease %s must exceed %d× the call timeout %s: a review must end inside its lease",
			c.Lease, callsPerReview, c.Timeout))
	}
	if c.Batch < 1 {
		errs = append(errs, errors.New("usdt review batch must be at least 1"))
	}
	if len(c.Backoff) == 0 || slices.ContainsFunc(c.Backoff, func(d time.Duration) bool { return d <= 0 }) {
		errs = append(errs, errors.New("usdt review backoff must be a list of positive delays"))
	}
	return errors.Join(errs...)
}

// delay is how long to wait before checking again a review submitted
// elapsed ago. It is derived from the elapsed time, not from a count kept
// anywhere, so a review taken over by another process keeps its pace: the
// step is the first whose cumulated delays pass elapsed.
func (c *Config) delay(elapsed time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range c.Backoff {
		sum += d
		if sum > elapsed {
			return d
		}
	}
	return c.Backoff[len(c.Backoff)-1]
}
