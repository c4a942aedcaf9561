package platform

import (
	"encoding/json"
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
	RoleLedger     = "ledger"   // journal postings off the event streams, settlement (package ledger)
	RolePayouts    = "payouts"  // sends approved USDT payouts through PayoutRail (package payout)
)

// AllRoles is the default: one process doing everything.
var AllRoles = []string{RoleCommand, RoleQuery, RoleProjector, RoleDispatcher, RoleReviewer, RoleLedger, RolePayouts}

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
	// ChannelBudget is how long one initialisation may spend trying a
	// method's channels in turn (GATEWAY_CHANNEL_BUDGET).
	ChannelBudget time.Duration
	// FXMaxDeviation is how far, in percent of a pair's current rate, an
	// operator may move it without confirming (GATEWAY_FX_MAX_DEVIATION);
	// operator.SettingsConfig checks it (serve's settings, at start).
	FXMaxDeviation int
	// AdjustApprovalAbove: a manual balance adjustment larger than this
	// (either sign) waits for a second admin's approval
	// (GATEWAY_ADJUST_APPROVAL_ABOVE; operator.MoneyConfig).
	AdjustApprovalAbove schema.Amount
	// Payouts are the payouts' policy (GATEWAY_PAYOUT_*).
	Payouts PayoutSettings
	// ProvidersFile is the JSON file of live provider configurations by
	// method; it is read when set (flag or GATEWAY_PROVIDERS_FILE), and the
	// GATEWAY_PROVIDER_<METHOD> variables are read at Bind: Providers
	// merges the two, so no other code reads those variables.
	ProvidersFile   string
	providersFile   map[schema.Method]json.RawMessage
	providersEnv    map[schema.Method]json.RawMessage
	ProviderTimeout time.Duration
	// ChannelsMax bounds the channels (provider accounts) of one method,
	// live or sandbox (GATEWAY_CHANNELS_MAX): channel ids are metric
	// labels, so their number must stay bounded.
	ChannelsMax int
	// SandboxChannels are the sandbox's channel ids of every family
	// (GATEWAY_SANDBOX_CHANNELS), each with its own simulator; "default"
	// is always among them (orders from before channels are on it).
	SandboxChannels []string
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
	// GCPercent is the Go collector's target (GOGC): the heap may grow this
	// many percent over the live heap before a collection. The gateway's
	// live heap is small (about 20 MiB) and its garbage is per request, so
	// each collection is a few milliseconds of mark work whose assists and
	// stolen processor land on the requests in flight: the fewer there
	// are, the lower the p99 (BENCHMARKS.md, 400 against 1600). GOGC in the
	// environment wins, as Go's own setting.
	GCPercent int
	// MemoryLimitMiB is the Go runtime's soft memory limit (GOMEMLIMIT),
	// in MiB; 0: none. It bounds what the large GCPercent lets the heap
	// grow to should the live heap grow (collections come sooner near the
	// limit), so a process is sized by it, not by the live heap times the
	// target. GOMEMLIMIT in the environment wins.
	MemoryLimitMiB int
	LogLevel       string
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
	// EpayTypes maps the epay door's type words to method codes,
	// "word=method,...": the operator's words, so no brand is in our code.
	EpayTypes string
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
	// PayoutRail is where the payouts role sends USDT: "none" (it sends
	// nothing: payouts wait), "sandbox" (the simulated chains, and the
	// simulated exchange for ERC20), "exchange" (withdrawals from the live
	// exchange account of ExchangeURL). Never a default that moves money.
	PayoutRail string
	// PayoutLease is how long a payout sender holds a payout it sends: a
	// sender killed mid-send leaves it this long before another looks its
	// transfer up. Longer than any rail call.
	PayoutLease time.Duration
	// ClockOffset moves the clock this process decides things by (see
	// Clock): a fault-testing knob for the chaos suite's skewed process.
	// A production deployment leaves it unset; serve warns when it is not 0.
	ClockOffset time.Duration
	// ClaimIdle is how long an event a process read and never acknowledged
	// (it was killed, or Redis failed under it) waits before another
	// process of the same role takes it over, for every consumer group of
	// the projector, dispatcher and ledger roles; 0 keeps each one's
	// default (30 s). Shorter recovers a killed process's work sooner;
	// longer than a healthy process ever holds an event, or two processes
	// do the same work (harmless, but wasted).
	ClaimIdle time.Duration
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
