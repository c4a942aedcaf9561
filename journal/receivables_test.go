package journal_test

import (
	"context"
	"testing"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// TestReceivables: each channel's receivable per currency, the sandbox's
// apart from live, summed over shards, and no other platform account.
func TestReceivables(t *testing.T) {
	j, _ := newJournal(t)
	owe := func(key, appid, ch, cur string, n schema.Amount) journal.Tx {
		return journal.Tx{Key: key, Kind: "payment", AppID: appid, Postings: []journal.Posting{
			{Account: journal.Receivable(ch), Currency: cur, Amount: -n},
			{Account: journal.Merchant(appid, journal.Pending), Currency: cur, Amount: n},
		}}
	}
	post(t, j, owe("payment:P1", "1001", "wallet_a.default", "CNY", 1000))
	post(t, j, owe("payment:P2", "1002", "wallet_a.default", "CNY", 500)) // another merchant's
	post(t, j, owe("payment:P3", "1001", "wallet_a.default", "USD", 70))
	post(t, j, owe("payment:P4", "1001", "sandbox.wallet_a.default", "CNY", 9))
	post(t, j, topUp("topup:a", "1001", 5))
	got, err := j.Receivables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]schema.Amount{
		"wallet_a.default":         {"CNY": -1500, "USD": -70},
		"sandbox.wallet_a.default": {"CNY": -9},
	}
	if len(got) != len(want) {
		t.Fatalf("receivables %v, want %v", got, want)
	}
	for ch, byCur := range want {
		for cur, n := range byCur {
			if got[ch][cur] != n || len(got[ch]) != len(byCur) {
				t.Fatalf("%s %s: %v, want %d", ch, cur, got[ch], n)
			}
		}
	}
}
