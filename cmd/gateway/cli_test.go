package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// TestHelpExitsZero: asking the binary for help is not a failure, and the
// help lists every subcommand a newcomer can run.
func TestHelpExitsZero(t *testing.T) {
	bin := gatewayBinary(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"gateway", []string{"--help"}, []string{"serve", "migrate", "merchant", "webhook", "order", "fx", "usdt", "limits", "rotate-query-key"}},
		{"serve", []string{"serve", "--help"}, []string{"-http-addr", "-ops-addr"}},
		{"merchant", []string{"merchant", "--help"}, []string{"create", "list", "show", "disable", "enable", "set-callback",
			"rotate-key", "rotate-query-key", "credit", "limits", "method-limits", "set-password"}},
		{"usdt", []string{"usdt", "-h"}, []string{"config", "reviews", "approve", "reject"}},
		{"webhook", []string{"webhook", "--help"}, []string{"log", "resend"}},
		{"order", []string{"order", "--help"}, []string{"show"}},
		{"fx", []string{"fx", "--help"}, []string{"set", "list"}},
		{"migrate", []string{"migrate", "--help"}, []string{"-clickhouse-dsn"}},
		{"channel", []string{"channel", "--help"}, []string{"list", "show", "set", "enable", "disable", "maintenance", "mode", "pin", "keywords", "breaker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command(bin, tt.args...).CombinedOutput()
			if err != nil {
				t.Fatalf("gateway %v: %v\n%s", tt.args, err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("gateway %v does not mention %q:\n%s", tt.args, w, out)
				}
			}
		})
	}
}

