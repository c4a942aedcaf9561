package platform

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Validate checks the configuration and reports every problem at once,
// among them any environment value Bind could not read; it changes
// nothing. An empty PublicURL is allowed: serve derives it from the address
// it actually listens on.
func (c Config) Validate() error {
	errs := slices.Clone(c.bindErrs)
	if c.HTTPAddr == "" {
		errs = append(errs, errors.New("http-addr is empty"))
	}
	if c.OpsAddr == "" {
		errs = append(errs, fmt.Errorf("ops-addr is empty: /metrics is served only on the operations listener (default %s)", DefaultOpsAddr))
	}
	if c.AdminAddr == "" {
		errs = append(errs, fmt.Errorf("admin-addr is empty: the operator console is served only on its own listener (default %s)", DefaultAdminAddr))
	} else if !strings.HasSuffix(c.AdminAddr, ":0") && (c.AdminAddr == c.HTTPAddr || c.AdminAddr == c.OpsAddr) {
		errs = append(errs, errors.New("admin-addr must differ from http-addr and ops-addr: the operator console has a listener of its own"))
	}
	if u, err := url.Parse(c.PublicURL); c.PublicURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		errs = append(errs, fmt.Errorf("public-url %q is not an http(s) URL", c.PublicURL))
	}
	if c.ClickHouseCluster != "" && !dbName.MatchString(c.ClickHouseCluster) {
		errs = append(errs, fmt.Errorf("clickhouse-cluster %q is not a plain identifier", c.ClickHouseCluster))
	}
	if !slices.Contains([]string{"none", "sandbox", "exchange"}, c.PayoutRail) {
		errs = append(errs, fmt.Errorf("payout-rail %q: none, sandbox or exchange", c.PayoutRail))
	}
	if c.PayoutRail == "exchange" && (c.ExchangeURL == "" || c.ExchangeKey == "" || c.ExchangeSecret == "") {
		errs = append(errs, errors.New("payout-rail exchange needs exchange-url, exchange-key and exchange-secret"))
	}
	if c.PayoutLease < 5*time.Second {
		errs = append(errs, fmt.Errorf("payout-lease %v: at least 5s", c.PayoutLease))
	}
	if len(c.Roles) == 0 {
		errs = append(errs, errors.New("roles is empty"))
	}
	for _, r := range c.Roles {
		if !slices.Contains(AllRoles, r) {
			errs = append(errs, fmt.Errorf("unknown role %q", r))
		}
	}
	if _, err := NewClientIP(c.TrustedProxies); err != nil {
		errs = append(errs, err)
	}
	for _, l := range []Limit{c.RateCreate, c.RateQuery, c.RateReport, c.RatePages, c.RateLoginIP, c.RateLoginAcct, c.ConsoleLoginLimitIP, c.ConsoleLoginLimitAccount} {
		if l.PerSecond <= 0 || l.Burst < 1 {
			errs = append(errs, fmt.Errorf("rate limit %s: rate and burst must be positive", l))
		}
	}
	if c.ClickHouseReads < 1 || c.ClickHouseReadQueue < 1 {
		errs = append(errs, errors.New("clickhouse-reads and clickhouse-read-queue must be at least 1"))
	}
	if c.ClickHouseReadPerMerchant < 0 || c.ClickHouseReadPerMerchant > c.ClickHouseReads {
		errs = append(errs, errors.New("clickhouse-read-per-merchant must be from 0 (a quarter) to clickhouse-reads"))
	}
	// Its upper bound (the per-merchant cap, which may be derived) is
	// query.FairGateConfig.Validate's, checked when the gate is built.
	if c.ClickHouseReadShared < 0 {
		errs = append(errs, errors.New("clickhouse-read-shared must be from 0 (half) to clickhouse-read-per-merchant"))
	}
	if c.ClickHouseReadWait <= 0 {
		errs = append(errs, errors.New("clickhouse-read-wait must be positive"))
	}
	if c.ShutdownDrain < 0 || c.ShutdownDrain >= c.ShutdownTimeout {
		errs = append(errs, errors.New("shutdown-drain must be at least 0 and below shutdown-timeout"))
	}
	for m, d := range c.OrderTTLMethods {
		if !m.Known() || d <= 0 {
			errs = append(errs, fmt.Errorf("order-ttl-methods %s=%s: want a method and a positive duration", m, d))
		}
	}
	if c.RedisWaitReplicas < 0 || c.RedisWaitTimeout <= 0 {
		errs = append(errs, errors.New("redis-wait-replicas must be at least 0 and redis-wait-timeout positive"))
	}
	if c.OrderTTL <= 0 || c.OrderRetention <= 0 || c.ReportMaxRange <= 0 || c.ShutdownTimeout <= 0 || c.USDTReview <= 0 || c.ChannelBudget <= 0 || c.SessionTTL <= 0 || c.HTTPReadTimeout <= 0 {
		errs = append(errs, errors.New("order-ttl, order-retention, report-max-range, shutdown-timeout, usdt-review-window, session-ttl and http-read-timeout must be positive"))
	}
	if c.ConsoleIdleTimeout < time.Minute || c.ConsoleAbsoluteTimeout < c.ConsoleIdleTimeout {
		errs = append(errs, errors.New("console-idle-timeout must be at least 1m and console-absolute-timeout at least the idle timeout"))
	}
	if c.ClockOffset < -MaxClockOffset || c.ClockOffset > MaxClockOffset {
		errs = append(errs, fmt.Errorf("clock-offset %s is beyond ±%s", c.ClockOffset, MaxClockOffset))
	}
	if c.ClaimIdle != 0 && (c.ClaimIdle < MinClaimIdle || c.ClaimIdle > time.Hour) {
		errs = append(errs, fmt.Errorf("claim-idle %s must be 0 (the default) or from %s to 1h", c.ClaimIdle, MinClaimIdle))
	}
	if c.GCPercent < 25 || c.GCPercent > 10000 {
		errs = append(errs, fmt.Errorf("gc-percent %d must be from 25 to 10000", c.GCPercent))
	}
	if c.MemoryLimitMiB != 0 && c.MemoryLimitMiB < MinMemoryLimitMiB {
		errs = append(errs, fmt.Errorf("memory-limit %d MiB must be 0 (none) or at least %d", c.MemoryLimitMiB, MinMemoryLimitMiB))
	}
	errs = append(errs, c.validateChannels()...)
	if err := c.Payouts.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// DefaultChannelsMax is GATEWAY_CHANNELS_MAX unless set: far more accounts
