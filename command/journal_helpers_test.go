package command

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// journalEntries are appid's journal entries, oldest first.
func journalEntries(t *testing.T, rdb redis.UniversalClient, appid string) []journal.Entry {
	t.Helper()
	msgs, err := rdb.XRange(context.Background(), schema.JournalKey(schema.HomeShard(appid)), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []journal.Entry
	for _, m := range msgs {
		e, err := journal.DecodeEntry(m.ID, m.Values)
		if err != nil {
			t.Fatal(err)
		}
		if e.AppID == appid {
			out = append(out, e)
		}
	}
	return out
}

// spend takes amount of appid's available USD by an operator's adjustment:
// the merchant spent it elsewhere.
func spend(t *testing.T, rdb redis.UniversalClient, appid string, amount schema.Amount) {
	t.Helper()
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := journal.Tx{Key: journal.KindAdjustment + ":" + rand.Text(), Kind: journal.KindAdjustment, AppID: appid,
		Memo: "spent elsewhere", By: "test", Postings: []journal.Posting{
			{Account: journal.Merchant(appid, journal.Available), Currency: "USD", Amount: -amount},
			{Account: journal.Adjust, Currency: "USD", Amount: amount}}}
	if res, err := j.Post(context.Background(), tx); err != nil || res.Outcome != journal.Posted {
		t.Fatalf("spend %s of %s: %+v %v", amount, appid, res, err)
	}
}
