package platform

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/paygate/gateway/schema"
)

// Roles a gateway process can run (DESIGN.md).
const (
	RoleCommand    = "command"
	RoleQuery      = "query"
	RoleProjector  = "projector"
	RoleDispatcher = "dispatcher"
	RoleReviewer   = "reviewer" // USDT direct reviews (package reviewer)
)

// AllRoles is the default: one process doing everything.
var AllRoles = []string{RoleCommand, RoleQuery, RoleProjector, RoleDispatcher, RoleReviewer}

// Config is the process-wide configuration. Every field is a flag with a
// GATEWAY_* environment equivalent; the names are part of the interface.
type Config struct {
	HTTPAddr string
	// OpsAddr is the operations listener, the only one serving /metrics
	// (and /healthz too): what the gateway counts is never on the
	// merchant-facing HTTPAddr. Loopback by default, so a process that is
	// not told otherwise shows it to nobody else.
	OpsAddr string
	// AdminAddr is the operator console's listener (/admin):
	// never the public one, loopback by default, so operator pages are
	// reachable only where someone chose to expose them.
	AdminAddr string
	PublicURL string
	RedisURL  string
	// RedisCluster reads RedisURL as a cluster seed
	// (redis://h1:7000?addr=h2:7001) and talks to Redis Cluster.
	RedisCluster bool
	// On a cluster, every write waits for this many replicas (WAIT) up to
	// RedisWaitTimeout before it is answered; 0 turns that off.
	RedisWaitReplicas int
	RedisWaitTimeout  time.Duration
	ClickHouseDSN     string
	// ClickHouseCluster names a cluster of ClickHouse's remote_servers:
	// migrate then builds sharded tables on its every node and a
	// Distributed table for reads. Empty: one node.
	ClickHouseCluster string
	Roles             []string
	TrustedProxies    []string
	USDTRates         string
	USDTNetworks      string // live usdt_direct receiving addresses, TRC20=T...,BEP20=0x...
	USDTSandboxNets   string // the sandbox's; built-in null addresses when empty
	USDTReview        time.Duration
	// FXMaxDeviation is how far, in percent of a pair's current rate, an
	// operator may move it without confirming (GATEWAY_FX_MAX_DEVIATION);
	// operator.SettingsConfig checks it (serve's settings, at start).
	FXMaxDeviation int
	// ProvidersFile is the JSON file of live provider configurations by
	// method; it is read when set (flag or GATEWAY_PROVIDERS_FILE), and the
	// GATEWAY_PROVIDER_<METHOD> variables are read at Bind: Providers
	// merges the two, so no other code reads those variables.
	ProvidersFile   string
	providersFile   map[schema.Method]json.RawMessage
	providersEnv    map[schema.Method]json.RawMessage
	ProviderTimeout time.Duration
	OrderTTL        time.Duration
	// OrderTTLMethods are per-method TTLs that differ from OrderTTL, read
	// once from "cryptopsp=60m,usdt_direct=60m".
	OrderTTLMethods map[schema.Method]time.Duration
	OrderRetention  time.Duration
	// ReportMaxRange is the longest from..to of GET /api/order's summary,
	// timeseries and export.
	ReportMaxRange time.Duration
	// ClickHouseReads bounds the read queries one query node runs on
	// ClickHouse at once, and ClickHouseReadQueue the queries one merchant
	// may have waiting for them before it is refused (query.FairGate);
	// ClickHouseReadPerMerchant the slots one merchant may hold at once
	// (0: a quarter of ClickHouseReads, at least 1) and
	// ClickHouseReadShared those while another merchant reads too (0: half
	// the former, at least 1), and ClickHouseReadWait the longest a query
	// waits for a slot before it is refused.
	ClickHouseReads           int
	ClickHouseReadQueue       int
	ClickHouseReadPerMerchant int
	ClickHouseReadShared      int
	ClickHouseReadWait        time.Duration
	ShutdownTimeout           time.Duration
	ShutdownDrain             time.Duration
	// CPUProfile, when set, makes the process write a CPU profile of its
	// whole run to CPUProfile.<pid> as it stops: how `make pgo` takes a
	// profile for profile-guided builds (cmd/gateway/default.pgo) from real
	// gateways under the create benchmark's load, server loop and Redis
	// pipelines included, which a handler benchmark would miss. A
	// diagnostic; empty in production.
	CPUProfile string
	LogLevel   string
	// HTTPReadTimeout bounds reading one request (headers and body) on the
	// public listener: the slow-client (slow loris) bound.
	HTTPReadTimeout time.Duration
	// BehindTLS says a TLS-terminating proxy or load balancer is in front
	// of HTTPAddr, which serves plain HTTP: serve stops warning about a
	// public address then.
	BehindTLS bool
	// The default rate limits, read once from RATE/UNIT[:BURST].
	RateCreate    Limit         // per merchant, createorder
	RateQuery     Limit         // per merchant, order queries and the sandbox driver
	RateReport    Limit         // per merchant, the read side's ClickHouse queries (orders, summary, timeseries, export)
	RatePages     Limit         // per client IP, payer pages
	RateLoginIP   Limit         // per client IP, payer logins at /merchant/login
	RateLoginAcct Limit         // per account, payer logins at /merchant/login
	SessionTTL    time.Duration // how long a payer's login session lasts
	MethodLimits  string        // per-method amount limits over the built-in defaults, e.g. wallet_a=1.00-50000.00,cryptohost=5.00-
	// The payer pages: polling per SPEC.md's Limits, and the key of their
	// forms' CSRF tokens (empty: one kept in Redis, shared by every node).
	PagePollInterval  time.Duration
	PagePollTimeout   time.Duration
	PageRedirectDelay time.Duration
	CSRFKey           string
	// MethodNames are the payer-facing method names by language, as JSON
	// or a JSON file's path (checkout.ParseMethodNames reads it).
	MethodNames string
	// The live USDT backends the reviewers read (sandbox orders use the
	// simulators every command node serves).
	TronURL        string
	TronAPIKey     string
	BSCURL         string
	ExchangeURL    string
	ExchangeKey    string
	ExchangeSecret string
	// ClockOffset moves the clock this process decides things by (see
	// Clock): a fault-testing knob for the chaos suite's skewed process.
	// A production deployment leaves it unset; serve warns when it is not 0.
	ClockOffset time.Duration
	// The merchant console's sessions and login limits (access.Config).
	ConsoleIdleTimeout       time.Duration
	ConsoleAbsoluteTimeout   time.Duration
	ConsoleLoginLimitIP      Limit // per client IP
	ConsoleLoginLimitAccount Limit // per account

	// bindErrs are the environment values Bind could not read; Validate
	// reports them with every other problem.
	bindErrs []error
}

