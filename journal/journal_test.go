package journal_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// realRedis runs the journal's tests on the real Redis when the Makefile
// started one (the script's arithmetic is Redis's Lua, not miniredis's).
var realRedis = os.Getenv("GATEWAY_TEST_REDIS_URL") != ""

func newJournal(t *testing.T) (*journal.Journal, redis.UniversalClient) {
	t.Helper()
	var rdb redis.UniversalClient
	if realRedis {
		rdb = testenv.Redis(t)
	} else {
		mr := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { c.Close() })
		rdb = c
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { journaltest.Check(t, rdb) })
	return j, rdb
}

func post(t *testing.T, j *journal.Journal, tx journal.Tx) journal.Result {
	t.Helper()
	r, err := j.Post(context.Background(), tx)
	if err != nil {
		t.Fatalf("post %s: %v", tx.Key, err)
	}
	return r
}

func topUp(key, appid string, amt schema.Amount) journal.Tx {
	return journal.Tx{Key: key, Kind: "topup", AppID: appid, Postings: []journal.Posting{
		{Account: journal.TopUp, Currency: "USD", Amount: -amt},
		{Account: journal.Merchant(appid, journal.Available), Currency: "USD", Amount: amt},
	}}
}

func TestPostOnceAndBalances(t *testing.T) {
	j, _ := newJournal(t)
	if r := post(t, j, topUp("topup:a", "1001", 500)); r.Outcome != journal.Posted {
		t.Fatalf("first post: %v", r.Outcome)
	}
	if r := post(t, j, topUp("topup:a", "1001", 500)); r.Outcome != journal.Replayed {
		t.Fatalf("replay: %v", r.Outcome)
	}
	b, err := j.Balance(context.Background(), "1001", "USD")
	if err != nil || b.Available != 500 {
		t.Fatalf("balance %+v %v, want 500 available", b, err)
	}
	p, _ := j.PlatformBalances(context.Background())
	if p[journal.TopUp]["USD"] != -500 {
		t.Fatalf("topup account %v", p)
	}
}

func TestSpendTakesAvailableThenPending(t *testing.T) {
	j, _ := newJournal(t)
	pay := journal.Tx{Key: "payment:o1", Kind: "payment", AppID: "1001", Postings: []journal.Posting{
		{Account: journal.Receivable("default"), Currency: "USD", Amount: -1000},
		{Account: journal.Merchant("1001", journal.Pending), Currency: "USD", Amount: 1000},
	}}
	post(t, j, pay)
	post(t, j, topUp("topup:b", "1001", 300))
	refund := func(key string, amt schema.Amount) journal.Tx {
		return journal.Tx{Key: key, Kind: "refund", AppID: "1001", Postings: []journal.Posting{
			{Account: journal.Spend("1001"), Currency: "USD", Amount: -amt},
			{Account: journal.Receivable("default"), Currency: "USD", Amount: amt},
		}}
	}
	post(t, j, refund("refund:r1", 500))
	b, _ := j.Balance(context.Background(), "1001", "USD")
	if b.Available != 0 || b.Pending != 800 {
		t.Fatalf("after a 5.00 refund: %+v, want available 0 pending 800", b)
	}
	r := post(t, j, refund("refund:r2", 900))
	if r.Outcome != journal.Refused {
		t.Fatalf("a refund beyond the balance: %v", r.Outcome)
	}
	tx := refund("refund:r3", 900)
	tx.AllowNegative = true
	post(t, j, tx)
	if b, _ = j.Balance(context.Background(), "1001", "USD"); b.Available != -100 || b.Pending != 0 {
		t.Fatalf("negative allowed: %+v, want available -100", b)
	}
}

