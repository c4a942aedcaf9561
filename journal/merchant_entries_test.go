package journal_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// neighbours are two merchants homed on one shard, so each one's journal
// is read past the other's entries.
func neighbours(t *testing.T) (string, string) {
	t.Helper()
	a := "1001"
	for n := 1002; n < 3000; n++ {
		if b := strconv.Itoa(n); schema.HomeShard(b) == schema.HomeShard(a) {
			return a, b
		}
	}
	t.Fatal("no two merchants on one shard")
	return "", ""
}

func keysOf(es []journal.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out
}

// TestMerchantEntriesPagesNewestFirst: a merchant's entries only, newest
// first, page after page through the cursor, the other merchant's skipped.
func TestMerchantEntriesPagesNewestFirst(t *testing.T) {
	j, _ := newJournal(t)
	a, b := neighbours(t)
	for i := range 7 {
		post(t, j, topUp("topup:a"+strconv.Itoa(i), a, 100))
		post(t, j, topUp("topup:b"+strconv.Itoa(i), b, 100))
	}
	ctx := context.Background()
	var got []string
	before := ""
	for page := 0; ; page++ {
		es, next, err := j.MerchantEntries(ctx, a, before, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.AppID != a {
				t.Fatalf("page %d holds %s's entry %s", page, e.AppID, e.Key)
			}
		}
		got = append(got, keysOf(es)...)
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatalf("no end after %d pages: %v", page, got)
		}
		before = next
	}
	want := []string{"topup:a6", "topup:a5", "topup:a4", "topup:a3", "topup:a2", "topup:a1", "topup:a0"}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %v, want %v", got, want)
		}
	}
}

// TestMerchantEntriesBoundsTheScan: behind more than one call's scan bound
// of a neighbour's entries, a page comes back short with a cursor, and the
// cursor reaches the merchant's old entry.
func TestMerchantEntriesBoundsTheScan(t *testing.T) {
	if testing.Short() {
		t.Skip("posts thousands of entries")
	}
	j, _ := newJournal(t)
	a, b := neighbours(t)
	post(t, j, topUp("topup:old", a, 100))
	for i := range 5100 {
		post(t, j, topUp("topup:n"+strconv.Itoa(i), b, 1))
	}
	ctx := context.Background()
	es, next, err := j.MerchantEntries(ctx, a, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 0 || next == "" {
		t.Fatalf("first call: %d entries, cursor %q; want none and a cursor (the scan is bounded)", len(es), next)
	}
	es, next, err = j.MerchantEntries(ctx, a, next, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Key != "topup:old" || next != "" {
		t.Fatalf("second call: %v, cursor %q; want topup:old and the end", keysOf(es), next)
	}
}
