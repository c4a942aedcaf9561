package main

import (
	"flag"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestArgsCheckedBeforeConnecting: every subcommand given missing or bad
// arguments answers with what it wants, with Redis and ClickHouse out of
// reach, and never gets as far as the driver (whose log lines would be all
// an operator saw).
func TestArgsCheckedBeforeConnecting(t *testing.T) {
	bin := gatewayBinary(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"merchant show without APPID", []string{"merchant", "show"}, "merchant show: want APPID, got 0"},
		{"merchant set-callback without URL", []string{"merchant", "set-callback", "1001"}, "merchant set-callback: want APPID URL, got 1"},
		{"merchant list with an argument", []string{"merchant", "list", "x"}, "merchant list: want no arguments, got 1"},
		{"merchant method-limits without METHOD", []string{"merchant", "method-limits", "1001"}, "want APPID METHOD"},
		{"merchant credit with a bad amount", []string{"merchant", "credit", "1001", "--currency", "USD", "--amount", "ten"}, "merchant credit: amount"},
		{"merchant credit with a negative amount", []string{"merchant", "credit", "1001", "--currency", "USD", "--amount", "-5"}, "merchant credit: amount"},
		{"merchant set-password without a password", []string{"merchant", "set-password", "1001"}, "give the password as one line"},
		{"merchant rotate-key without APPID", []string{"merchant", "rotate-key", "--grace", "1h"}, "merchant rotate-key: want APPID"},
		{"fx set without RATE", []string{"fx", "set", "USD", "BDT"}, "fx set: want BASE QUOTE RATE"},
		{"fx set with a negative rate", []string{"fx", "set", "USD", "BDT", "-5"}, `rate "-5": want a positive decimal`},
		{"fx set with a negative rate after --", []string{"fx", "set", "--by", "ann", "--", "USD", "BDT", "-5"}, `rate "-5": want a positive decimal`},
		{"fx set with a bad pair", []string{"fx", "set", "USD", "usd", "1"}, "is not a pair of currency codes"},
		{"fx list with an argument", []string{"fx", "list", "USD"}, "fx list: takes no arguments"},
		{"ledger balances without APPID", []string{"ledger", "balances"}, "ledger balances: want APPID"},
		{"ledger verify with an argument", []string{"ledger", "verify", "x"}, "ledger verify: want [--json], got 1"},
		{"webhook log without PAYMENTID", []string{"webhook", "log"}, "webhook log: want a PAYMENTID"},
		{"webhook resend with three", []string{"webhook", "resend", "a", "b", "c"}, "webhook resend: want a PAYMENTID"},
		{"order show without PAYMENTID", []string{"order", "show"}, "order show: want a PAYMENTID"},
		{"order show with a bad id", []string{"order", "show", "nope"}, `"nope" is not a payment id`},
		{"usdt config set without NETWORK", []string{"usdt", "config", "set"}, "usdt config set: wrong arguments"},
		{"usdt config unknown", []string{"usdt", "config", "drop", "TRC20"}, "usdt config drop: wrong arguments"},
		{"usdt approve without PAYMENTID", []string{"usdt", "approve", "--note", "x"}, "usdt approve: wrong arguments"},
		{"usdt approve without --note", []string{"usdt", "approve", "P1"}, "--note is required"},
		{"usdt reject without --reason", []string{"usdt", "reject", "P1"}, "--reason is required"},
		{"console-user add without EMAIL", []string{"console-user", "add", "1001"}, "console-user add: wrong arguments"},
		{"console-user add with a bad role", []string{"console-user", "add", "1001", "a@shop.test", "--role", "boss"}, "--role must be owner"},
		{"exceptions handle without ID", []string{"exceptions", "handle", "mismatch"}, "exceptions handle: want KIND ID"},
		{"operator add with a bad role", []string{"operator", "add", "a@ops.test", "--role", "boss"}, "--role must be admin"},
		{"operator disable without EMAIL", []string{"operator", "disable"}, "operator disable: want EMAIL"},
		{"demo seed with an argument", []string{"demo", "seed", "x"}, "demo seed: takes no arguments"},
		{"migrate with an argument", []string{"migrate", "x"}, "migrate takes flags only"},
		{"channel show without REF", []string{"channel", "show"}, "channel show: want REF"},
		{"channel set with markup in the id", []string{"channel", "set", "wallet_a.<b>", "--weight", "2"}, "want [sandbox.]<method>.<id>"},
		{"channel set with a bad cost", []string{"channel", "set", "wallet_a.alt", "--cost", "1.5:0"}, "--cost"},
		{"channel breaker without --reason", []string{"channel", "breaker", "close", "wallet_a.alt"}, "give --reason"},
		{"channel maintenance neither on nor off", []string{"channel", "maintenance", "wallet_a.alt", "yes"}, "on or off"},
		{"channel mode of no method", []string{"channel", "mode", "walletz", "weighted"}, "want [sandbox.]<method>"},
		{"merchant group without GROUP", []string{"merchant", "group", "1001"}, "want APPID GROUP|-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			// Nothing listens on port 1: a command that connected would
			// fail there, with the driver's log lines.
			cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL=redis://127.0.0.1:1/0", "GATEWAY_CLICKHOUSE_DSN=clickhouse://127.0.0.1:1/gateway")
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("gateway %v succeeded:\n%s", tt.args, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("gateway %v does not say %q:\n%s", tt.args, tt.want, out)
			}
			for _, driver := range []string{"redis:", "pool.go", "connection refused", "ping redis", "clickhouse"} {
				if strings.Contains(string(out), driver) {
					t.Errorf("gateway %v connected before checking its arguments (%q):\n%s", tt.args, driver, out)
				}
			}
		})
	}
}

// TestParseInterleaved: flags before, between and after the arguments; a
// negative number is an argument, also as the last one; a flag's value may
// be one; after "--" everything is an argument.
func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		pos     []string
		by, amt string
		json    bool
	}{
		{"flags after", []string{"set", "USD", "--json", "--by", "ann"}, []string{"set", "USD"}, "ann", "", true},
		{"flags first", []string{"--by=ann", "-json", "a", "b"}, []string{"a", "b"}, "ann", "", true},
		{"negative number last", []string{"USD", "BDT", "-5"}, []string{"USD", "BDT", "-5"}, "", "", false},
		{"negative decimal before a flag", []string{"USD", "BDT", "-0.5", "--by", "ann"}, []string{"USD", "BDT", "-0.5"}, "ann", "", false},
		{"negative flag value", []string{"1001", "--amount", "-5"}, []string{"1001"}, "", "-5", false},
		{"after --", []string{"--json", "--", "-x", "--by"}, []string{"-x", "--by"}, "", "", true},
		{"a lone dash", []string{"-"}, []string{"-"}, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			by, amt, asJSON := fs.String("by", "", ""), fs.String("amount", "", ""), fs.Bool("json", false, "")
			pos, err := parseInterleaved(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pos, tt.pos) || *by != tt.by || *amt != tt.amt || *asJSON != tt.json {
				t.Fatalf("pos %q by %q amount %q json %v, want %q %q %q %v", pos, *by, *amt, *asJSON, tt.pos, tt.by, tt.amt, tt.json)
			}
		})
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseInterleaved(fs, []string{"--nope"}); err == nil {
		t.Fatal("an unknown flag was accepted")
	}
}
