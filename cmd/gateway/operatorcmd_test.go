package main

import (
	"context"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestOperatorCLI: `gateway operator add` makes an operator account without
// a password and prints a one-time setup link whose token opens the setup
// (TOTP required: operators always need it); list shows the account; a role
// of the other realm or no role is refused and creates nothing; the
// creation is an audit entry of the CLI, by --by.
func TestOperatorCLI(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t)}
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	var added struct{ ID, Email, Role, SetupLink string }
	e.cli(&added, "operator", "add", "Ann@Ops.Test", "--role", "admin", "--url", "https://ops.example.test", "--by", "dora", "--json")
	u, err := url.Parse(added.SetupLink)
	if err != nil || added.Email != "ann@ops.test" || added.Role != "admin" || u.Host != "ops.example.test" ||
		!strings.HasPrefix(u.Path, "/admin/setup/") {
		t.Fatalf("operator add printed %+v", added)
	}
	token := strings.TrimPrefix(u.Path, "/admin/setup/")
	accts, err := cliAccounts(rdb)
	if err != nil {
		t.Fatal(err)
	}
	acct, enrol, totp, err := accts.BeginSetup(ctx, token)
	if err != nil || acct.ID != added.ID || !totp || enrol == nil {
		t.Fatalf("the printed link's token: %+v %v %v", acct, totp, err)
	}
	for name, args := range map[string][]string{
		"merchant role": {"operator", "add", "bob@ops.test", "--role", "owner"},
		"no role":       {"operator", "add", "bob@ops.test"},
		"bad e-mail":    {"operator", "add", "bob", "--role", "support"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(e.bin, args...)
			cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("%v accepted:\n%s", args, out)
			}
		})
	}
	var list []struct{ Email, Role string }
	e.cli(&list, "operator", "list", "--json")
	if len(list) != 1 || list[0].Email != "ann@ops.test" || list[0].Role != string(access.RoleAdmin) {
		t.Fatalf("operator list: %+v", list)
	}
	rows, err := audit.Read(ctx, rdb, schema.AuditKey(schema.AccessTag), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Action != "user.create" || rows[0].Realm != audit.RealmCLI || rows[0].ActorID != "dora" ||
		rows[0].Details["role"] != "admin" {
		t.Fatalf("audit: %+v", rows)
	}
}