// TestSubcommandHelp: each subcommand's --help lists its own flags and
// none of another subcommand's, and exits 0.
func TestSubcommandHelp(t *testing.T) {
	bin := gatewayBinary(t)
	tests := []struct {
		args     []string
		has, not []string
	}{
		{[]string{"merchant", "disable", "--help"}, []string{"merchant disable APPID", "-json", "-redis-url"}, []string{"-grace", "-currency", "-min", "-create", "-name", "-sandbox"}},
		{[]string{"merchant", "create", "-h"}, []string{"-name", "-callback", "-sandbox"}, []string{"-grace", "-currency", "-clear"}},
		{[]string{"merchant", "credit", "--help"}, []string{"-currency", "-amount"}, []string{"-grace", "-name", "-min"}},
		{[]string{"merchant", "rotate-key", "--help"}, []string{"-grace"}, []string{"-currency", "-name"}},
		{[]string{"merchant", "method-limits", "--help"}, []string{"-min", "-max", "-clear"}, []string{"-grace", "-create"}},
		{[]string{"merchant", "limits", "--help"}, []string{"-create", "-query", "-report"}, []string{"-min", "-grace"}},
		{[]string{"fx", "set", "--help"}, []string{"fx set BASE QUOTE RATE", "-by"}, []string{"-history"}},
		{[]string{"fx", "list", "--help"}, []string{"-history"}, []string{"-by"}},
		{[]string{"webhook", "log", "--help"}, []string{"-json"}, []string{"-wait"}},
		{[]string{"webhook", "resend", "--help"}, []string{"-wait"}, nil},
		{[]string{"usdt", "approve", "--help"}, []string{"-note", "-by"}, []string{"-state", "-reason", "-address", "-mode"}},
		{[]string{"usdt", "reviews", "--help"}, []string{"-state"}, []string{"-note", "-by", "-address"}},
		{[]string{"usdt", "config", "show", "--help"}, []string{"-json"}, []string{"-address", "-mode", "-sandbox", "-state"}},
		{[]string{"usdt", "config", "set", "--help"}, []string{"-address", "-mode", "-sandbox"}, []string{"-state", "-note"}},
		{[]string{"demo", "seed", "--help"}, []string{"-dir", "-json"}, []string{"-name"}},
		{[]string{"demo", "receiver", "--help"}, []string{"-addr", "-merchant-file", "-api-key", "-webhook-secret"}, []string{"-dir", "-json"}},
		{[]string{"channel", "set", "--help"}, []string{"-weight", "-daily-amount", "-cost", "-by"}, []string{"-reason"}},
		{[]string{"channel", "breaker", "--help"}, []string{"-reason", "-by"}, []string{"-weight", "-cost"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, err := exec.Command(bin, tt.args...).CombinedOutput()
			if err != nil {
				t.Fatalf("gateway %v: %v\n%s", tt.args, err, out)
			}
			for _, w := range tt.has {
				if !strings.Contains(string(out), w) {
					t.Errorf("does not mention %q:\n%s", w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(string(out), "  "+w+" ") || strings.Contains(string(out), "  "+w+"\n") {
					t.Errorf("lists another subcommand's flag %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestFxSetActor: fx set records who set a rate: --by, else the OS user;
// an empty --by is refused and sets nothing.
func TestFxSetActor(t *testing.T) {
	e := newE2ERedis(t)
	var byFlag, byOS struct{ By string }
	e.cli(&byFlag, "fx", "set", "USD", "EUR", "0.91", "--by", "alice", "--json")
	e.cli(&byOS, "fx", "set", "USD", "EUR", "0.92", "--json")
	if byFlag.By != "cli:alice" || byOS.By != "cli:"+osUserName() || osUserName() == "" {
		t.Fatalf("recorded by %q and %q (OS user %q)", byFlag.By, byOS.By, osUserName())
	}
	cmd := exec.Command(e.bin, "fx", "set", "USD", "EUR", "0.93", "--by", " ")
	cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--by NAME") {
		t.Fatalf("an empty --by: %v\n%s", err, out)
	}
	var list struct {
		Current []struct{ Base, Quote, Rate, By string }
	}
	e.cli(&list, "fx", "list", "--json")
	for _, c := range list.Current {
		if c.Base == "USD" && c.Quote == "EUR" && c.Rate != "0.92" {
			t.Fatalf("the refused set changed the rate: %+v", c)
		}
	}
	tests := []struct {
		name, by string
		given    bool
		os, want string
	}{
		{"--by wins", "bob", true, "root", "cli:bob"},
		{"OS user", "", false, "carol", "cli:carol"},
		{"no OS user", "", false, "", ""},
		{"blank --by", "  ", true, "root", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cliActor(tt.by, tt.given, func() string { return tt.os })
			if got != tt.want || (tt.want == "") != (err != nil) {
				t.Fatalf("cliActor: %q %v, want %q", got, err, tt.want)
			}
		})
	}
}

// TestMerchantPrintouts: limits are printed as people write them, the API
// and query keys only by the commands that make them and show (never by
// list, text or JSON, nor by a change), credit takes only the currencies
// balance payments use, and rotate-query-key replaces the query key.
func TestMerchantPrintouts(t *testing.T) {
	e := newE2ERedis(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--json")
	text := func(args ...string) (string, error) {
		cmd := exec.Command(e.bin, args...)
		cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	tests := []struct {
		name     string
		args     []string
		fails    bool
		has, not []string
	}{
		{"limits", []string{"merchant", "limits", shop.AppID, "--create", "5/s:10"}, false, []string{"5/s burst 10"}, []string{shop.APIKey, "PerSecond", "map["}},
		{"limits --report", []string{"merchant", "limits", shop.AppID, "--report", "3/s:6"}, false, []string{`reportLimit`, "3/s burst 6", "5/s burst 10"}, []string{shop.APIKey}},
		{"limits --json", []string{"merchant", "limits", shop.AppID, "--json"}, false, []string{`"PerSecond": 5`, `"Burst": 10`}, []string{shop.APIKey}},
		{"show", []string{"merchant", "show", shop.AppID}, false, []string{"5/s burst 10", shop.APIKey}, []string{"PerSecond"}},
		{"disable", []string{"merchant", "disable", shop.AppID}, false, []string{"disabled"}, []string{shop.APIKey, "apiKey"}},
		{"enable --json", []string{"merchant", "enable", shop.AppID, "--json"}, false, []string{shop.AppID}, []string{shop.APIKey, "apiKey"}},
		{"credit BDT", []string{"merchant", "credit", shop.AppID, "--currency", "BDT", "--amount", "1.00"}, true, []string{"CNY and USD"}, nil},
		{"credit CNY", []string{"merchant", "credit", shop.AppID, "--currency", "CNY", "--amount", "1.00"}, false, []string{"1.00"}, nil},
		{"show: tables, no Go maps", []string{"merchant", "show", shop.AppID}, false,
			[]string{"BALANCES", "CURRENCY  BALANCE", "CNY       1.00", "METHODS", "METHOD ", "usdt_direct  10.00"}, []string{"map[", "[usdt_direct"}},
		{"show --json keeps structure", []string{"merchant", "show", shop.AppID, "--json"}, false,
			[]string{`"balances": {`, `"CNY": "1.00"`, `"methodLimits": {`}, []string{"map["}},
		{"list is a table", []string{"merchant", "list"}, false, []string{"APPID", shop.AppID}, []string{"map[", shop.APIKey, shop.QueryKey}},
		{"list --json prints no credential", []string{"merchant", "list", "--json"}, false, []string{`"appid": "` + shop.AppID}, []string{shop.APIKey, shop.QueryKey, "apiKey", "queryKey", "whsec_"}},
		{"show prints both keys", []string{"merchant", "show", shop.AppID, "--json"}, false, []string{shop.APIKey, shop.QueryKey}, []string{"whsec_"}},
		{"method-limits prints no credential", []string{"merchant", "method-limits", shop.AppID, "wallet_a", "--max", "900.00", "--json"}, false, []string{`"methodLimits"`}, []string{shop.APIKey, shop.QueryKey}},
		{"limits prints no query key", []string{"merchant", "limits", shop.AppID, "--json"}, false, []string{shop.AppID}, []string{shop.QueryKey}},
		{"set-name prints no credential", []string{"merchant", "set-name", shop.AppID, "Shop two"}, false, []string{"Shop two"}, []string{shop.APIKey, shop.QueryKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := text(tt.args...)
			if (err != nil) != tt.fails {
				t.Fatalf("gateway %v: err %v, want failure %v\n%s", tt.args, err, tt.fails, out)
			}
			for _, w := range tt.has {
				if !strings.Contains(out, w) {
					t.Errorf("gateway %v does not print %q:\n%s", tt.args, w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out, w) {
					t.Errorf("gateway %v prints %q:\n%s", tt.args, w, out)
				}
			}
		})
	}
	var rotated account
	e.cli(&rotated, "merchant", "rotate-query-key", shop.AppID, "--json")
	if rotated.QueryKey == "" || rotated.QueryKey == shop.QueryKey || rotated.APIKey != "" {
		t.Fatalf("rotate-query-key: %+v (was %s)", rotated, shop.QueryKey)
	}
}

// TestLogDurationsReadable: a duration attribute is logged as "1.5s".
func TestLogDurationsReadable(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, "info").Info("x", "took", 1500*time.Millisecond, slog.Group("g", "wait", 2*time.Minute))
	var rec struct {
		Took string `json:"took"`
		G    struct {
			Wait string `json:"wait"`
		} `json:"g"`
	}
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec.Took != "1.5s" || rec.G.Wait != "2m0s" {
		t.Fatalf("logged %s (%v)", buf.Bytes(), err)
	}
}

// TestOpsListener: with GATEWAY_OPS_ADDR the metrics are served there and
// not on the merchant-facing listener.
func TestOpsListener(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	s := e.serve("GATEWAY_OPS_ADDR=127.0.0.1:0")
	if s.ops == "" {
		t.Fatalf("no ops_addr in the serving line\n%s", s.logs)
	}
	get := func(u string) int {
		t.Helper()
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		url  string
		want int
	}{{s.ops + "/metrics", 200}, {s.ops + "/healthz", 200}, {s.base + "/metrics", 404}, {s.base + "/healthz", 200}, {s.ops + "/api/order", 404}} {
		if got := get(c.url); got != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, got, c.want)
		}
	}
}

// TestCLICallbackRule: merchant set-callback and create --callback refuse a
// loopback URL unless GATEWAY_WEBHOOK_ALLOW_PRIVATE, as the merchant console
// does (one rule, merchant.ValidateCallback), and say why.
func TestCLICallbackRule(t *testing.T) {
	e := newE2ERedis(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--json")
	tests := []struct {
		name string
		env  string
		args []string
		ok   bool
	}{
		{"set-callback loopback refused", "false", []string{"merchant", "set-callback", shop.AppID, "http://127.0.0.1/x"}, false},
		{"create with a loopback callback refused", "false", []string{"merchant", "create", "--name", "two", "--callback", "http://127.0.0.1/x"}, false},
		{"set-callback loopback when private is allowed", "true", []string{"merchant", "set-callback", shop.AppID, "http://127.0.0.1/x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := e.exec([]string{"GATEWAY_WEBHOOK_ALLOW_PRIVATE=" + tt.env}, tt.args...)
			if (err == nil) != tt.ok {
				t.Fatalf("gateway %v: %v, want ok %v\n%s%s", tt.args, err, tt.ok, out, stderr)
			}
			if !tt.ok && !strings.Contains(stderr, "non-public address (loopback)") {
				t.Errorf("gateway %v does not say why: %s", tt.args, stderr)
			}
		})
	}
}

// TestFxSetForce: fx set refuses a rate more than GATEWAY_FX_MAX_DEVIATION
// from the current one, up or down, and says how far; --force sets it, and
// the audit log flags it. The variable moves the bound.
func TestFxSetForce(t *testing.T) {
	e := newE2ERedis(t)
	e.cli(nil, "fx", "set", "USD", "BDT", "121.5")
	tests := []struct {
		name, env string
		args      []string
		ok        bool
		says      string
		rate      string // the rate afterwards
	}{
		{"ten times, refused", "", []string{"1215"}, false, "900.0% above the current 121.5", "121.5"},
		{"a tenth, refused", "", []string{"12.15"}, false, "90.0% below the current 121.5", "121.5"},
		{"within 10%", "", []string{"130"}, true, "", "130"},
		{"within a wider bound", "GATEWAY_FX_MAX_DEVIATION=1000", []string{"1200"}, true, "", "1200"},
		{"ten times, --force", "", []string{"12000", "--force"}, true, "", "12000"},
		{"a bad bound", "GATEWAY_FX_MAX_DEVIATION=0", []string{"12001"}, false, "fx-max-deviation 0", "12000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, err := e.exec([]string{tt.env}, append([]string{"fx", "set", "USD", "BDT"}, tt.args...)...)
			if (err == nil) != tt.ok || !strings.Contains(stderr, tt.says) {
				t.Fatalf("fx set %v: %v, want ok %v saying %q\n%s%s", tt.args, err, tt.ok, tt.says, out, stderr)
			}
			var list struct {
				Current []struct{ Base, Quote, Rate string }
			}
			e.cli(&list, "fx", "list", "--json")
			for _, c := range list.Current {
				if c.Base == "USD" && c.Quote == "BDT" && c.Rate != tt.rate {
					t.Fatalf("USD/BDT is %s, want %s", c.Rate, tt.rate)
				}
			}
		})
	}
	rdb := redis.NewClient(mustRedisOptions(t, e.redisURL))
	defer rdb.Close()
	rows, err := audit.Read(context.Background(), rdb, schema.AuditKey(schema.AuditTag), 100)
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, r := range rows {
		if r.Action == "fx.set" && r.Details["deviation_confirmed"] != "" {
			flagged++
			if r.Details["rate"] != "12000" || r.Details["deviation_confirmed"] != "above 900.0%" || r.Details["old_rate"] != "1200" {
				t.Errorf("flagged entry %v", r.Details)
			}
		}
	}
	if flagged != 1 {
		t.Fatalf("%d flagged fx.set entries, want the forced one", flagged)
	}
}

func mustRedisOptions(t *testing.T, url string) *redis.Options {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