// Limits are the parsed default rate limits.
type Limits struct {
	Create, Query, Pages Limit
	Report               Limit
	LoginIP, LoginAcct   Limit
	// ConsoleLoginIP and ConsoleLoginAcct are the merchant console's.
	ConsoleLoginIP, ConsoleLoginAcct Limit
}

// Limits are the default rate limits, as read.
func (c *Config) Limits() Limits {
	return Limits{Create: c.RateCreate, Query: c.RateQuery, Report: c.RateReport, Pages: c.RatePages,
		LoginIP: c.RateLoginIP, LoginAcct: c.RateLoginAcct, ConsoleLoginIP: c.ConsoleLoginLimitIP, ConsoleLoginAcct: c.ConsoleLoginLimitAccount}
}

// Providers are the live providers' configurations by method: the file's,
// and over them those of the GATEWAY_PROVIDER_<METHOD> variables. Each is
// the family's JSON, for the family's registration to decode.
func (c *Config) Providers() map[schema.Method]json.RawMessage {
	out := maps.Clone(c.providersFile)
	if out == nil {
		out = map[schema.Method]json.RawMessage{}
	}
	maps.Copy(out, c.providersEnv)
	return out
}

// DefaultOpsAddr is where /metrics is served unless GATEWAY_OPS_ADDR says
// otherwise: loopback, on a port no usual neighbour (Prometheus itself on
// 9090, node_exporter on 9100) takes.
const DefaultOpsAddr = "127.0.0.1:9464"

