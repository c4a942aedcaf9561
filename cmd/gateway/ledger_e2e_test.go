package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestLedgerEndToEnd: the default roles include the ledger, which posts a
// sandbox payment to the merchant's pending balance, its metrics are those
// docs/metrics.md lists; `ledger verify` passes,
// then fails (exit 1) on a double posting planted straight into Redis.
func TestLedgerEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	s := e.serve("GATEWAY_ROLES=" + strings.Join(platform.AllRoles, ","))
	r := s.create(t, createParams(shop.AppID), shop.APIKey)
	if r.Status != 200 {
		t.Fatalf("create: %s", r.Raw)
	}
	id := r.Data["paymentId"].(string)
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
		t.Fatalf("pay: %s", r.Raw)
	}
	testenv.Eventually(t, 15*time.Second, "the payment is in the merchant's pending balance", func() bool {
		var bs []journal.Balance
		e.cli(&bs, "ledger", "balances", shop.AppID, "--json")
		return len(bs) == 1 && bs[0].Currency == "CNY" && bs[0].Pending == 100_50
	})
	body := scrapeMetrics(t, s)
	checkLabelsDocumented(t, body, documentedLabels(t))
	for _, want := range []string{`gateway_ledger_postings_total{kind="payment",result="posted"} 1`, `gateway_ledger_lag_events{shard="0"} 0`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if out, err := e.ledger("verify"); err != nil || !strings.Contains(out, "journal OK") {
		t.Fatalf("verify of a sound journal: %v\n%s", err, out)
	}
	if out, err := e.ledger("settle"); err != nil || !strings.Contains(out, "settled 0 move(s)") {
		t.Fatalf("settle before D+1: %v\n%s", err, out)
	}
	undo := plantDoublePosting(t, testenv.Client(t, e.redisURL), shop.AppID, "payment:"+id)
	out, err := e.ledger("verify")
	if err == nil || !strings.Contains(out, "payment:"+id+" posted twice") {
		t.Fatalf("verify missed a planted double posting: %v\n%s", err, out)
	}
	// The harness's own journal check at the end must see the journal as
	// the gateway left it.
	undo()
}

// ledger runs `gateway ledger ARGS`, its output and whether it failed.
func (e *e2e) ledger(args ...string) (string, error) {
	cmd := exec.Command(e.bin, append([]string{"ledger"}, args...)...)
	cmd.Env = append(os.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// plantDoublePosting writes transaction key's entry a second time with its
// balances, as a bug posting twice would: the journal still sums to zero
// and every balance to its postings, so only the duplicate key shows it.
// It returns what takes the plant out again.
func plantDoublePosting(t *testing.T, rdb redis.UniversalClient, appid, key string) (undo func()) {
	t.Helper()
	ctx := context.Background()
	s := schema.HomeShard(appid)
	id, err := rdb.Get(ctx, schema.JournalTxKey(s, key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := rdb.XRangeN(ctx, schema.JournalKey(s), id, id, 1).Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("entry %s of %s: %v", id, key, err)
	}
	en, err := journal.DecodeEntry(id, msgs[0].Values)
	if err != nil {
		t.Fatal(err)
	}
	planted, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: schema.JournalKey(s), Values: msgs[0].Values}).Result()
	if err != nil {
		t.Fatal(err)
	}
	apply := func(sign int64) {
		for _, p := range en.Postings {
			hash, field := schema.PlatformAccountsKey(s), p.Account+":"+p.Currency
			if rest, ok := strings.CutPrefix(p.Account, "merchant:"+appid+":"); ok {
				hash, field = schema.AccountsKey(appid), rest+":"+p.Currency
			}
			if err := rdb.HIncrBy(ctx, hash, field, sign*int64(p.Amount)).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	apply(1)
	return func() {
		t.Helper()
		if err := rdb.XDel(ctx, schema.JournalKey(s), planted).Err(); err != nil {
			t.Fatal(err)
		}
		apply(-1)
	}
}
