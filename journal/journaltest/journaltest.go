// Package journaltest holds the check every test that moves money ends
// with: the journal's invariants, read from the Redis the test used.
package journaltest

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
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