// DefaultAdminAddr is where the operator console listens unless
// GATEWAY_ADMIN_ADDR says otherwise: loopback, the port after the
// operations listener's.
const DefaultAdminAddr = "127.0.0.1:9465"

// Defaults are what a fresh `gateway serve` uses.
func Defaults() Config {
	return Config{
		HTTPAddr:            ":8080",
		OpsAddr:             DefaultOpsAddr,
		AdminAddr:           DefaultAdminAddr,
		RedisURL:            "redis://127.0.0.1:6379/0",
		RedisWaitReplicas:   1,
		RedisWaitTimeout:    100 * time.Millisecond,
		ClickHouseDSN:       "clickhouse://127.0.0.1:9000/gateway",
		Roles:               slices.Clone(AllRoles),
		USDTRates:           "USD=1,CNY=7.2,BDT=120",
		USDTReview:          24 * time.Hour,
		FXMaxDeviation:      10,
		OrderTTL:            30 * time.Minute,
		OrderRetention:      7 * 24 * time.Hour,
		ReportMaxRange:      366 * 24 * time.Hour,
		ShutdownTimeout:     20 * time.Second,
		ShutdownDrain:       time.Second,
		ProviderTimeout:     10 * time.Second,
		LogLevel:            "info",
		HTTPReadTimeout:     DefaultReadTimeout,
		RateCreate:          mustLimit("1000/s:2000"),
		RateQuery:           mustLimit("200/s:400"),
		RateReport:          mustLimit("20/s:40"),
		ClickHouseReads:     8,
		ClickHouseReadQueue: 64,
		ClickHouseReadWait:  10 * time.Second,
		RatePages:           mustLimit("20/s:60"),
		RateLoginIP:         mustLimit("10/m:10"),
		RateLoginAcct:       mustLimit("5/m:5"),
		SessionTTL:          15 * time.Minute,
		PagePollInterval:    4 * time.Second,
		PagePollTimeout:     3 * time.Minute,
		PageRedirectDelay:   time.Second,

		ConsoleIdleTimeout:       30 * time.Minute,
		ConsoleAbsoluteTimeout:   12 * time.Hour,
		ConsoleLoginLimitIP:      mustLimit("10/m:10"),
		ConsoleLoginLimitAccount: mustLimit("5/m:5"),
	}
}

