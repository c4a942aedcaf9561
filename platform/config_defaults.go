package platform

import (
	"slices"
	"time"
)

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
		PayoutRail:          "none",
		PayoutLease:         time.Minute,
		ChannelBudget:       5 * time.Second,
		FXMaxDeviation:      10,
		AdjustApprovalAbove: 100000,
		Payouts:             PayoutDefaults(),
		OrderTTL:            30 * time.Minute,
		OrderRetention:      7 * 24 * time.Hour,
		ReportMaxRange:      366 * 24 * time.Hour,
		ShutdownTimeout:     20 * time.Second,
		ShutdownDrain:       time.Second,
		ProviderTimeout:     10 * time.Second,
		ChannelsMax:         DefaultChannelsMax,
		SandboxChannels:     []string{"default", "alt"},
		LogLevel:            "info",
		GCPercent:           1600,
		MemoryLimitMiB:      1024,
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

func mustLimit(s string) Limit {
	l, err := ParseLimit(s)
	if err != nil {
		panic(err) // a default that does not parse is a programming error
	}
	return l
}
