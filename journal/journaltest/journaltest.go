// Package journaltest holds the check every test that moves money ends
// with: the journal's invariants, read from the Redis the test used.
package journaltest

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// Check fails t unless the journal in rdb holds: every entry sums to zero
// per currency, no key posted twice, every balance the sum of its postings.
func Check(t testing.TB, rdb redis.UniversalClient) journal.Report {
	t.Helper()
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := j.Verify(context.Background())
	if err != nil {
		t.Fatalf("verify the journal: %v", err)
	}
	for _, p := range r.Problems {
		t.Errorf("journal: %s", p)
	}
	return r
}

// TopUp credits appid's available balance in cur, as an operator's top-up
// does (journal.TopUp), and answers the available balance after: the way a
// test gives a merchant money.
func TopUp(t testing.TB, rdb redis.UniversalClient, appid, cur string, amount schema.Amount) schema.Amount {
	t.Helper()
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bal, _, err := j.TopUp(context.Background(), "", appid, cur, amount, nil)
	if err != nil {
		t.Fatalf("top up %s %s %s: %v", appid, amount, cur, err)
	}
	return bal
}

// Credit is TopUp for a test that checks the error itself.
func Credit(ctx context.Context, rdb redis.UniversalClient, appid, cur string, amount schema.Amount) (schema.Amount, error) {
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return 0, err
	}
	bal, _, err := j.TopUp(ctx, "", appid, cur, amount, nil)
	return bal, err
}
