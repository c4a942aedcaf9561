package journal_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// TestTopUpOnceByKey: a top-up under a key the caller gives credits once,
// however often it is retried; without a key each call is its own.
func TestTopUpOnceByKey(t *testing.T) {
	j, _ := newJournal(t)
	ctx := context.Background()
	for i, want := range []struct {
		key    string
		posted bool
		bal    schema.Amount
	}{{"batch-7", true, 10_00}, {"batch-7", false, 10_00}, {"", true, 20_00}, {"", true, 30_00}} {
		bal, posted, err := j.TopUp(ctx, want.key, "1001", "USD", 10_00, nil)
		if err != nil || posted != want.posted || bal != want.bal {
			t.Fatalf("top-up %d: %s posted %v, %v; want %+v", i, bal, posted, err, want)
		}
	}
	if _, _, err := j.TopUp(ctx, "", "1001", "USD", 0, nil); err == nil {
		t.Fatal("a zero top-up was posted")
	}
}

// TestTopUpsConcurrent: concurrent top-ups all land, each once.
func TestTopUpsConcurrent(t *testing.T) {
	j, _ := newJournal(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, _, err := j.TopUp(ctx, "", "1001", "USD", schema.Amount(i+1), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if b, err := j.Balance(ctx, "1001", "USD"); err != nil || b.Available != 50*51/2 {
		t.Fatalf("balance %+v %v", b, err)
	}
}

// TestTopUpAuditedInOneStep: a person's top-up carries its audit entry in
// the same script, on the merchant's home shard; a refused entry moves
// nothing.
func TestTopUpAuditedInOneStep(t *testing.T) {
	j, rdb := newJournal(t)
	ctx := context.Background()
	stream := schema.AuditKey(schema.HomeShard("1001").Tag())
	bad := audit.Entry{} // no actor, no action: the log cannot keep it
	if _, _, err := j.TopUp(ctx, "k1", "1001", "USD", 5_00, &bad); err == nil {
		t.Fatal("a top-up with an entry the log refuses was posted")
	}
	if b, _ := j.Balance(ctx, "1001", "USD"); b.Available != 0 || rdb.XLen(ctx, stream).Val() != 0 {
		t.Fatalf("a refused top-up moved %+v", b)
	}
	e := audit.Entry{At: time.Now(), ActorID: "ops", Realm: "cli", Action: "merchant.credit", Target: "merchant:1001",
		AppID: "1001", Source: "cli"}
	if _, _, err := j.TopUp(ctx, "k1", "1001", "USD", 5_00, &e); err != nil {
		t.Fatal(err)
	}
	if n := rdb.XLen(ctx, stream).Val(); n != 1 {
		t.Fatalf("%d audit entries", n)
	}
}

// TestOpenBalancesOnce: balances of before the journal become one opening
// entry per currency, once for ever, the old hash left as it was.
func TestOpenBalancesOnce(t *testing.T) {
	j, rdb := newJournal(t)
	ctx := context.Background()
	rdb.HSet(ctx, schema.BalanceKey("1001"), "USD", 123_45, "CNY", 0, "BDT", 7)
	for run, want := range []int{2, 0} {
		n, err := j.OpenBalances(ctx, "1001")
		if err != nil || n != want {
			t.Fatalf("run %d: posted %d, %v; want %d", run, n, err, want)
		}
	}
	bals, err := j.Balances(ctx, "1001")
	if err != nil || len(bals) != 2 || bals[0].Currency != "BDT" || bals[0].Available != 7 || bals[1].Available != 123_45 {
		t.Fatalf("balances %+v %v", bals, err)
	}
	if n := rdb.XLen(ctx, schema.JournalKey(schema.HomeShard("1001"))).Val(); n != 2 {
		t.Fatalf("%d journal entries, want 2", n)
	}
	if ttl := rdb.TTL(ctx, schema.JournalTxKey(schema.HomeShard("1001"), "opening:1001:USD")).Val(); ttl != -1 {
		t.Fatalf("opening marker ttl %v: must be kept for ever", ttl)
	}
	if v := rdb.HGet(ctx, schema.BalanceKey("1001"), "USD").Val(); v != "12345" {
		t.Fatalf("old hash %q", v)
	}
	if _, err := j.OpenBalances(ctx, "9999"); err != nil {
		t.Fatal(err)
	}
	_ = journal.Opening
}