// Bind registers the flags on fs, each defaulting to its environment
// variable when set, else to the value already in c. An environment value
// that does not parse is kept for Validate.
func (c *Config) Bind(fs *flag.FlagSet) {
	b := NewBinder(fs)
	str, list, dur, integer := b.String, b.List, b.Duration, b.Int
	limit := func(p *Limit, name, env, usage string) {
		b.Func(name, env, usage, func(s string) error {
			l, err := ParseLimit(s)
			if err == nil {
				*p = l
			}
			return err
		}, p.String)
	}
	str(&c.HTTPAddr, "http-addr", "GATEWAY_HTTP_ADDR", "address the HTTP server listens on")
	str(&c.OpsAddr, "ops-addr", "GATEWAY_OPS_ADDR", "address of the operations listener, the only one serving /metrics (and /healthz); a private address, never a public one")
	str(&c.CPUProfile, "cpu-profile", "GATEWAY_CPU_PROFILE", "write the process's CPU profile to this path plus .<pid> when it stops (make pgo); empty: none")
	str(&c.AdminAddr, "admin-addr", "GATEWAY_ADMIN_ADDR", "address of the operator console's listener (/admin); loopback by default, never the public listener")
	b.Func("public-url", "GATEWAY_PUBLIC_URL", "base URL of every address we return; default http://<listening address>",
		func(s string) error { c.PublicURL = strings.TrimRight(s, "/"); return nil }, func() string { return c.PublicURL })
	str(&c.RedisURL, "redis-url", "GATEWAY_REDIS_URL", "Redis URL; with redis-cluster a cluster seed, redis://h1:7000?addr=h2:7001&addr=h3:7002")
	BindRedisCluster(b, &c.RedisCluster)
	integer(&c.RedisWaitReplicas, "redis-wait-replicas", "GATEWAY_REDIS_WAIT_REPLICAS", "on Redis Cluster, replicas every write waits for before it is answered (0: none)")
	dur(&c.RedisWaitTimeout, "redis-wait-timeout", "GATEWAY_REDIS_WAIT_TIMEOUT", "on Redis Cluster, how long a write waits for its replicas before it is answered anyway (counted in gateway_redis_unreplicated_writes_total)")
	str(&c.ClickHouseDSN, "clickhouse-dsn", "GATEWAY_CLICKHOUSE_DSN", "ClickHouse DSN (native protocol)")
	str(&c.ClickHouseCluster, "clickhouse-cluster", "GATEWAY_CLICKHOUSE_CLUSTER", "cluster of ClickHouse's remote_servers the order table is sharded over; empty: one node")
	list(&c.Roles, "roles", "GATEWAY_ROLES", "roles to run: command,query,projector,dispatcher")
	list(&c.TrustedProxies, "trusted-proxies", "GATEWAY_TRUSTED_PROXIES", "CIDRs whose X-Forwarded-For, -Proto and -Host are believed")
	str(&c.USDTRates, "usdt-rates", "GATEWAY_USDT_RATES", "initial units of each currency per 1 USDT, e.g. USD=1,CNY=7.2 (then `gateway fx set USDT CNY 7.2`)")
	str(&c.USDTNetworks, "usdt-networks", "GATEWAY_USDT_NETWORKS", "on a deployment's first start, seeds our receiving address on each network live usdt_direct payers may send on, e.g. TRC20=T...,BEP20=0x... (then `gateway usdt config`)")
	str(&c.USDTSandboxNets, "usdt-sandbox-networks", "GATEWAY_USDT_SANDBOX_NETWORKS", "the same for sandbox orders; none configured: the networks' null addresses")
	dur(&c.USDTReview, "usdt-review-window", "GATEWAY_USDT_REVIEW_WINDOW", "how long a usdt_direct order whose payer submitted a transaction hash stays open for its review before it expires")
	integer(&c.FXMaxDeviation, "fx-max-deviation", "GATEWAY_FX_MAX_DEVIATION", "how far, in percent of a pair's current rate, an FX rate may move without the operator confirming (console) or --force (CLI)")
	b.Func("providers-file", "GATEWAY_PROVIDERS_FILE", "JSON file of live provider configurations by method; GATEWAY_PROVIDER_<METHOD> variables override it",
		c.readProvidersFile, func() string { return c.ProvidersFile })
	c.providersEnv = providersFromEnv()
	dur(&c.OrderTTL, "order-ttl", "GATEWAY_ORDER_TTL", "how long an unpaid order stays payable")
	b.Func("order-ttl-methods", "GATEWAY_ORDER_TTL_METHODS", "per-method order TTLs that differ from order-ttl, e.g. cryptopsp=60m,usdt_direct=60m",
		func(s string) error {
			m, err := ParseMethodTTLs(s)
			if err == nil {
				c.OrderTTLMethods = m
			}
			return err
		}, func() string { return "" })
	dur(&c.OrderRetention, "order-retention", "GATEWAY_ORDER_RETENTION", "how long Redis keeps a finished order")
	dur(&c.ReportMaxRange, "report-max-range", "GATEWAY_REPORT_MAX_RANGE", "longest from..to of action=summary, timeseries and export (default 8784h, 366 days)")
	dur(&c.ShutdownTimeout, "shutdown-timeout", "GATEWAY_SHUTDOWN_TIMEOUT", "bound on a graceful stop")
	dur(&c.ProviderTimeout, "provider-timeout", "GATEWAY_PROVIDER_TIMEOUT", "default bound on one call to a live provider (a family's caller.timeout wins)")
	dur(&c.ShutdownDrain, "shutdown-drain", "GATEWAY_SHUTDOWN_DRAIN", "after SIGTERM, how long to keep serving while readiness says 503, before closing the listener")
	str(&c.LogLevel, "log-level", "GATEWAY_LOG_LEVEL", "debug, info, warn or error")
	b.Bool(&c.BehindTLS, "behind-tls", "GATEWAY_BEHIND_TLS", "a TLS-terminating proxy is in front of http-addr: no warning for a public address")
	dur(&c.HTTPReadTimeout, "http-read-timeout", "GATEWAY_HTTP_READ_TIMEOUT", "bound on reading one request, headers and body; a slower client is cut off")
	limit(&c.RateCreate, "rate-create", "GATEWAY_RATE_CREATE", "default createorder limit per merchant, RATE/s[:BURST]")
	limit(&c.RateQuery, "rate-query", "GATEWAY_RATE_QUERY", "default order query limit per merchant")
	limit(&c.RateReport, "rate-report", "GATEWAY_RATE_REPORT", "default limit per merchant of the read side's ClickHouse queries: action=orders, summary, timeseries and export")
	integer(&c.ClickHouseReads, "clickhouse-reads", "GATEWAY_CLICKHOUSE_READS", "read queries one query node runs on ClickHouse at once, shared fairly between merchants")
	integer(&c.ClickHouseReadQueue, "clickhouse-read-queue", "GATEWAY_CLICKHOUSE_READ_QUEUE", "read queries one merchant may have waiting for ClickHouse on a query node before it gets 429")
	integer(&c.ClickHouseReadPerMerchant, "clickhouse-read-per-merchant", "GATEWAY_CLICKHOUSE_READ_PER_MERCHANT", "of clickhouse-reads, the most one merchant's queries hold at once (0: a quarter, at least 1)")
	integer(&c.ClickHouseReadShared, "clickhouse-read-shared", "GATEWAY_CLICKHOUSE_READ_SHARED", "of clickhouse-read-per-merchant, the most one merchant's queries hold while another merchant reads too (0: half, at least 1)")
	dur(&c.ClickHouseReadWait, "clickhouse-read-wait", "GATEWAY_CLICKHOUSE_READ_WAIT", "longest a read query waits for a ClickHouse slot before it gets 429 (behind its merchant's own queries) or 503")
	limit(&c.RatePages, "rate-pages", "GATEWAY_RATE_PAGES", "payer page limit per client IP")
	limit(&c.RateLoginIP, "rate-login-ip", "GATEWAY_RATE_LOGIN_IP", "payer login attempts per client IP, RATE/m[:BURST]")
	limit(&c.RateLoginAcct, "rate-login-account", "GATEWAY_RATE_LOGIN_ACCOUNT", "payer login attempts per account, RATE/m[:BURST]")
	dur(&c.ConsoleIdleTimeout, "console-idle-timeout", "GATEWAY_CONSOLE_IDLE_TIMEOUT", "a merchant console session unused this long ends")
	dur(&c.ConsoleAbsoluteTimeout, "console-absolute-timeout", "GATEWAY_CONSOLE_ABSOLUTE_TIMEOUT", "a merchant console session ends this long after login, used or not")
	limit(&c.ConsoleLoginLimitIP, "console-login-limit-ip", "GATEWAY_CONSOLE_LOGIN_LIMIT_IP", "merchant console login attempts per client IP, RATE/m[:BURST] (fails closed)")
	limit(&c.ConsoleLoginLimitAccount, "console-login-limit-account", "GATEWAY_CONSOLE_LOGIN_LIMIT_ACCOUNT", "merchant console login attempts per account, RATE/m[:BURST] (fails closed)")
	dur(&c.SessionTTL, "session-ttl", "GATEWAY_SESSION_TTL", "how long a payer's login session lasts")
	str(&c.MethodLimits, "method-limits", "GATEWAY_METHOD_LIMITS", "order amount limits per method where they differ from the built-in ones, METHOD=MIN-MAX with either side empty for no bound, e.g. wallet_a=1.00-50000.00,cryptohost=5.00-")
	dur(&c.PagePollInterval, "page-poll-interval", "GATEWAY_PAGE_POLL_INTERVAL", "how often an open payment page polls its status")
	dur(&c.PagePollTimeout, "page-poll-timeout", "GATEWAY_PAGE_POLL_TIMEOUT", "when an open payment page stops polling and offers to check again")
	str(&c.MethodNames, "method-names", "GATEWAY_METHOD_NAMES", `payer-facing method names by language, JSON or a JSON file's path, e.g. {"en":{"wallet_a":"Alipay"},"zh":{"wallet_a":"支付宝"}}`)
	dur(&c.PageRedirectDelay, "page-redirect-delay", "GATEWAY_PAGE_REDIRECT_DELAY", "from paid to the return_url redirect")
	str(&c.TronURL, "tron-url", "GATEWAY_TRON_URL", "TRON full-node HTTP API base URL for live TRC20 reviews")
	str(&c.TronAPIKey, "tron-api-key", "GATEWAY_TRON_API_KEY", "TRON-PRO-API-KEY for the TRON API")
	str(&c.BSCURL, "bsc-url", "GATEWAY_BSC_URL", "BSC JSON-RPC URL for live BEP20 reviews")
	str(&c.ExchangeURL, "exchange-url", "GATEWAY_EXCHANGE_URL", "exchange API base URL for live exchange reviews")
	str(&c.ExchangeKey, "exchange-key", "GATEWAY_EXCHANGE_KEY", "exchange API key")
	str(&c.ExchangeSecret, "exchange-secret", "GATEWAY_EXCHANGE_SECRET", "exchange API secret (HMAC-SHA256 request signing)")
	dur(&c.ClockOffset, "clock-offset", "GATEWAY_CLOCK_OFFSET", "FAULT TESTING ONLY, leave unset in production: signed duration this process's clock is moved by, e.g. 5m or -5m")
	str(&c.CSRFKey, "csrf-key", "GATEWAY_CSRF_KEY", "key (≥32 bytes) of the payer forms' CSRF tokens; empty: one kept in Redis for every node")
	c.bindErrs = b.errs
}

