package main

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestLedgerMoneyCLI: the binary prints and sets a merchant's terms,
// posts an adjustment up to the threshold, makes a request above it that
// the CLI may not approve, lists both and prints the journal; the journal
// holds its invariants after.
func TestLedgerMoneyCLI(t *testing.T) {
	e := newE2ERedis(t)
	var acct struct{ AppID string }
	e.cli(&acct, "merchant", "create", "--name", "Shop", "--json")
	var terms merchant.Terms
	e.cli(&terms, "merchant", "terms", acct.AppID, "--json")
	if !reflect.DeepEqual(terms, merchant.DefaultTerms()) {
		t.Fatalf("terms of a new merchant %+v, want the defaults", terms)
	}
	e.cli(&terms, "merchant", "terms", acct.AppID, "--delay-days", "2", "--cutoff-hour", "18", "--tz", "Asia/Shanghai",
		"--reserve-bps", "500", "--reserve-days", "90", "--refund-returns-fee=true", "--json")
	want := merchant.Terms{DelayDays: 2, CutoffHour: 18, TimeZone: "Asia/Shanghai", ReserveBps: 500, ReserveDays: 90, RefundReturnsFee: true}
	if !reflect.DeepEqual(terms, want) {
		t.Fatalf("terms %+v, want %+v", terms, want)
	}
	e.cli(&terms, "merchant", "terms", acct.AppID, "--instant", "--json")
	if want.Instant = true; !reflect.DeepEqual(terms, want) {
		t.Fatalf("terms %+v, want %+v", terms, want)
	}
	// Payout terms per currency, the rest kept; the change is noted for
	// maker-checker under the CLI operator's key.
	e.cli(&terms, "merchant", "terms", acct.AppID, "--payout-currency", "usd", "--payout-min", "10.00", "--payout-fee", "1.50", "--json")
	e.cli(&terms, "merchant", "terms", acct.AppID, "--payout-currency", "USD", "--payout-auto-approve-below", "50.00", "--json")
	want.Payouts = map[string]merchant.PayoutTerms{"USD": {Min: 1000, Fee: 150, AutoApproveBelow: 5000}}
	if !reflect.DeepEqual(terms, want) {
		t.Fatalf("terms %+v, want %+v", terms, want)
	}
	rdb := redis.NewClient(mustRedisOptions(t, e.redisURL))
	defer rdb.Close()
	if n, err := rdb.ZCard(context.Background(), schema.PayoutChangesKey(acct.AppID)).Result(); err != nil || n != 1 {
		t.Fatalf("payout changes noted %d, %v; want the CLI operator's", n, err)
	}
	var posted, requested struct {
		Recent []struct {
			ID, State string
			Amount    int64
		}
	}
	e.cli(&posted, "ledger", "adjust", acct.AppID, "--amount", "12.50", "--currency", "USD", "--reason", "goodwill", "--json")
	e.cli(&requested, "ledger", "adjust", acct.AppID, "--amount", "-1500", "--currency", "USD", "--reason", "chargeback", "--json")
	if len(posted.Recent) != 1 || posted.Recent[0].State != "posted" || len(requested.Recent) != 1 || requested.Recent[0].State != "pending" {
		t.Fatalf("adjust printed %+v and %+v", posted, requested)
	}
	refused := []struct {
		args []string
		want string
	}{
		{[]string{"ledger", "approve", requested.Recent[0].ID, "--by", "someone-else"}, "operator console"},
		{[]string{"ledger", "adjust", acct.AppID, "--amount", "0", "--currency", "USD", "--reason", "x"}, "non-zero"},
		{[]string{"ledger", "adjust", acct.AppID, "--amount", "5", "--currency", "USD"}, "reason is required"},
		{[]string{"ledger", "adjust", acct.AppID, "--amount", "5", "--currency", "USD", "--reason", "x", "--bucket", "payout_hold"}, "bucket"},
		{[]string{"merchant", "terms", acct.AppID, "--instant", "--delay-days", "1"}, "not both"},
		{[]string{"merchant", "terms", acct.AppID, "--cutoff-hour", "24"}, "cut-off hour"},
		{[]string{"merchant", "terms", acct.AppID, "--payout-fee", "1.00"}, "need --payout-currency"},
		{[]string{"merchant", "terms", acct.AppID, "--payout-currency", "USD", "--payout-fee", "-1"}, "payout fee"},
	}
	for _, r := range refused {
		cmd := exec.Command(e.bin, r.args...)
		cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), r.want) {
			t.Errorf("gateway %v: %v\n%s\nwant an error saying %q", r.args, err, out, r.want)
		}
	}
	var list struct{ Pending, Recent []struct{ ID, State string } }
	e.cli(&list, "ledger", "adjustments", "--json")
	if len(list.Pending) != 1 || len(list.Recent) != 1 {
		t.Fatalf("adjustments %+v, want one pending and one posted", list)
	}
	var page struct {
		Entries  []struct{ Kind, Memo, By string }
		Balances []struct {
			Currency  string
			Available int64
		}
	}
	e.cli(&page, "ledger", "journal", acct.AppID, "--limit", "5", "--json")
	if len(page.Entries) != 1 || page.Entries[0].Kind != "adjustment" || page.Entries[0].Memo != "goodwill" ||
		len(page.Balances) != 1 || page.Balances[0].Available != 1250 {
		t.Fatalf("journal %+v", page)
	}
	rdb = redis.NewClient(mustRedisOptions(t, e.redisURL))
	defer rdb.Close()
	journaltest.Check(t, rdb)
}

// TestDemoMerchantSettlesAtOnce: the demo merchant's payments are available
// at once, so the demo shows money without waiting a day.
func TestDemoMerchantSettlesAtOnce(t *testing.T) {
	e := newE2ERedis(t)
	var st demoState
	e.cli(&st, "demo", "seed", "--dir", t.TempDir(), "--json")
	var terms merchant.Terms
	e.cli(&terms, "merchant", "terms", st.Merchant.AppID, "--json")
	if !terms.Instant {
		t.Fatalf("the demo merchant's terms %+v, want instant", terms)
	}
}
