package dispatcher

import (
	"errors"
	"flag"
	"fmt"
	"github.com/paygate/gateway/epay"
	"slices"
	"strings"
	"time"

	"github.com/paygate/gateway/platform"
)

// Config is the dispatcher's configuration. The GATEWAY_WEBHOOK_* names are
// part of the operator interface (deployments set them); keep them stable.
type Config struct {
	// Schedule is the delay before each retry; len(Schedule)+1 attempts are
	// made before the delivery is dead-lettered. Each delay gets ±Jitter.
	Schedule []time.Duration
	Jitter   float64
	// Timeout bounds one attempt: resolving, connecting, sending and reading
	// the answer.
	Timeout time.Duration
	// AllowPrivate lets notify_url reach loopback, private, link-local and
	// metadata addresses (development and tests only).
	AllowPrivate bool
	// EpayTypes names an epay order's type in its notification when the
	// payer chose the method (the order keeps no word then); nil leaves
	// type out of such a notification.
	EpayTypes epay.TypeSource
	// Concurrency bounds attempts in flight in this process; PerHost bounds
	// them per destination host:port, so one slow endpoint holds at most
	// PerHost of the Concurrency slots.
	Concurrency int
	PerHost     int
	// Consumer names this process in the consumer group; default hostname-pid.
	Consumer string
	// Poll is how often the due queues are checked when nothing woke the
	// worker earlier; Block is how long one stream read waits.
	Poll  time.Duration
	Block time.Duration
	// LeaseMargin is added to Timeout to form a claim's lease: past it, the
	// attempt of a crashed process falls due again for anyone.
	LeaseMargin time.Duration
	// ClaimIdle is how long a stream entry may stay unacknowledged with a
	// consumer before another process takes it over (XAUTOCLAIM).
	ClaimIdle time.Duration
	// Retention keeps delivery state and logs when the order hash has no time
	// to live of its own to copy (normally they expire with the order).
	Retention time.Duration
	// LogCap bounds the attempts kept per order (automatic ones are at most
	// len(Schedule)+1; the rest are manual resends).
	LogCap int
	// HistoryCap bounds a merchant's index of every delivery (the Webhooks
	// page's history) to its newest: a high-volume merchant's week would
	// otherwise be millions of members in memory.
	HistoryCap int
	// EventRetention keeps endpoint deliveries, their attempts and each
	// endpoint's history index; EventHistoryCap bounds that index to its
	// newest deliveries. A replay reaches no further back than
	// EventRetention.
	EventRetention  time.Duration
	EventHistoryCap int
	// EndpointDisableAfter: an endpoint whose attempts have all failed
	// for this long (since its last success) is disabled.
	EndpointDisableAfter time.Duration
	// Now is the clock due attempts are looked for and webhooks are
	// timestamped by (platform.Clock); nil is the system clock. Leases are
	// on Redis's clock and attempt deadlines on the real one.
	Now platform.Clock

	bindErrs []error
}

// defaultSchedule is DESIGN.md's retry schedule: 12 attempts over about 3.4 days.
var defaultSchedule = []time.Duration{
	15 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
	2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 16 * time.Hour, 24 * time.Hour, 24 * time.Hour,
}

// Defaults is what `gateway serve` runs with unless told otherwise.
func Defaults() Config {
	return Config{
		Schedule:    slices.Clone(defaultSchedule),
		Jitter:      0.2,
		Timeout:     10 * time.Second,
		Concurrency: 64,
		PerHost:     8,
		Poll:        200 * time.Millisecond,
		Block:       time.Second,
		LeaseMargin: 5 * time.Second,
		ClaimIdle:   30 * time.Second,
		Retention:   7 * 24 * time.Hour,
		LogCap:      100,
		HistoryCap:  100_000,

		EventRetention:       30 * 24 * time.Hour,
		EventHistoryCap:      10_000,
		EndpointDisableAfter: 72 * time.Hour,
	}
}

// Bind registers the operator-facing settings on fs, each defaulting to its
// GATEWAY_WEBHOOK_* environment variable, through the process's one binder
// (platform.Binder). A malformed variable is reported by Validate rather
// than silently ignored.
func (c *Config) Bind(fs *flag.FlagSet) {
	b := platform.NewBinder(fs)
	b.Func("webhook-schedule", "GATEWAY_WEBHOOK_SCHEDULE", "delays before each webhook retry, e.g. 15s,1m,5m", func(v string) error {
		s, err := ParseSchedule(v)
		if err == nil {
			c.Schedule = s
		}
		return err
	}, func() string { return formatSchedule(c.Schedule) })
	b.Duration(&c.Timeout, "webhook-timeout", "GATEWAY_WEBHOOK_TIMEOUT", "time-out of one webhook attempt")
	b.Bool(&c.AllowPrivate, "webhook-allow-private", "GATEWAY_WEBHOOK_ALLOW_PRIVATE", "let notify_url reach private and loopback addresses")
	b.Int(&c.Concurrency, "webhook-concurrency", "GATEWAY_WEBHOOK_CONCURRENCY", "webhook attempts in flight per process")
	b.Int(&c.PerHost, "webhook-per-host", "GATEWAY_WEBHOOK_PER_HOST", "webhook attempts in flight per destination host")
	b.Duration(&c.EndpointDisableAfter, "webhook-endpoint-disable-after", "GATEWAY_WEBHOOK_ENDPOINT_DISABLE_AFTER",
		"disable a webhook endpoint whose attempts have all failed for this long")
	c.bindErrs = b.Errs()
}

func formatSchedule(s []time.Duration) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// ParseSchedule reads GATEWAY_WEBHOOK_SCHEDULE: comma-separated Go durations,
// the delay before each retry in turn ("15s,1m,5m" makes four attempts).
func ParseSchedule(v string) ([]time.Duration, error) {
	if strings.TrimSpace(v) == "" {
		return nil, errors.New("schedule is empty")
	}
	var out []time.Duration
	for _, part := range strings.Split(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		if d <= 0 {
			return nil, fmt.Errorf("schedule: delay %s must be positive", d)
		}
		out = append(out, d)
	}
	return out, nil
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	errs := slices.Clone(c.bindErrs)
	if len(c.Schedule) == 0 {
		errs = append(errs, errors.New("webhook schedule is empty"))
	}
	for _, d := range c.Schedule {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("webhook schedule delay %s must be positive", d))
		}
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		errs = append(errs, fmt.Errorf("webhook jitter %v must be in [0, 1)", c.Jitter))
	}
	if c.Concurrency < 1 || c.PerHost < 1 {
		errs = append(errs, errors.New("webhook concurrency and per-host limit must be at least 1"))
	}
	if c.Timeout <= 0 || c.Poll <= 0 || c.Block <= 0 || c.LeaseMargin <= 0 || c.ClaimIdle <= 0 || c.Retention <= 0 {
		errs = append(errs, errors.New("webhook timeout, poll, block, lease margin, claim idle and retention must be positive"))
	}
	if c.LogCap < 1 || c.HistoryCap < 1 {
		errs = append(errs, errors.New("webhook log cap and history cap must be at least 1"))
	}
	if c.EventRetention < time.Hour || c.EventHistoryCap < 1 || c.EndpointDisableAfter <= 0 {
		errs = append(errs, errors.New("webhook event retention (at least 1h), history cap and endpoint disable-after must be positive"))
	}
	return errors.Join(errs...)
}

// lease is how long a claim keeps other processes away from an attempt.
func (c *Config) lease() time.Duration { return c.Timeout + c.LeaseMargin }
