package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// auditedCommand is one audited CLI command: its arguments with "%s"
// where a bad value goes, that argument as the command takes it when all
// is well, an over-long value of its own when its bound is not
// audit.MaxText, and the action it logs ("": refused cases only, the good
// run needs what this test does not set up).
type auditedCommand struct {
	name   string
	args   []string
	good   string
	long   string
	action string
}

// TestAuditedCommandsRefuseBadText: every audited CLI command, given a
// value that is not UTF-8 or over its bound where it takes text or an id,
// fails with an error and leaves Redis as it was (no change, no audit
// entry); with good values each one acts and appends its entry.
func TestAuditedCommandsRefuseBadText(t *testing.T) {
	rdb := testenv.Redis(t)
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURLFor(rdb)}
	ctx := context.Background()
	shop, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	app := shop.AppID
	h := func(seed string) string { return strings.Repeat(seed, 32) }
	approve, reject, attach := deskOrder(t, rdb, h("a1"), ""), deskOrder(t, rdb, h("b2"), ""), unsubmittedOrder(t, rdb)
	mismatch, dead := fixture.Exceptions(t, rdb, command.NewStore(rdb, time.Hour, time.Hour), app)
	rdb.HSet(ctx, schema.AccessPrefix+"x", "x", "x") // the access prefix exists before any command adds an account
	longURL := "https://93.184.216.34/" + strings.Repeat("a", schema.MaxURLLen)
	cmds := []auditedCommand{
		{"merchant create", []string{"merchant", "create", "--name", "%s"}, "New shop", "", "merchant.create"},
		{"merchant disable", []string{"merchant", "disable", app, "--reason", "%s"}, "chargebacks", "", "merchant.disable"},
		{"merchant enable", []string{"merchant", "enable", app, "--by", "%s"}, "carol", strings.Repeat("a", maxActor+1), "merchant.enable"},
		{"merchant set-name", []string{"merchant", "set-name", app, "%s"}, "Tea Shop", "", "merchant.set_name"},
		{"merchant set-callback", []string{"merchant", "set-callback", app, "https://93.184.216.34/%s"}, "hook", longURL, "merchant.set_callback"},
		{"merchant rotate-key", []string{"merchant", "rotate-key", "%s"}, app, "", "merchant.rotate_key"},
		{"merchant rotate-webhook-secret", []string{"merchant", "rotate-webhook-secret", "%s"}, app, "", "merchant.rotate_webhook_secret"},
		{"merchant rotate-query-key", []string{"merchant", "rotate-query-key", "%s"}, app, "", "merchant.rotate_query_key"},
		{"merchant limits", []string{"merchant", "limits", app, "--create", "%s"}, "5/s", "", "merchant.set_limits"},
		{"merchant method-limits", []string{"merchant", "method-limits", app, "%s", "--min", "1.00"}, "wallet_a", "", "merchant.set_method_limits"},
		{"merchant credit", []string{"merchant", "credit", app, "--currency", "%s", "--amount", "1.00"}, "CNY", "", "merchant.credit"},
		{"fx set", []string{"fx", "set", "%s", "CNY", "7.30"}, "USDT", "", "fx.set"},
		{"fees set", []string{"fees", "set", "--method", "wallet_a", "--currency", "USD", "--bps", "150", "--by", "%s"}, "carol", strings.Repeat("a", maxActor+1), "fees.set"},
		{"fees clear", []string{"fees", "clear", "--method", "wallet_a", "--currency", "USD", "--by", "%s"}, "carol", strings.Repeat("a", maxActor+1), "fees.clear"},
		{"usdt config set", []string{"usdt", "config", "set", "%s", "--address", cliTron}, "TRC20", "", "usdt.network_set"},
		{"usdt config remove", []string{"usdt", "config", "remove", "%s"}, "TRC20", "", "usdt.network_remove"},
		{"usdt approve", []string{"usdt", "approve", approve, "--note", "%s"}, "seen on tronscan", "", "usdt.review_approve"},
		{"usdt reject", []string{"usdt", "reject", reject, "--reason", "%s"}, "amount short", "", "usdt.review_reject"},
		{"usdt attach", []string{"usdt", "attach", attach, h("c3"), "--note", "%s"}, "payer sent the hash by mail", "", "usdt.review_attach"},
		{"exceptions handle", []string{"exceptions", "handle", "mismatch", mismatch, "--note", "%s"}, "refunded at the provider", "", "exception.handle"},
		{"exceptions resend", []string{"exceptions", "resend", "%s"}, dead, "", "webhook.resend"},
		{"exceptions refund", []string{"exceptions", "refund", "%s"}, "", "", ""},
		{"webhook resend", []string{"webhook", "resend", "%s"}, dead, "", "webhook.resend"},
		{"operator add", []string{"operator", "add", "%s", "--role", "support"}, "sam@ops.test", "", "user.create"},
		{"operator reissue", []string{"operator", "reissue", "%s"}, "sam@ops.test", "", "user.reissue_setup"},
		{"operator disable", []string{"operator", "disable", "%s"}, "sam@ops.test", "", "user.disable"},
		{"console-user add", []string{"console-user", "add", app, "%s", "--role", "viewer"}, "vi@shop.test", "", "user.create"},
		{"channel set", []string{"channel", "set", "wallet_a.alt", "--weight", "3", "--by", "%s"}, "carol", strings.Repeat("a", maxActor+1), "channel.set"},
		{"channel breaker", []string{"channel", "breaker", "open", "wallet_a.alt", "--reason", "%s"}, "provider audit", "", "channel.breaker_open"},
		{"channel keywords", []string{"channel", "keywords", "%s"}, "account restricted", strings.Repeat("账", channel.MaxKeyword+1), "channel.keywords"},
		{"merchant group", []string{"merchant", "group", app, "vip", "--by", "%s"}, "carol", strings.Repeat("a", maxActor+1), "merchant.group"},
	}
	with := func(c auditedCommand, v string) []string {
		out := slices.Clone(c.args)
		for i, a := range out {
			out[i] = strings.Replace(a, "%s", v, 1)
		}
		return out
	}
	for _, c := range cmds {
		long := c.long
		if long == "" {
			long = strings.Repeat("é", audit.MaxText+1)
		}
		for _, b := range []struct{ name, v string }{{"not UTF-8", c.good + "\xff"}, {"over-long", long}} {
			t.Run(c.name+" "+b.name, func(t *testing.T) {
				before := redisState(t, rdb)
				_, stderr, err := e.exec(nil, with(c, b.v)...)
				if err == nil || strings.Contains(stderr, "panic") {
					t.Fatalf("%v: %v, want a refusal:\n%s", c.args, err, stderr)
				}
				if redisState(t, rdb) != before {
					t.Fatalf("refused (%s), yet Redis changed", strings.TrimSpace(stderr))
				}
			})
		}
	}
	for _, c := range cmds {
		if c.action == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if c.action == "webhook.resend" {
				// A resend already queued (by the case before) is neither
				// queued nor audited again: dead-letter it once more.
				shard, _ := schema.ParseOrderID(dead)
				rdb.HSet(context.Background(), schema.WebhookKey(shard, dead), "st", "dead")
				rdb.HDel(context.Background(), schema.WebhookKey(shard, dead), "man")
			}
			before := fixture.AuditActions(t, rdb)[c.action]
			if out, stderr, err := e.exec(nil, append(with(c, c.good), "--json")...); err != nil {
				t.Fatalf("%v: %v\n%s%s", c.args, err, out, stderr)
			}
			if n := fixture.AuditActions(t, rdb)[c.action]; n != before+1 {
				t.Fatalf("%d %s entries, want %d", n, c.action, before+1)
			}
		})
	}
}

// unsubmittedOrder is a sandbox usdt_direct order on TRC20 its payer has
// sent no transfer for: one an administrator may attach a hash to.
func unsubmittedOrder(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: "1001", Sandbox: true, Amount: 100_00,
		Currency: "USD", Method: schema.MethodUSDTDirect, Status: schema.StatusReady, PayableAmount: "100.000123",
		NextAction: schema.NextUSDTDirectPay, Network: "TRC20", CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := command.NewStore(rdb, time.Hour, time.Hour).Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// redisState is every key with its value (an audit stream: its length):
// what a refused command must leave as it was.
func redisState(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v, _ := rdb.Dump(ctx, k).Result()
		if strings.HasSuffix(k, ":audit") {
			v = strconv.FormatInt(rdb.XLen(ctx, k).Val(), 10)
		}
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}
