package platform

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// TestBinder: a variable is read through the flag's own parser, a flag on
// the command line wins over it, a switch needs no value, and every
// variable that does not parse is kept, not dropped.
func TestBinder(t *testing.T) {
	t.Setenv("GATEWAY_T_NAME", "from-env")
	t.Setenv("GATEWAY_T_WAIT", "3s")
	t.Setenv("GATEWAY_T_N", "many")
	t.Setenv("GATEWAY_T_ON", "ture")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b := NewBinder(fs)
	var (
		name, other string
		wait        time.Duration
		n           = 7
		on, sw      bool
	)
	b.String(&name, "name", "GATEWAY_T_NAME", "a name")
	b.String(&other, "other", "GATEWAY_T_OTHER", "unset")
	b.Duration(&wait, "wait", "GATEWAY_T_WAIT", "a wait")
	b.Int(&n, "n", "GATEWAY_T_N", "a number")
	b.Bool(&on, "on", "GATEWAY_T_ON", "a switch")
	b.Bool(&sw, "sw", "GATEWAY_T_SW", "a switch given bare")
	if err := fs.Parse([]string{"--wait", "5s", "--sw"}); err != nil {
		t.Fatal(err)
	}
	if name != "from-env" || other != "" || wait != 5*time.Second || n != 7 || !sw {
		t.Errorf("name %q other %q wait %v n %d sw %v", name, other, wait, n, sw)
	}
	var got []string
	for _, err := range b.Errs() {
		got = append(got, err.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"GATEWAY_T_N", "GATEWAY_T_ON"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q do not name %s", all, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d errors, want 2: %q", len(got), got)
	}
}

// TestRateLimitsAreParsedOnce: the rate settings are typed, read when
// bound; Limits hands them out without parsing again.
func TestRateLimitsAreParsedOnce(t *testing.T) {
	t.Setenv("GATEWAY_RATE_CREATE", "5/s:10")
	t.Setenv("GATEWAY_ORDER_TTL_METHODS", "cryptopsp=60m")
	cfg := Defaults()
	cfg.Bind(flag.NewFlagSet("t", flag.ContinueOnError))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := (Limit{PerSecond: 5, Burst: 10}); cfg.RateCreate != want || cfg.Limits().Create != want {
		t.Errorf("rate-create %+v, Limits().Create %+v, want %+v", cfg.RateCreate, cfg.Limits().Create, want)
	}
	if d := cfg.OrderTTLMethods["cryptopsp"]; d != time.Hour {
		t.Errorf("cryptopsp TTL %v, want 1h", d)
	}
}
