package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Account is what `gateway merchant create --json` prints.
type Account struct {
	AppID    string `json:"appid"`
	APIKey   string `json:"apiKey"`
	QueryKey string `json:"queryKey"`
}

// Merchants are the load's accounts, each with one job so that the audit
// can tell what moved each balance:
//
//	Shop    creates across methods, paid by the sandbox
//	Self    pays its own orders from its balance (method=balance on create)
//	Payer   pays XShop's orders from its balance through the payer pages
//	XShop   is paid by Payer only
type Merchants struct {
	Shop, Self, Payer, XShop Account
	Password                 string
	// Credited is the minor units of USD given to Self and Payer before the load.
	Credited int64
}

// cli runs a gateway subcommand against the suite's servers, with stdin
// when given, and decodes its JSON output into v.
func (c *Cluster) cli(ctx context.Context, v any, stdin string, args ...string) error {
	cmd := exec.CommandContext(ctx, c.cfg.Gateway, args...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+c.RedisURL(), "GATEWAY_CLICKHOUSE_DSN="+c.ClickHouseDSN(),
		"GATEWAY_REDIS_CLUSTER="+strconv.FormatBool(c.RCluster != nil))
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin + "\n")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("gateway %v: %w: %s", args, err, stderr.String())
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("gateway %v printed %q: %w", args, out, err)
	}
	return nil
}

// setupMerchants makes the four sandbox accounts with limits the load
// never reaches, credits Self and Payer, and gives Payer a password.
func (c *Cluster) setupMerchants(ctx context.Context) (*Merchants, error) {
	m := &Merchants{Password: "chaos payer password", Credited: 10_000_000_000} // 100,000,000.00 USD
	// (a full run at 1,000 creates/s spends a few million in balance payments)
	for _, a := range []struct {
		acct *Account
		name string
	}{{&m.Shop, "chaos shop"}, {&m.Self, "chaos self"}, {&m.Payer, "chaos payer"}, {&m.XShop, "chaos xshop"}} {
		if err := c.cli(ctx, a.acct, "", "merchant", "create", "--name", a.name, "--sandbox", "--json"); err != nil {
			return nil, err
		}
		if a.acct.AppID == "" || a.acct.APIKey == "" {
			return nil, errors.New("merchant create printed no credentials")
		}
		if err := c.cli(ctx, nil, "", "merchant", "limits", a.acct.AppID, "--create", "1000000/s", "--query", "1000000/s", "--report", "1000000/s", "--json"); err != nil {
			return nil, err
		}
	}
	for _, appid := range []string{m.Self.AppID, m.Payer.AppID} {
		if err := c.cli(ctx, nil, "", "merchant", "credit", appid, "--currency", "USD", "--amount", "100000000.00", "--json"); err != nil {
			return nil, err
		}
	}
	if err := c.cli(ctx, nil, m.Password, "merchant", "set-password", m.Payer.AppID); err != nil {
		return nil, err
	}
	return m, nil
}