// readProvidersFile reads the providers file named by the flag or
// GATEWAY_PROVIDERS_FILE: {"<method>": {...}}.
func (c *Config) readProvidersFile(file string) error {
	c.ProvidersFile, c.providersFile = file, nil
	if file == "" {
		return nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("providers file: %w", err)
	}
	out := map[schema.Method]json.RawMessage{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("providers file %s: %w", file, err)
	}
	c.providersFile = out
	return nil
}

// providersFromEnv reads the GATEWAY_PROVIDER_<METHOD> variables, one
// method's JSON each.
func providersFromEnv() map[schema.Method]json.RawMessage {
	out := map[schema.Method]json.RawMessage{}
	for _, m := range schema.AllMethods() {
		if v := os.Getenv("GATEWAY_PROVIDER_" + strings.ToUpper(string(m))); v != "" {
			out[m] = json.RawMessage(v)
		}
	}
	return out
}

func mustLimit(s string) Limit {
	l, err := ParseLimit(s)
	if err != nil {
		panic(err) // a default that does not parse is a programming error
	}
	return l
}

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
	if c.OrderTTL <= 0 || c.OrderRetention <= 0 || c.ReportMaxRange <= 0 || c.ShutdownTimeout <= 0 || c.USDTReview <= 0 || c.SessionTTL <= 0 || c.HTTPReadTimeout <= 0 {
		errs = append(errs, errors.New("order-ttl, order-retention, report-max-range, shutdown-timeout, usdt-review-window, session-ttl and http-read-timeout must be positive"))
	}
	if c.ConsoleIdleTimeout < time.Minute || c.ConsoleAbsoluteTimeout < c.ConsoleIdleTimeout {
		errs = append(errs, errors.New("console-idle-timeout must be at least 1m and console-absolute-timeout at least the idle timeout"))
	}
	if c.ClockOffset < -MaxClockOffset || c.ClockOffset > MaxClockOffset {
		errs = append(errs, fmt.Errorf("clock-offset %s is beyond ±%s", c.ClockOffset, MaxClockOffset))
	}
	return errors.Join(errs...)
}

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

// BindRedisCluster binds -redis-cluster and GATEWAY_REDIS_CLUSTER, for
// serve and every CLI command alike. A value of the variable that is not a
// boolean is an error of the binder, reported before anything connects: a
// mistyped "ture" must not quietly mean one node.
func BindRedisCluster(b *Binder, p *bool) {
	b.Bool(p, "redis-cluster", "GATEWAY_REDIS_CLUSTER", "GATEWAY_REDIS_URL is a Redis Cluster seed")
}

// Has reports whether the process runs role.
func (c *Config) Has(role string) bool { return slices.Contains(c.Roles, role) }

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
