package merchant

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// appendLedger writes an entry as the command package's balance scripts
// do (pay_balance, transfer_debit/credit/refund): the same fields.
func appendLedger(t *testing.T, s *Store, appid, typ, ref string, amt, bal int64) {
	t.Helper()
	err := s.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: schema.LedgerKey(appid), Values: []any{
		LedgerType, typ, LedgerCurrency, "USD", LedgerAmount, amt, LedgerBalance, bal, LedgerRef, ref, LedgerAt, time.Now().UnixMilli(),
	}}).Err()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLedgerKindsAndPages: every kind of movement is named from its type
// and reference, newest first, paged by cursor, and one merchant's
// ledger shows nothing of another's.
func TestLedgerKindsAndPages(t *testing.T) {
	s := newRedisStore(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, NewAccount{Name: "a"})
	b, _ := s.Create(ctx, NewAccount{Name: "b"})
	appendLedger(t, s, a.AppID, "credit", "", 10_00, 10_00)
	order := schema.NewOrderID(time.Now(), 3)
	refund := schema.NewRefundID("abc123")
	appendLedger(t, s, a.AppID, "credit", order, 2_00, 12_00)
	appendLedger(t, s, a.AppID, "debit", refund, 50, 11_50)
	appendLedger(t, s, a.AppID, "debit", order, 1_00, 10_50)
	appendLedger(t, s, a.AppID, "refund", order, 1_00, 11_50)
	appendLedger(t, s, a.AppID, "credit", refund, 25, 11_75)
	appendLedger(t, s, b.AppID, "credit", "", 99_00, 99_00)
	got, err := s.Ledger(ctx, a.AppID, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind   string
		credit bool
		amt    int64
	}{
		{LedgerRefundIn, true, 25}, {LedgerReversal, true, 1_00}, {LedgerPaymentOut, false, 1_00},
		{LedgerRefundOut, false, 50}, {LedgerPaymentIn, true, 2_00}, {LedgerTopUp, true, 10_00},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Kind != w.kind || g.Credit != w.credit || int64(g.Amount) != w.amt || g.Currency != "USD" {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
	page, err := s.Ledger(ctx, a.AppID, got[1].ID, 2)
	if err != nil || len(page) != 2 || page[0].ID != got[2].ID || page[1].ID != got[3].ID {
		t.Fatalf("page after %s: %+v, %v", got[1].ID, page, err)
	}
	theirs, err := s.Ledger(ctx, b.AppID, "", MaxLedgerPage+1)
	if err != nil || len(theirs) != 1 || theirs[0].Amount != 99_00 {
		t.Fatalf("the other merchant's ledger: %+v, %v", theirs, err)
	}
	if _, err := s.Ledger(ctx, a.AppID, "+ OR 1", 5); err == nil {
		t.Fatal("a cursor that is no stream id was accepted")
	}
}

// TestAuditedChangeIsOneTransaction: a change made through Audited writes
// its entry to the {merchants} audit stream with it; an entry the audit
// log refuses stops the change.
func TestAuditedChangeIsOneTransaction(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, NewAccount{Name: "a"})
	e := audit.Entry{At: time.Now(), ActorID: "u1", ActorEmail: "dev@shop.test", Realm: audit.RealmMerchant, Role: "developer",
		Action: "merchant.rotate_key", Target: "merchant:" + a.AppID, AppID: a.AppID, Source: "192.0.2.7",
		Details: map[string]string{"grace": "24h0m0s"}}
	rotated, err := s.Audited(e).RotateKey(ctx, a.AppID, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	msgs := s.rdb.XRange(ctx, schema.AuditKey("{merchants}"), "-", "+").Val()
	if len(msgs) != 1 || msgs[0].Values["action"] != "merchant.rotate_key" || msgs[0].Values["src"] != "192.0.2.7" {
		t.Fatalf("audit stream %v", msgs)
	}
	for _, v := range msgs[0].Values {
		if s, _ := v.(string); strings.Contains(s, rotated.APIKey) || strings.Contains(s, a.APIKey) {
			t.Fatalf("the audit entry holds a key: %v", msgs[0].Values)
		}
	}
	if _, err := s.RotateKey(ctx, a.AppID, 0); err != nil || s.rdb.XLen(ctx, schema.AuditKey("{merchants}")).Val() != 1 {
		t.Fatalf("a plain store audited its change: %v", err)
	}
	bad := e
	bad.Details = map[string]string{"api_key": "x"}
	before, _ := s.Get(ctx, a.AppID)
	if _, err := s.Audited(bad).RotateKey(ctx, a.AppID, 0); !errors.Is(err, audit.ErrInvalid) {
		t.Fatalf("rotation with a refused entry: %v", err)
	}
	if after, _ := s.Get(ctx, a.AppID); after.APIKey != before.APIKey {
		t.Fatal("the key changed without its audit entry")
	}
}
