package platform

import (
	"flag"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// A bad GATEWAY_* value must fail Validate, naming the variable, and every
// bad value must be reported at once: an operator fixes them in one go.
func TestBindReportsBadEnvironmentValues(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // substrings of the error; none: valid
	}{
		{"good values", map[string]string{"GATEWAY_ORDER_TTL": "45m", "GATEWAY_REDIS_CLUSTER": "true"}, nil},
		{"bad duration", map[string]string{"GATEWAY_ORDER_TTL": "45 minutes"}, []string{"GATEWAY_ORDER_TTL"}},
		{"bad cluster flag", map[string]string{"GATEWAY_REDIS_CLUSTER": "ture"}, []string{"GATEWAY_REDIS_CLUSTER"}},
		{"zero ClickHouse reads", map[string]string{"GATEWAY_CLICKHOUSE_READS": "0"}, []string{"clickhouse-reads"}},
		{"a collector target under 25", map[string]string{"GATEWAY_GC_PERCENT": "10"}, []string{"gc-percent"}},
		{"a memory limit too small to run in", map[string]string{"GATEWAY_MEMORY_LIMIT": "16"}, []string{"memory-limit"}},
		{"a negative memory limit", map[string]string{"GATEWAY_MEMORY_LIMIT": "-1"}, []string{"memory-limit"}},
		{"good values, no memory limit", map[string]string{"GATEWAY_ORDER_TTL": "45m", "GATEWAY_REDIS_CLUSTER": "true", "GATEWAY_MEMORY_LIMIT": "0"}, nil},
		{"negative read queue", map[string]string{"GATEWAY_CLICKHOUSE_READ_QUEUE": "-1"}, []string{"clickhouse-read-queue"}},
		{"bad read queue", map[string]string{"GATEWAY_CLICKHOUSE_READ_QUEUE": "many"}, []string{"GATEWAY_CLICKHOUSE_READ_QUEUE"}},
		{"read cap over the reads", map[string]string{"GATEWAY_CLICKHOUSE_READS": "4", "GATEWAY_CLICKHOUSE_READ_PER_MERCHANT": "5"}, []string{"clickhouse-read-per-merchant"}},
		{"negative read cap", map[string]string{"GATEWAY_CLICKHOUSE_READ_PER_MERCHANT": "-1"}, []string{"clickhouse-read-per-merchant"}},
		{"zero read wait", map[string]string{"GATEWAY_CLICKHOUSE_READ_WAIT": "0s"}, []string{"clickhouse-read-wait"}},
		{"bad read wait", map[string]string{"GATEWAY_CLICKHOUSE_READ_WAIT": "soon"}, []string{"GATEWAY_CLICKHOUSE_READ_WAIT"}},
		{"bad report limit", map[string]string{"GATEWAY_RATE_REPORT": "lots"}, []string{"lots"}},
		{"no channels per method", map[string]string{"GATEWAY_CHANNELS_MAX": "0"}, []string{"channels-max 0"}},
		{"too many channels per method", map[string]string{"GATEWAY_CHANNELS_MAX": "101"}, []string{"channels-max 101"}},
		{"sandbox channel with markup", map[string]string{"GATEWAY_SANDBOX_CHANNELS": "default,<b>"}, []string{`"<b>"`}},
		{"sandbox channel twice", map[string]string{"GATEWAY_SANDBOX_CHANNELS": "default,alt,alt"}, []string{`"alt" twice`}},
		{"sandbox channels without default", map[string]string{"GATEWAY_SANDBOX_CHANNELS": "alt"}, []string{"must include default"}},
		{"more sandbox channels than the bound", map[string]string{"GATEWAY_SANDBOX_CHANNELS": "default,a,b", "GATEWAY_CHANNELS_MAX": "2"}, []string{"more than channels-max 2"}},
		{"unknown payout rail", map[string]string{"GATEWAY_PAYOUT_RAIL": "bank"}, []string{`payout-rail "bank"`}},
		{"exchange payout rail without the exchange", map[string]string{"GATEWAY_PAYOUT_RAIL": "exchange", "GATEWAY_EXCHANGE_URL": "https://api.example"},
			[]string{"payout-rail exchange needs"}},
		{"all at once", map[string]string{"GATEWAY_SESSION_TTL": "x", "GATEWAY_REDIS_CLUSTER": "maybe", "GATEWAY_ROLES": "cook"},
			[]string{"GATEWAY_SESSION_TTL", "GATEWAY_REDIS_CLUSTER", `unknown role "cook"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg := Defaults()
			cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
			err := cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if cfg.OrderTTL != 45*time.Minute || !cfg.RedisCluster {
					t.Fatalf("values not applied: ttl %s cluster %v", cfg.OrderTTL, cfg.RedisCluster)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate accepted a bad environment value")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}

func TestConsumerConfigReportsEveryBadValue(t *testing.T) {
	c := ConsumerConfig{Count: -1, Block: -time.Second, Streams: []string{}}
	err := c.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, w := range []string{"group is empty", "no stream", "count -1", "block"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// TestMetricsAreOnALoopbackOpsListenerByDefault: /metrics is served only
// on the operations listener, so that listener always exists, and unless
// GATEWAY_OPS_ADDR says otherwise it is on loopback (a security review
// found /metrics on the public listener by default).
func TestMetricsAreOnALoopbackOpsListenerByDefault(t *testing.T) {
	cfg := Defaults()
	cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(cfg.OpsAddr)
	if ip, perr := netip.ParseAddr(host); err != nil || perr != nil || !ip.IsLoopback() {
		t.Fatalf("default ops address %q is not a loopback address", cfg.OpsAddr)
	}
	t.Setenv("GATEWAY_OPS_ADDR", "")
	cfg = Defaults()
	cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "ops-addr") {
		t.Fatalf("an empty GATEWAY_OPS_ADDR: %v, want a refusal naming ops-addr", err)
	}
}

// TestAdminListenerIsLoopbackByDefault: the operator console has its own
// listener, on loopback unless GATEWAY_ADMIN_ADDR says otherwise; an empty
// value or the public listener's address is refused at start.
func TestAdminListenerIsLoopbackByDefault(t *testing.T) {
	cfg := Defaults()
	cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	host, _, err := net.SplitHostPort(cfg.AdminAddr)
	if ip, perr := netip.ParseAddr(host); err != nil || perr != nil || !ip.IsLoopback() {
		t.Fatalf("default admin address %q is not a loopback address", cfg.AdminAddr)
	}
	for name, env := range map[string][]string{
		"empty":          {"GATEWAY_ADMIN_ADDR", ""},
		"the public one": {"GATEWAY_ADMIN_ADDR", "127.0.0.1:8080", "GATEWAY_HTTP_ADDR", "127.0.0.1:8080"},
	} {
		t.Run(name, func(t *testing.T) {
			for i := 0; i < len(env); i += 2 {
				t.Setenv(env[i], env[i+1])
			}
			cfg := Defaults()
			cfg.Bind(flag.NewFlagSet("test", flag.ContinueOnError))
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "admin-addr") {
				t.Fatalf("%v: %v, want a refusal naming admin-addr", env, err)
			}
		})
	}
}
