package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// shownLimits is `merchant show --json`'s methodLimits.
type shownLimits struct {
	Methods      []string                     `json:"methods"`
	MethodLimits map[string]map[string]string `json:"methodLimits"`
}

// limit renders one method's effective limits as "min-max from".
func (s shownLimits) limit(m string) string {
	l, ok := s.MethodLimits[m]
	if !ok {
		return "absent"
	}
	return l["min"] + "-" + l["max"] + " " + l["from"]
}

// TestMerchantMethodLimitsCLI: `merchant show` prints each method's
// effective limits, GATEWAY_METHOD_LIMITS moving the defaults;
// `merchant method-limits` overrides one method for one merchant and
// --clear gives the default back; bad input changes nothing.
func TestMerchantMethodLimitsCLI(t *testing.T) {
	e := newE2E(t)
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	tests := []struct {
		name string
		env  string // GATEWAY_METHOD_LIMITS
		args []string
		want map[string]string
	}{
		{"defaults", "", []string{"show", shop.AppID}, map[string]string{
			"wallet_a": "1.00-50000.00 default", "cryptohost": "1.00- default", "balance": "- default", "select": "absent"}},
		{"both bounds", "", []string{"method-limits", shop.AppID, "wallet_a", "--min", "5.00", "--max", "500"}, map[string]string{
			"wallet_a": "5.00-500.00 merchant", "wallet_b": "1.00-50000.00 default"}},
		{"max only", "", []string{"method-limits", shop.AppID, "bdcard", "--max", "20.00"}, map[string]string{
			"bdcard": "-20.00 merchant", "wallet_a": "5.00-500.00 merchant"}},
		{"the configured defaults", "wallet_b=2.00-3.00,wallet_a=7.00-", []string{"show", shop.AppID}, map[string]string{
			"wallet_b": "2.00-3.00 default", "wallet_a": "5.00-500.00 merchant", "cryptohost": "1.00- default"}},
		{"clear", "", []string{"method-limits", shop.AppID, "wallet_a", "--clear"}, map[string]string{
			"wallet_a": "1.00-50000.00 default", "bdcard": "-20.00 merchant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GATEWAY_METHOD_LIMITS", tt.env)
			var shown shownLimits
			e.cli(&shown, append(append([]string{"merchant"}, tt.args...), "--json")...)
			for m, want := range tt.want {
				if m = strings.TrimSpace(m); want != "" && shown.limit(m) != want {
					t.Fatalf("%s: %q, want %q (all: %v)", m, shown.limit(m), want, shown.MethodLimits)
				}
			}
		})
	}
	refused := [][]string{
		{"method-limits", shop.AppID, "select", "--min", "1.00"},
		{"method-limits", shop.AppID, "nope", "--min", "1.00"},
		{"method-limits", shop.AppID, "wallet_a", "--min", "5.00", "--max", "1.00"},
		{"method-limits", shop.AppID, "wallet_a", "--min", "1.005"},
		{"method-limits", shop.AppID, "wallet_a", "--clear", "--max", "1.00"},
		{"method-limits", shop.AppID},
		{"method-limits", "999999", "wallet_a", "--min", "1.00"},
	}
	for _, args := range refused {
		cmd := exec.Command(e.bin, append([]string{"merchant"}, args...)...)
		cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Fatalf("merchant %v succeeded: %s", args, out)
		}
	}
	var shown shownLimits
	e.cli(&shown, "merchant", "show", shop.AppID, "--json")
	if got := shown.limit("wallet_a") + "|" + shown.limit("bdcard"); got != "1.00-50000.00 default|-20.00 merchant" {
		t.Fatalf("after refused changes: %s", got)
	}
}