// than an operator rotates per method, few enough labels for Prometheus.
const DefaultChannelsMax = 16

// MaxChannelsMax bounds GATEWAY_CHANNELS_MAX itself.
const MaxChannelsMax = 100

// channelID is channel.ValidID's rule (the channel package builds on this
// one, so it cannot be imported here; a test holds the two together).
var channelID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// validateChannels checks the channel bound and the sandbox's channel ids.
func (c Config) validateChannels() []error {
	var errs []error
	if c.ChannelsMax < 1 || c.ChannelsMax > MaxChannelsMax {
		errs = append(errs, fmt.Errorf("channels-max %d: want 1 to %d", c.ChannelsMax, MaxChannelsMax))
	}
	seen := map[string]bool{}
	for _, id := range c.SandboxChannels {
		switch {
		case !channelID.MatchString(id):
			errs = append(errs, fmt.Errorf("sandbox-channels: channel id %q: use 1 to 32 of a-z, 0-9, '_' and '-', starting with a letter or digit", id))
		case seen[id]:
			errs = append(errs, fmt.Errorf("sandbox-channels: channel id %q twice", id))
		}
		seen[id] = true
	}
	if !seen["default"] {
		errs = append(errs, errors.New("sandbox-channels must include default: sandbox orders from before channels are on it"))
	}
	if len(c.SandboxChannels) > c.ChannelsMax && c.ChannelsMax > 0 {
		errs = append(errs, fmt.Errorf("sandbox-channels: %d channels, more than channels-max %d", len(c.SandboxChannels), c.ChannelsMax))
	}
	return errs
}

// MinMemoryLimitMiB bounds a memory limit from below: under it the
// runtime would collect without end for a heap a gateway needs anyway.
const MinMemoryLimitMiB = 64

// MinClaimIdle bounds ClaimIdle from below: an event is taken over from a
// process that is merely busy for less than a second and a half (a batch
// of inserts, a pause of the machine), which would only double the work.
const MinClaimIdle = 2 * time.Second

// MaxClockOffset bounds ClockOffset: the skew a fault test means is
// minutes; a day or more is a typo.
const MaxClockOffset = 24 * time.Hour

// ParseMethodTTLs reads "cryptopsp=60m,usdt_direct=60m": how long an unpaid
// order of each method stays payable, where it differs from order-ttl.
func ParseMethodTTLs(v string) (map[schema.Method]time.Duration, error) {
	out := map[schema.Method]time.Duration{}
	var errs []error
	for _, part := range splitList(v) {
		name, lit, ok := strings.Cut(part, "=")
		m := schema.Method(strings.TrimSpace(name))
		d, err := time.ParseDuration(strings.TrimSpace(lit))
		switch {
		case !ok || err != nil || d <= 0 || m == "":
			errs = append(errs, fmt.Errorf("order-ttl-methods %q: want METHOD=DURATION, e.g. cryptopsp=60m", part))
		case !m.Known():
			errs = append(errs, fmt.Errorf("order-ttl-methods names %q, not a method", m))
		default:
			out[m] = d
		}
	}
	return out, errors.Join(errs...)
}
