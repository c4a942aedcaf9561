package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
)

// TestSandboxFaultCLI: gateway sandbox fault writes the fault where the
// channel's simulator reads it (its mount path in the simulators' Redis
// state), leaves the method's other channel alone, and refuses a method
// without a simulator, a channel id that is not one, and an unknown fault
// before writing anything.
func TestSandboxFaultCLI(t *testing.T) {
	e := newE2ERedis(t)
	opt, err := redis.ParseURL(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	st := provider.NewRedisState(rdb)
	at := func(id string) sandbox.Fault {
		t.Helper()
		f, err := sandbox.FaultAt(t.Context(), st, sandbox.SimPath(schema.MethodWalletB, id))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	e.run("sandbox", "fault", "wallet_b", "alt", "restricted")
	if at("alt") != sandbox.FaultRestricted || at("default") != sandbox.FaultOff {
		t.Fatalf("after restricted: alt %q, default %q", at("alt"), at("default"))
	}
	e.run("sandbox", "fault", "wallet_b", "alt", "off")
	if at("alt") != sandbox.FaultOff {
		t.Fatalf("after off: alt %q", at("alt"))
	}
	refused := []struct {
		name string
		args []string
		want string
	}{
		{"no simulator", []string{"select", "alt", "hang"}, "no method with a sandbox simulator"},
		{"markup channel", []string{"wallet_b", "<b>x</b>", "hang"}, "channel id"},
		{"unknown fault", []string{"wallet_b", "alt", "explode"}, "want one of"},
		{"too few", []string{"wallet_b", "alt"}, "want METHOD CHANNEL"},
	}
	for _, c := range refused {
		t.Run("refused/"+c.name, func(t *testing.T) {
			args := append([]string{"sandbox", "fault"}, c.args...)
			cmd := exec.Command(e.bin, args...)
			cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("gateway %v: %v\n%s", args, err, out)
			}
		})
	}
	if at("alt") != sandbox.FaultOff {
		t.Fatalf("a refused command wrote %q", at("alt"))
	}
}

// TestSandboxFaultServe: through the real binary, a fault switched by the
// CLI reaches the running sandbox simulator (the key the CLI writes is the
// one the simulator reads): with both sandbox channels faulted, restricted
// fails the create as a refusal, reset as a provider that did not answer
// (no channel left to fail over to), and off makes it work again.
func TestSandboxFaultServe(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var m account
	e.cli(&m, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve()
	tests := []struct {
		fault  string
		status int
		says   string
	}{
		{"off", 200, ""},
		{"restricted", 502, "refused"},
		{"reset", 503, "did not answer"},
		{"off", 200, ""},
	}
	for _, tt := range tests {
		for _, ch := range []string{"default", "alt"} {
			e.run("sandbox", "fault", "wallet_a", ch, tt.fault)
		}
		r := s.create(t, createParams(m.AppID), m.APIKey)
		if r.Status != tt.status || !strings.Contains(r.Msg, tt.says) {
			t.Fatalf("create with the simulator %s: %+v", tt.fault, r)
		}
	}
}
