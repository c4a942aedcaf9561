package platform

import (
	"flag"
	"strings"

	"github.com/paygate/gateway/schema"
)

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
	integer(&c.GCPercent, "gc-percent", "GATEWAY_GC_PERCENT", "the Go collector's target (as GOGC; GOGC in the environment wins): more means fewer collections, a lower p99 and more memory")
	integer(&c.MemoryLimitMiB, "memory-limit", "GATEWAY_MEMORY_LIMIT", "the Go runtime's soft memory limit in MiB (as GOMEMLIMIT, which wins): collections come sooner near it; 0: none")
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
	list(&c.Roles, "roles", "GATEWAY_ROLES", "roles to run: command,query,projector,dispatcher,reviewer,ledger")
	list(&c.TrustedProxies, "trusted-proxies", "GATEWAY_TRUSTED_PROXIES", "CIDRs whose X-Forwarded-For, -Proto and -Host are believed")
	str(&c.USDTRates, "usdt-rates", "GATEWAY_USDT_RATES", "initial units of each currency per 1 USDT, e.g. USD=1,CNY=7.2 (then `gateway fx set USDT CNY 7.2`)")
	str(&c.USDTNetworks, "usdt-networks", "GATEWAY_USDT_NETWORKS", "on a deployment's first start, seeds our receiving address on each network live usdt_direct payers may send on, e.g. TRC20=T...,BEP20=0x... (then `gateway usdt config`)")
	str(&c.USDTSandboxNets, "usdt-sandbox-networks", "GATEWAY_USDT_SANDBOX_NETWORKS", "the same for sandbox orders; none configured: the networks' null addresses")
	dur(&c.ChannelBudget, "channel-budget", "GATEWAY_CHANNEL_BUDGET", "how long one payment's initialisation may spend trying its method's channels in turn (failover); each attempt gets at most its share of what is left")
	dur(&c.USDTReview, "usdt-review-window", "GATEWAY_USDT_REVIEW_WINDOW", "how long a usdt_direct order whose payer submitted a transaction hash stays open for its review before it expires")
	integer(&c.FXMaxDeviation, "fx-max-deviation", "GATEWAY_FX_MAX_DEVIATION", "how far, in percent of a pair's current rate, an FX rate may move without the operator confirming (console) or --force (CLI)")
	b.Func("adjust-approval-above", "GATEWAY_ADJUST_APPROVAL_ABOVE", "a manual balance adjustment larger than this amount (either sign) waits for a second admin's approval",
		func(s string) error {
			a, err := schema.ParseAmount(s)
			if err == nil {
				c.AdjustApprovalAbove = a
			}
			return err
		}, func() string { return c.AdjustApprovalAbove.String() })
	c.Payouts.bind(b)
	b.Func("providers-file", "GATEWAY_PROVIDERS_FILE", "JSON file of live provider configurations by method; GATEWAY_PROVIDER_<METHOD> variables override it",
		c.readProvidersFile, func() string { return c.ProvidersFile })
	c.providersEnv = providersFromEnv()
	integer(&c.ChannelsMax, "channels-max", "GATEWAY_CHANNELS_MAX", "most channels (provider accounts) one method may have, live or sandbox: channel ids are metric labels")
	list(&c.SandboxChannels, "sandbox-channels", "GATEWAY_SANDBOX_CHANNELS", "the sandbox's channel ids of every family, each with its own simulator; must include default")
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
	str(&c.EpayTypes, "epay-types", "GATEWAY_EPAY_TYPES", "the epay door's type words and the method each stands for, WORD=METHOD,..., e.g. t1=wallet_a,t2=wallet_b; an unmapped word is refused, and submit.php without a type lets the payer choose")
	dur(&c.PagePollInterval, "page-poll-interval", "GATEWAY_PAGE_POLL_INTERVAL", "how often an open payment page polls its status")
	dur(&c.PagePollTimeout, "page-poll-timeout", "GATEWAY_PAGE_POLL_TIMEOUT", "when an open payment page stops polling and offers to check again")
	str(&c.MethodNames, "method-names", "GATEWAY_METHOD_NAMES", `payer-facing method names by language, JSON or a JSON file's path, e.g. {"en":{"wallet_a":"Alipay"},"zh":{"wallet_a":"支付宝"}}`)
	dur(&c.PageRedirectDelay, "page-redirect-delay", "GATEWAY_PAGE_REDIRECT_DELAY", "from paid to the return_url redirect")
	str(&c.TronURL, "tron-url", "GATEWAY_TRON_URL", "TRON full-node HTTP API base URL for live TRC20 reviews")
	str(&c.TronAPIKey, "tron-api-key", "GATEWAY_TRON_API_KEY", "TRON-PRO-API-KEY for the TRON API")
	str(&c.BSCURL, "bsc-url", "GATEWAY_BSC_URL", "BSC JSON-RPC URL for live BEP20 reviews")
	str(&c.ExchangeURL, "exchange-url", "GATEWAY_EXCHANGE_URL", "exchange API base URL for live exchange reviews")
	str(&c.PayoutRail, "payout-rail", "GATEWAY_PAYOUT_RAIL", "where the payouts role sends USDT payouts: none (they wait for a rail), sandbox (the simulated chains and exchange) or exchange (withdrawals from the live exchange account)")
	dur(&c.PayoutLease, "payout-lease", "GATEWAY_PAYOUT_LEASE", "how long a payout sender holds a payout it sends before another may look its transfer up and end it (at least 5s)")
	str(&c.ExchangeKey, "exchange-key", "GATEWAY_EXCHANGE_KEY", "exchange API key")
	str(&c.ExchangeSecret, "exchange-secret", "GATEWAY_EXCHANGE_SECRET", "exchange API secret (HMAC-SHA256 request signing)")
	dur(&c.ClockOffset, "clock-offset", "GATEWAY_CLOCK_OFFSET", "FAULT TESTING ONLY, leave unset in production: signed duration this process's clock is moved by, e.g. 5m or -5m")
	dur(&c.ClaimIdle, "claim-idle", "GATEWAY_CLAIM_IDLE", "how long an event a killed process read and never acknowledged waits before another process of its role takes it over (projector, dispatcher, ledger); 0: 30s")
	str(&c.CSRFKey, "csrf-key", "GATEWAY_CSRF_KEY", "key (≥32 bytes) of the payer forms' CSRF tokens; empty: one kept in Redis for every node")
	c.bindErrs = b.errs
}

// BindRedisCluster binds -redis-cluster and GATEWAY_REDIS_CLUSTER, for
// serve and every CLI command alike. A value of the variable that is not a
// boolean is an error of the binder, reported before anything connects: a
// mistyped "ture" must not quietly mean one node.
func BindRedisCluster(b *Binder, p *bool) {
	b.Bool(p, "redis-cluster", "GATEWAY_REDIS_CLUSTER", "GATEWAY_REDIS_URL is a Redis Cluster seed")
}