func TestRefusalRecordedAndRequires(t *testing.T) {
	j, _ := newJournal(t)
	debit := journal.Tx{Key: "balance_debit:o2:x", Kind: "balance_debit", AppID: "1002", RecordRefusal: true,
		Postings: []journal.Posting{
			{Account: journal.Merchant("1002", journal.Available), Currency: "USD", Amount: -100},
			{Account: journal.Transit, Currency: "USD", Amount: 100},
		}}
	if r := post(t, j, debit); r.Outcome != journal.Refused {
		t.Fatalf("empty balance: %v", r.Outcome)
	}
	post(t, j, topUp("topup:c", "1002", 1000))
	if r := post(t, j, debit); r.Outcome != journal.Refused {
		t.Fatalf("a recorded refusal must stay refused: %v", r.Outcome)
	}
	rev := journal.Tx{Key: "balance_reversal:o2:x", Kind: "balance_reversal", AppID: "1002", Requires: debit.Key,
		Postings: []journal.Posting{
			{Account: journal.Transit, Currency: "USD", Amount: -100},
			{Account: journal.Merchant("1002", journal.Available), Currency: "USD", Amount: 100},
		}}
	if r := post(t, j, rev); r.Outcome != journal.Missing {
		t.Fatalf("reversing a refused debit: %v", r.Outcome)
	}
}

func TestDueAddedWithThePosting(t *testing.T) {
	j, rdb := newJournal(t)
	at := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	tx := topUp("topup:d", "1003", 100)
	key := schema.SettleDueKey(schema.HomeShard("1003"))
	tx.Due = &journal.Due{Key: key, At: at, Member: "m1"}
	post(t, j, tx)
	z, err := rdb.ZRangeWithScores(context.Background(), key, 0, -1).Result()
	if err != nil || len(z) != 1 || int64(z[0].Score) != at.UnixMilli() {
		t.Fatalf("due set %v %v", z, err)
	}
}

func TestInvalidTransactions(t *testing.T) {
	j, _ := newJournal(t)
	ok := topUp("topup:e", "1004", 100)
	cases := []struct {
		name string
		edit func(*journal.Tx)
	}{
		{"no key", func(tx *journal.Tx) { tx.Key = "" }},
		{"key with a separator", func(tx *journal.Tx) { tx.Key = "topup:e;x" }},
		{"not zero-sum", func(tx *journal.Tx) { tx.Postings[0].Amount = -99 }},
		{"zero posting", func(tx *journal.Tx) {
			tx.Postings = append(tx.Postings, journal.Posting{Account: journal.Fees, Currency: "USD", Amount: 0})
		}},
		{"another merchant's account", func(tx *journal.Tx) { tx.Postings[1].Account = journal.Merchant("9999", journal.Available) }},
		{"unknown bucket", func(tx *journal.Tx) { tx.Postings[1].Account = "merchant:1004:vault" }},
		{"bad currency", func(tx *journal.Tx) { tx.Postings[0].Currency, tx.Postings[1].Currency = "usd", "usd" }},
		{"spend that gives", func(tx *journal.Tx) {
			tx.Postings[0].Account, tx.Postings[1].Account = journal.Spend("1004"), journal.TopUp
			tx.Postings[0].Amount, tx.Postings[1].Amount = 100, -100
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := ok
			tx.Postings = append([]journal.Posting(nil), ok.Postings...)
			c.edit(&tx)
			if _, err := j.Post(context.Background(), tx); !errors.Is(err, journal.ErrInvalid) {
				t.Fatalf("err %v, want ErrInvalid", err)
			}
		})
	}
}

func TestVerifyCatchesADoublePosting(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	j, _ := journal.New(journal.Config{}, rdb, nil, nil)
	ctx := context.Background()
	post(t, j, topUp("topup:f", "1005", 100))
	// A planted second posting of the same transaction, as a bug that
	// skipped the marker would write it.
	s := schema.HomeShard("1005")
	rdb.HIncrBy(ctx, schema.AccountsKey("1005"), "available:USD", 100)
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: schema.JournalKey(s), Values: []any{"tx", "topup:f", "k", "topup", "m", "1005",
		"ref", "", "at", "1", "memo", "", "by", "", "p", "merchant:1005:available,USD,100"}})
	r, err := j.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || len(r.Problems) < 2 {
		t.Fatalf("verify missed the planted double posting: %v", r.Problems)
	}
}
